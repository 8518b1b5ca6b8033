import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { planFitToBudget } from './fit-to-budget.ts';
import { suffixTokens } from './history-cut.ts';
import { cutPoints } from './safe-cut.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { layerInputFor, messagesOf } from './testing/layer-input-for.ts';
import { sessionArbitrary } from './testing/random-session.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

/** Turns whose results weigh `sizes[t]` characters each. */
function turns(sizes: number[]): Message[] {
  return numbered(
    sizes.flatMap((size, t) => [
      user(`request ${t}`),
      callsTo([`c${t}`, 'bash', '{"command":"run"}']),
      result(`c${t}`, 'o'.repeat(size)),
      assistant(`reply ${t}`),
    ]),
  );
}

describe('planFitToBudget (default preset overflow recovery)', () => {
  const log = turns([4_000, 4_000, 2_000, 1_000]);
  const input = layerInputFor(log);
  const turnTokens = [0, 4, 8, 12].map((start) =>
    input.entryTokens.slice(start, start + 4).reduce((a, b) => a + b, 0),
  );

  it('keeps the newest whole turns that fit the budget and drops the rest', () => {
    const budget = (turnTokens[2] ?? 0) + (turnTokens[3] ?? 0) + 10;
    const plan = planFitToBudget(input, { budget });
    expect(plan).toMatchObject({ cutIndex: 8, throughSeq: 7, lastTurnTooBig: false });
    expect(plan?.recentTokens).toBeLessThanOrEqual(budget);
    expect(plan?.dropped).toEqual(log.slice(0, 8));
    if (plan) expectCleanCut(log, [], plan);
  });

  it('returns undefined when the history already fits', () => {
    expect(planFitToBudget(input, { budget: input.regions.history })).toBeUndefined();
  });

  it('says so when even the last turn alone does not fit, cutting before it', () => {
    const plan = planFitToBudget(input, { budget: (turnTokens[3] ?? 0) - 1 });
    expect(plan).toMatchObject({ cutIndex: 12, lastTurnTooBig: true });
    if (plan) expectCleanCut(log, [], plan);
  });

  it('cannot drop anything from a single oversized turn, unless cuts may fall between messages', () => {
    const single = numbered([
      user('go'),
      ...[0, 1, 2, 3].flatMap((n) => [callsTo([`c${n}`, 'bash']), result(`c${n}`, 'o'.repeat(2_000))]),
      assistant('done'),
    ]);
    const singleInput = layerInputFor(single);
    expect(planFitToBudget(singleInput, { budget: 600 })).toBeUndefined();
    const plan = planFitToBudget(singleInput, { budget: 600, cutAt: 'message' });
    expect(plan?.cutIndex).toBe(7);
    expect(plan?.lastTurnTooBig).toBe(false);
    if (plan) expectCleanCut(single, [], plan);
  });

  it('property: the kept turns fit unless flagged, and one more turn would not', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.integer({ min: 0, max: 8_000 }), ({ log: session, edits }, budget) => {
        const random = layerInputFor(session, edits);
        const plan = planFitToBudget(random, { budget });
        const suffix = suffixTokens(random.entryTokens);
        const points = cutPoints(messagesOf(random.view));
        if (!plan) {
          expect((suffix[0] ?? 0) <= budget || points.length === 0).toBe(true);
          return;
        }
        expectCleanCut(session, edits, plan);
        if (plan.lastTurnTooBig) {
          expect(plan.cutIndex).toBe(points.at(-1));
          expect(plan.recentTokens).toBeGreaterThan(budget);
        } else {
          expect(plan.recentTokens).toBeLessThanOrEqual(budget);
          const earlier = points.filter((point) => point < plan.cutIndex).at(-1);
          if (earlier !== undefined) expect(suffix[earlier]).toBeGreaterThan(budget);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('fits a real pi session into 50k tokens', () => {
    const session = readCorpusSession(CORPUS.piMono);
    const plan = planFitToBudget(layerInputFor(session), { budget: 50_000 });
    expect(plan?.lastTurnTooBig).toBe(false);
    expect(plan?.recentTokens).toBeLessThanOrEqual(50_000);
    if (plan) expectCleanCut(session, [], plan);
  });
});
