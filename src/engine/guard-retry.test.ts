import { describe, expect, it } from 'vitest';
import { ContextBudgetError, ModelCallError } from '../core/errors/index.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';
import type { PrepareResult } from './prepare-call.ts';

const MODEL = 'claude-sonnet-4-5';
const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

/** Anthropic's overflow error: the provider's count of the request, and the window it holds. */
const promptTooLong = (tokens: number, limit: number) =>
  new ModelCallError(`prompt is too long: ${tokens} tokens > ${limit} maximum`, {
    status: 400,
    providerType: 'invalid_request_error',
  });

/**
 * A tool's output under the spill threshold (~9,000 tokens), which a tokenizer may count three times as
 * ctxkit does (any text works: the provider is faked).
 */
const OUTPUT = Array.from(
  { length: 500 },
  (_, index) => `line ${index}: the build step compiled module ${index % 37} and wrote its objects`,
).join('\n');

async function session() {
  const manager = createContextManager({ policy: PRESETS.default, clock: clock() });
  await manager.append('s', [
    user('Why is the build slow?'),
    {
      role: 'assistant',
      parts: [{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{"cmd":"cat build.log"}' }],
    },
    {
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name: 'bash', content: OUTPUT, isError: false }],
    },
  ]);
  return manager;
}

const sent = (result: PrepareResult) => result.stats.guard?.tokens ?? 0;

describe('the retry after an overflow', () => {
  it('is fitted to the provider’s own count of what overflowed, at the window the error named', async () => {
    const manager = await session();
    // ctxkit takes the model's profile window (200k): everything goes.
    const first = await manager.prepare('s', { system: 'You are a coding agent.', model: MODEL });
    expect(first.stats.contextWindow).toBeGreaterThan(100_000);
    // The provider counts three times what ctxkit does, and holds 16,000.
    const reported = sent(first) * 3;
    const limit = 16_000;
    const reserve = 1_024;
    for (const how of ['recover', 'noteOverflow'] as const) {
      const fresh = how === 'recover' ? manager : await session();
      const overflowed =
        how === 'recover'
          ? first
          : await fresh.prepare('s', { system: 'You are a coding agent.', model: MODEL });
      const error = promptTooLong(sent(overflowed) * 3, limit);
      if (how === 'recover') await fresh.recover('s', error);
      else await fresh.noteOverflow('s', error);
      const retry = await fresh.prepare('s', { contextWindow: limit, maxOutputTokens: reserve });
      expect(sent(retry), how).toBeLessThan(sent(overflowed));
      // Scaled by the factor the provider's count showed, it fits what the window leaves.
      expect(sent(retry) * (reported / sent(first)), how).toBeLessThanOrEqual(limit - reserve);
    }
  });

  it('is never the request that overflowed: when nothing can be cut, prepare throws instead', async () => {
    const manager = createContextManager({ policy: PRESETS.default, clock: clock() });
    await manager.append('s', [user('hello')]);
    const system = 'You are a coding agent. '.repeat(200);
    await manager.prepare('s', { system, model: MODEL, contextWindow: 16_000 });
    // The provider says the request is far larger than its window: only the system prompt and one
    // message went, and neither can be cut.
    const { retry } = await manager.recover('s', promptTooLong(100_000, 16_000));
    if (retry) {
      await expect(manager.prepare('s', { system, model: MODEL })).rejects.toSatisfy((error: unknown) =>
        ContextBudgetError.isInstance(error),
      );
    }
    // A new call (messages appended since) is not held to it.
    await manager.append('s', [{ role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }, user('again')]);
    expect(sent(await manager.prepare('s', { system, model: MODEL }))).toBeGreaterThan(0);
  });

  it('after messages were appended is a new call, not held to the request that overflowed', async () => {
    const manager = await session();
    const first = await manager.prepare('s', { model: MODEL, contextWindow: 200_000 });
    await manager.noteOverflow('s', promptTooLong(sent(first), 180_000));
    await manager.append('s', [
      { role: 'assistant', parts: [{ type: 'text', text: 'It is slow because…' }] },
    ]);
    const next = await manager.prepare('s', { model: MODEL, contextWindow: 200_000 });
    expect(sent(next)).toBeGreaterThan(sent(first));
  });
});
