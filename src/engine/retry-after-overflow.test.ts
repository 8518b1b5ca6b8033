import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import { COWAGENT_POLICY, DEFAULT_POLICY, PICOCLAW_POLICY } from '../core/policy/presets/index.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

/** A provider's overflow without figures (OpenAI's code). */
const overflow = () =>
  new ModelCallError('Input exceeds the context window of this model.', {
    status: 400,
    providerCode: 'context_length_exceeded',
  });

/** Six turns, each with a tool call and a long result. */
function history() {
  return Array.from({ length: 6 }, (_, turn) => [
    user(`Step ${turn}: read the next file.`),
    callsTo([`c${turn}`, 'read', `{"path":"f${turn}.ts"}`]),
    result(`c${turn}`, `line ${turn}\n`.repeat(400)),
    assistant(`Read f${turn}.ts.`),
  ]).flat();
}

const REQUEST = { model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 4_000 };

/** Overflows every call until the protocol lets the error stand; what each step did. */
async function overflowUntilItStands(policy: typeof DEFAULT_POLICY) {
  const manager = createContextManager({ policy });
  const events: ContextEvent[] = [];
  manager.on((event) => events.push(event));
  await manager.append('s', history());
  await manager.prepare('s', REQUEST);
  const steps: { retry: boolean; cleared: boolean; messages: number }[] = [];
  for (let call = 0; call < 10; call++) {
    const next = await manager.retryAfterOverflow('s', overflow(), REQUEST);
    steps.push({
      retry: next.retry !== undefined,
      cleared: next.cleared,
      messages: next.retry?.messages.length ?? 0,
    });
    if (!next.retry) break;
  }
  return { manager, events, steps };
}

describe('retryAfterOverflow: the one overflow protocol', () => {
  it('cowagent: summarize and trim, then its last resort: the whole context cleared, not resent', async () => {
    const { manager, events, steps } = await overflowUntilItStands(COWAGENT_POLICY);
    expect(steps.map(({ retry, cleared }) => [retry, cleared])).toEqual([
      [true, false],
      [false, true],
    ]);
    // "All current messages are summarized and written to memory".
    expect(await manager.memory.search('s', 'overflow')).not.toEqual([]);
    expect(events.filter((event) => event.type === 'context-overflowed')).toHaveLength(2);
    // From the user's next message on, the request holds that message and nothing before it.
    await manager.append('s', [user('Start again, please.')]);
    const next = await manager.prepare('s', REQUEST);
    expect(next.messages.map((message) => message.role)).toEqual(['user']);
    // The log keeps everything.
    expect((await manager.history('s')).log).toHaveLength(history().length + 1);
  });

  it('default: drop to fit and retry; then the reset to the last turn, which here changes nothing, so the error stands', async () => {
    const { steps } = await overflowUntilItStands(DEFAULT_POLICY);
    // The drop left the newest turn alone: the reset to it would resend what overflowed.
    expect(steps.map(({ retry, messages }) => [retry, messages])).toEqual([
      [true, 4],
      [false, 0],
    ]);
    expect(steps.every(({ cleared }) => !cleared)).toBe(true);
  });

  it('a limit the error names is adopted for the model: the retry and every later call are prepared for it', async () => {
    const manager = createContextManager({ policy: PICOCLAW_POLICY });
    await manager.append('s', history());
    const first = await manager.prepare('s', REQUEST);
    expect(first.stats.contextWindow).toBe(128_000);
    const named = new ModelCallError(
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      { status: 400, providerCode: 'context_length_exceeded' },
    );
    const next = await manager.retryAfterOverflow('s', named, REQUEST);
    expect(next.adoptedWindow).toBe(8_192);
    expect(next.retry?.stats.contextWindow).toBe(8_192);
    await manager.append('s', [user('And now?')]);
    // The caller still asks for 128k: the window the provider named stands for this model.
    expect((await manager.prepare('s', REQUEST)).stats.contextWindow).toBe(8_192);
    // Another model is not held to it, even asking for no window (the request remembered keeps none).
    expect((await manager.prepare('s', { model: 'gpt-4.1' })).stats.contextWindow).toBe(128_000);
  });

  it('the adopted window caps what the rule gives and is never stored as the request: a new process asks again', async () => {
    const store = createMemorySessionStore();
    const manager = createContextManager({ policy: DEFAULT_POLICY, store });
    await manager.append('s', history());
    await manager.prepare('s', { model: 'gpt-4o', maxOutputTokens: 4_000 });
    const named = new ModelCallError(
      "This model's maximum context length is 32000 tokens. However, your messages resulted in 40000 tokens.",
      {
        status: 400,
        providerCode: 'context_length_exceeded',
      },
    );
    const next = await manager.retryAfterOverflow('s', named, { model: 'gpt-4o', maxOutputTokens: 4_000 });
    expect(next.retry?.stats.contextWindow).toBe(32_000);
    const restarted = createContextManager({ policy: DEFAULT_POLICY, store });
    const fresh = await restarted.prepare('s', { model: 'gpt-4o', maxOutputTokens: 4_000 });
    expect(fresh.stats.contextWindow).toBe(128_000);
    // A smaller window set later is not raised to the adopted one.
    expect((await manager.prepare('s', { contextWindow: 16_000 })).stats.contextWindow).toBe(16_000);
  });

  it("a named window the caller's own reply reserve does not fit: the provider's error stands, then a clear refusal", async () => {
    const manager = createContextManager({ policy: DEFAULT_POLICY });
    await manager.append('s', history());
    const request = { model: 'gpt-4o', maxOutputTokens: 16_000 };
    await manager.prepare('s', request);
    const named = new ModelCallError("This model's maximum context length is 8192 tokens.", {
      status: 400,
      providerCode: 'context_length_exceeded',
    });
    const next = await manager.retryAfterOverflow('s', named, request);
    expect(next).toMatchObject({ overflow: true, retry: undefined, adoptedWindow: 8_192 });
    await expect(manager.prepare('s', request)).rejects.toThrow(
      /maxOutputTokens: must be smaller than the context window \(8192\)/,
    );
  });

  it('recovery and the retry are one hold of the session: an append queued meanwhile comes after the retry', async () => {
    const manager = createContextManager({ policy: DEFAULT_POLICY });
    await manager.append('s', history());
    await manager.prepare('s', REQUEST);
    const retrying = manager.retryAfterOverflow('s', overflow(), REQUEST);
    const appending = manager.append('s', [user('A late message.')]);
    const next = await retrying;
    await appending;
    expect(next.retry).toBeDefined();
    const texts = (next.retry?.messages ?? []).flatMap((message) =>
      message.parts.map((part) => (part.type === 'text' ? part.text : '')),
    );
    expect(texts).not.toContain('A late message.');
  });

  it('anything but an overflow is the caller’s to pass on, and changes nothing', async () => {
    const manager = createContextManager({ policy: DEFAULT_POLICY });
    await manager.append('s', history());
    await manager.prepare('s', REQUEST);
    const limited = new ModelCallError('Rate limit reached for gpt-4o on tokens per min (TPM)', {
      status: 429,
    });
    const next = await manager.retryAfterOverflow('s', limited, REQUEST);
    expect(next).toMatchObject({ overflow: false, retry: undefined, cleared: false, events: [] });
    expect((await manager.history('s')).edits).toEqual([]);
  });
});
