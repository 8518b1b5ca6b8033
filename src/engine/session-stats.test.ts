import { describe, expect, it } from 'vitest';
import { ContextBudgetError, ModelCallError } from '../core/errors/index.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { createMemoryMemorySink } from '../store/memory-memory-sink.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { loadCorpusSession } from '../testing/corpus.ts';
import { replaySession } from '../testing/replay-session.ts';
import { createContextManager, type PrepareResult } from './context-manager.ts';
import type { TokenCategories } from './session-stats.ts';

const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

describe('/context stats', () => {
  it('count what the next request costs, as prepare does: the continuation note after a clear', async () => {
    const ctx = createContextManager({
      policy: PRESETS.default,
      counter: createHeuristicCounter(4),
      clock: clock(),
    });
    const request = { contextWindow: 8_000, maxOutputTokens: 500, system: 'You are terse.' };
    await ctx.append('s', [user('hi')]);
    await ctx.prepare('s', request);
    await ctx.clear('s');
    // The history now starts with the assistant: the request opens with a continuation note.
    await ctx.append('s', [assistant('as I was saying')]);
    const prepared = await ctx.prepare('s', request);
    expect(prepared.messages[0]?.id).toMatch(/^continuation-/);
    expect((await ctx.stats('s')).tokens).toEqual(prepared.stats.tokens);
  });

  it('and, after a reported overflow, the request as counted: the scale it puts on the estimate drives the layers, not the figures', async () => {
    const ctx = createContextManager({
      policy: PRESETS.digitorn,
      counter: createHeuristicCounter(4),
      clock: clock(),
    });
    const request = { contextWindow: 8_000, maxOutputTokens: 2_400, system: 's'.repeat(6_400) };
    await ctx.append('s', [user('run it'), callsTo(['c1', 'bash', '{}']), result('c1', 'ok')]);
    const first = await ctx.prepare('s', request);
    const overflow = new ModelCallError(
      `This model's maximum context length is 8000 tokens. However, you requested ${first.stats.tokens.input + 2_500} tokens (${first.stats.tokens.input + 100} in the messages, 2400 in the completion).`,
      { status: 400, providerCode: 'context_length_exceeded' },
    );
    await ctx.recover('s', overflow);
    // Nothing can be cut (the history is one small turn): no retry is prepared (it would be the request
    // that overflowed), and the figures stay those of the request as counted.
    await expect(ctx.prepare('s', request)).rejects.toSatisfy((error: unknown) =>
      ContextBudgetError.isInstance(error),
    );
    const stats = await ctx.stats('s');
    expect(stats.tokens).toEqual(first.stats.tokens);
    expect(stats.pressure).toBeCloseTo(stats.tokens.input / 5_600, 10);
  });
});

describe('tokens by category', () => {
  const TAU = loadCorpusSession('tau-bench__gpt-4o-airline_task33_trial0.jsonl');
  const tools = [{ name: 'get_reservation_details', description: 'Get the details of a reservation.' }];
  const request = { system: 'airline agent', tools, contextWindow: 6_000, maxOutputTokens: 500 };
  const sum = (tokens: TokenCategories) =>
    tokens.system + tokens.tools + tokens.summary + tokens.memory + tokens.history;

  it('add up to input on every call, for every preset, memory 0 when no memory or snapshot note is sent', async () => {
    for (const [name, preset] of Object.entries(PRESETS)) {
      const ctx = createContextManager({ policy: { ...preset, model: 'gpt-4o' }, clock: clock() });
      const steps = await replaySession(ctx, 's', TAU.messages, request);
      for (const { result } of steps) {
        expect(sum(result.stats.tokens), name).toBe(result.stats.tokens.input);
        expect(result.stats.tokens.memory, name).toBe(0);
      }
      const stats = await ctx.stats('s');
      expect(sum(stats.tokens), name).toBe(stats.tokens.input);
    }
  });

  it('memory: the resume note a snapshot restore puts in the request, taken out of summary (digitorn)', async () => {
    const counter = createHeuristicCounter(4);
    const stores = { store: createMemorySessionStore(), memory: createMemoryMemorySink() };
    const policy = { ...PRESETS.digitorn, model: 'gpt-4o' };
    const first = createContextManager({ policy, counter, clock: clock(), ...stores });
    await replaySession(first, 's', TAU.messages.slice(0, -1), request);
    const before = await first.prepare('s', request);
    expect(before.stats.tokens.memory).toBe(0);

    const resumed = createContextManager({ policy, counter, clock: clock(), ...stores });
    const after = await resumed.prepare('s', request);
    const note = after.messages.find((message) => message.id.startsWith('reminder-'));
    const text = note?.parts[0]?.type === 'text' ? note.parts[0].text : '';
    expect(text).toMatch(/^\[Session resumed\]/);
    // The note as the summary region counts a note of its own: its text and a message's framing.
    expect(after.stats.tokens.memory).toBe(counter.count(text) + 4);
    expect(sum(after.stats.tokens)).toBe(after.stats.tokens.input);
    // The summary itself is what it was before the restart; the note is not in it.
    expect(after.stats.tokens.summary).toBe(before.stats.tokens.summary - reminderTokens(before, counter));
    expect((await resumed.stats('s')).tokens).toEqual(after.stats.tokens);
  });
});

/** What the context reminder of a drop (not a memory note) takes in a request, 0 when it has none. */
function reminderTokens(prepared: PrepareResult, counter: TokenCounter): number {
  const reminder = prepared.messages.find((message) => message.id.startsWith('reminder-'));
  const part = reminder?.parts[0];
  return part?.type === 'text' ? counter.count(part.text) + 4 : 0;
}
