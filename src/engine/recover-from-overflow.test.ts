import { describe, expect, it } from 'vitest';
import { readOffloadedResultPart, readOffloadedTool } from '../agent/read-offloaded-tool.ts';
import { ContextBudgetError, ModelCallError } from '../core/errors/index.ts';
import type { ToolCallPart, ToolResultPart } from '../core/message.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

const LOG = Array.from(
  { length: 4000 },
  (_, i) =>
    `2024-01-01T00:00:${String(i % 60).padStart(2, '0')} INFO worker-${i % 7} processed job ${i} status=ok latency=${i % 97}ms`,
).join('\n');
const REQUEST = { system: 'sys', tools: [readOffloadedTool] };
const overflow = () =>
  new ModelCallError(
    "This model's maximum context length is 16000 tokens. However, your messages resulted in 20000 tokens.",
    { status: 400, providerCode: 'context_length_exceeded' },
  );

/** The probe's session: a 300 KB log spilled, its first part read back (~20,000 characters), a reply. */
async function readBackSession() {
  const manager = createContextManager({
    policy: { ...PRESETS.default, model: 'gpt-4o' },
    contextWindow: 16_000,
    maxOutputTokens: 2_000,
    clock: clock(),
  });
  await manager.append('s', [
    user('Why is the build slow?'),
    {
      role: 'assistant',
      parts: [{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{"cmd":"cat build.log"}' }],
    },
    {
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name: 'bash', content: LOG, isError: false }],
    },
  ]);
  const first = await manager.prepare('s', REQUEST);
  const ref = first.pointers[0]?.ref ?? '';
  const call: ToolCallPart = {
    type: 'tool-call',
    callId: 'c2',
    name: readOffloadedTool.name,
    args: JSON.stringify({ ref }),
  };
  const part = await readOffloadedResultPart(manager, 's', call);
  await manager.append('s', [
    { role: 'assistant', parts: [call] },
    { role: 'tool', parts: [part] },
    { role: 'assistant', parts: [{ type: 'text', text: 'done' }] },
  ]);
  const before = await manager.prepare('s', REQUEST);
  return { manager, ref, part, before };
}

const readBackShown = (messages: { parts: readonly { type: string }[] }[]) =>
  (messages[4]?.parts[0] as ToolResultPart | undefined)?.content ?? '';

describe('recover() on a session holding a read-back part', () => {
  it('a clipped read-back part says which characters it shows and reads on from the first one cut', async () => {
    const { manager, ref, part } = await readBackSession();
    expect((await manager.recover('s', overflow())).retry).toBe(true);
    const after = await manager.prepare('s', REQUEST);
    const shown = readBackShown(after.messages);
    expect(shown.length).toBeLessThan(part.content.length);
    const header =
      /^\[(.+?): characters (\d+)–(\d+) of (\d+), clipped to fit the context window\. Next: read_offloaded\((\{.*?\})\)\.\]\n/.exec(
        shown,
      );
    expect(header?.[1]).toBe(ref);
    const stop = Number(header?.[3]);
    expect(JSON.parse(header?.[5] ?? '{}')).toEqual({ ref, offset: stop, limit: 20_000 });
    // The text shown is exactly the blob's characters 0–stop, and the notice in place names the rest.
    const blob = await manager.readOffloaded('s', ref);
    const body = shown.slice(header?.[0].length ?? 0);
    expect(body.startsWith(blob.slice(0, stop))).toBe(true);
    expect(body.slice(stop)).toMatch(
      new RegExp(
        `^\\n\\[… characters ${stop}–20000 of ${ref} \\(${20_000 - stop}\\) clipped to fit the context window; read on with read_offloaded\\(`,
      ),
    );
    // The log keeps the whole part: the clip is an edit over it.
    const { log } = await manager.history('s');
    expect((log[4]?.parts[0] as ToolResultPart | undefined)?.content).toBe(part.content);
  });

  it('stats report the request as counted, not the estimate a reported overflow scaled', async () => {
    const { manager } = await readBackSession();
    await manager.recover('s', overflow());
    const after = await manager.prepare('s', REQUEST);
    expect(after.stats.guard?.method).toBe('exact');
    expect(after.stats.tokens.input).toBe(after.stats.guard?.tokens);
    expect(after.stats.pressure).toBeCloseTo(after.stats.tokens.input / 14_000, 10);
    expect(await manager.stats('s', REQUEST)).toMatchObject({
      tokens: after.stats.tokens,
      pressure: after.stats.pressure,
    });
  });

  it('says retry only when the retried request differs, and stops saying it', async () => {
    const { manager, before } = await readBackSession();
    let sent = before;
    let answers = 0;
    for (; answers < 5; answers++) {
      const { retry } = await manager.recover('s', overflow());
      if (!retry) break;
      const next = await manager.prepare('s', REQUEST);
      expect(next.stats.guard?.tokens).toBeLessThan(sent.stats.guard?.tokens ?? 0);
      sent = next;
    }
    // Retried once, then once more after compacting further; then the error stands.
    expect(answers).toBe(2);
  });

  it('an overflow nothing can answer is not retried', async () => {
    const manager = createContextManager({
      policy: { ...PRESETS.default, model: 'gpt-4o' },
      contextWindow: 16_000,
      maxOutputTokens: 2_000,
      clock: clock(),
    });
    await manager.append('s', [user('hi')]);
    await manager.prepare('s', {});
    const { retry, events } = await manager.recover(
      's',
      new ModelCallError('context_length_exceeded', { status: 400 }),
    );
    expect(retry).toBe(false);
    expect(events.find((event) => event.type === 'context-overflowed')).toMatchObject({ retry: false });
    expect((await manager.history('s')).edits).toEqual([]);
  });
});

describe('after overflows whose figures are far from our count', () => {
  it('the next message can still be sent: the scale never leaves a session where nothing fits', async () => {
    const manager = createContextManager({
      policy: { ...PRESETS.default, model: 'gpt-4o' },
      contextWindow: 8_000,
      maxOutputTokens: 2_000,
      clock: clock(),
    });
    await manager.append('s', [user('hi')]);
    await manager.prepare('s', REQUEST);
    // The provider counts 9,000 and then 8,500 tokens where ctxkit counts a handful (a proxy adding its
    // own framing, an image counted its way): the estimate is scaled by more than a thousand.
    const figures = (requested: number) =>
      new ModelCallError(
        `This model's maximum context length is 8000 tokens. However, your messages resulted in ${requested} tokens.`,
        { status: 400, providerCode: 'context_length_exceeded' },
      );
    await manager.recover('s', figures(9_000));
    // Nothing can be cut (one short message): the retry would be the request that overflowed, so none
    // is prepared.
    await expect(manager.prepare('s', REQUEST)).rejects.toSatisfy((error: unknown) =>
      ContextBudgetError.isInstance(error),
    );
    await manager.recover('s', figures(8_500));
    await manager.append('s', [user('x')]);
    const next = await manager.prepare('s', REQUEST);
    expect(next.messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'x' }]);
  });
});
