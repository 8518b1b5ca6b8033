import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { parseTurnBoundaries } from '../core/turns/parse-turn-boundaries.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { compressionNote, planDropOldestTurns } from './halve-turns.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { layerInputFor, messagesOf } from './testing/layer-input-for.ts';
import { sessionArbitrary } from './testing/random-session.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

function turns(count: number): Message[] {
  return numbered(
    Array.from({ length: count }, (_, t) => [
      user(`request ${t}`),
      callsTo([`a${t}`, 'bash'], [`b${t}`, 'bash']),
      result(`b${t}`, 'b'),
      result(`a${t}`, 'a'),
      assistant(`reply ${t}`),
    ]).flat(),
  );
}

describe('planDropOldestTurns (seed 004 forceCompression)', () => {
  it('"Drops the oldest ~50% of Turns. Stores a compression note in the session summary"', () => {
    const log = turns(6);
    const plan = planDropOldestTurns(layerInputFor(log));
    expect(plan).toMatchObject({
      turnsBefore: 6,
      turnsRemoved: 3,
      turnsAfter: 3,
      cutIndex: 15,
      throughSeq: 14,
    });
    expect(plan?.dropped).toEqual(log.slice(0, 15));
    expect(plan?.note).toBe(
      '[Context compressed: 3 earlier turns dropped (15 messages) to fit the context window]',
    );
    if (plan) expectCleanCut(log, [], plan);
  });

  it('drops at least one turn and never the last; a single turn cannot be halved', () => {
    expect(planDropOldestTurns(layerInputFor(turns(3)))?.turnsRemoved).toBe(1);
    expect(planDropOldestTurns(layerInputFor(turns(2)))?.turnsRemoved).toBe(1);
    expect(planDropOldestTurns(layerInputFor(turns(1)))).toBeUndefined();
    expect(planDropOldestTurns(layerInputFor(turns(4)), { fraction: 1 })?.turnsRemoved).toBe(3);
    expect(planDropOldestTurns(layerInputFor(turns(10)), { fraction: 0.25 })?.turnsRemoved).toBe(2);
    expect(compressionNote(1, 1)).toBe(
      '[Context compressed: 1 earlier turn dropped (1 message) to fit the context window]',
    );
  });

  it('property: drops whole turns, about the fraction asked, with a clean cut', () => {
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        ({ log, edits }, fraction) => {
          const input = layerInputFor(log, edits);
          const count = parseTurnBoundaries(messagesOf(input.view)).length;
          const plan = planDropOldestTurns(input, { fraction });
          if (count < 2) {
            expect(plan).toBeUndefined();
            return;
          }
          expect(plan).toBeDefined();
          if (!plan) return;
          expect(plan.turnsRemoved).toBe(Math.min(count - 1, Math.max(1, Math.floor(count * fraction))));
          expect(plan.note).toContain(`${plan.turnsRemoved} earlier turn`);
          expectCleanCut(log, edits, plan);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('halves a real tau-bench dialogue', () => {
    const log = readCorpusSession(CORPUS.tauBench);
    const plan = planDropOldestTurns(layerInputFor(log));
    expect(plan?.turnsBefore).toBe(8);
    expect(plan?.turnsRemoved).toBe(4);
    if (plan) expectCleanCut(log, [], plan);
  });
});
