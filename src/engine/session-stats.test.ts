import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { ModelCallError } from '../providers/model-client.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

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
    const prepared = await ctx.prepare('s', request);
    // Nothing was cut (the history is one small turn), so nothing more is sent: the figures stay.
    expect(prepared.stats.tokens).toEqual(first.stats.tokens);
    expect(prepared.stats.pressure).toBeCloseTo(prepared.stats.tokens.input / 5_600, 10);
    expect((await ctx.stats('s')).tokens).toEqual(prepared.stats.tokens);
  });
});
