import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edit, HideEdit } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import { parseTurnBoundaries } from '../core/turns/parse-turn-boundaries.ts';
import { projectView } from '../core/view/project-view.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import {
  appendCompressionNote,
  compressionNote,
  type DropOldestTurnsPlan,
  planDropOldestTurns,
} from './halve-turns.ts';
import type { HistoryCut } from './history-cut.ts';
import type { LayerInput } from './layer-input.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { dropThrough, layerInputFor, messagesOf } from './testing/layer-input-for.ts';
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

/** A prefix plan read as the cut it is (what expectCleanCut checks). */
function asCut(input: LayerInput, plan: DropOldestTurnsPlan): HistoryCut {
  const view = messagesOf(input.view);
  const cutIndex = plan.dropped.length;
  const sum = (from: number, to: number) => input.entryTokens.slice(from, to).reduce((a, b) => a + b, 0);
  return {
    cutIndex,
    throughSeq: plan.throughSeq,
    older: plan.dropped,
    recent: view.slice(cutIndex),
    olderTokens: sum(0, cutIndex),
    recentTokens: sum(cutIndex, view.length),
  };
}

/** The view once the plan is recorded: a cut through throughSeq, and the hidden messages hidden. */
function viewAfter(log: readonly Message[], edits: readonly Edit[], plan: DropOldestTurnsPlan): Message[] {
  const hide: HideEdit = {
    id: 'hide',
    at: 0,
    layer: 'emergency',
    reason: 'context_overflow',
    type: 'hide',
    targets: plan.hidden,
    tokensBefore: 0,
    tokensAfter: 0,
  };
  return messagesOf(projectView(log, [...edits, dropThrough(plan.throughSeq), hide]));
}

describe('planDropOldestTurns (picoclaw forceCompression)', () => {
  it('"Drops the oldest ~50% of Turns. Stores a compression note in the session summary"', () => {
    const log = turns(6);
    const input = layerInputFor(log);
    const plan = planDropOldestTurns(input);
    expect(plan).toMatchObject({ turnsBefore: 6, throughSeq: 14, hidden: [] });
    expect(plan?.dropped).toEqual(log.slice(0, 15));
    expect(plan?.droppedTokens).toBe(input.entryTokens.slice(0, 15).reduce((a, b) => a + b, 0));
    // picoclaw's own words, counting messages.
    expect(plan?.note).toBe('[Emergency compression dropped 15 oldest messages due to context limit]');
    if (plan) expectCleanCut(log, [], asCut(input, plan));
  });

  it('drops at least one turn and never the last', () => {
    const removed = (log: Message[], fraction?: number) => {
      const plan = planDropOldestTurns(layerInputFor(log), fraction === undefined ? {} : { fraction });
      return plan && parseTurnBoundaries(plan.dropped).length;
    };
    expect(removed(turns(3))).toBe(1);
    expect(removed(turns(2))).toBe(1);
    expect(removed(turns(4), 1)).toBe(3);
    expect(removed(turns(10), 0.25)).toBe(2);
    expect(compressionNote(1)).toBe('[Emergency compression dropped 1 oldest messages due to context limit]');
  });

  it('a single turn from the start keeps only its user message: the tool chain goes whole', () => {
    const log = turns(1);
    const plan = planDropOldestTurns(layerInputFor(log));
    expect(plan).toMatchObject({ throughSeq: -1, hidden: [1, 2, 3, 4], turnsBefore: 1 });
    expect(plan?.dropped).toEqual(log.slice(1));
    expect(plan?.note).toBe('[Emergency compression dropped 4 oldest messages due to context limit]');
    if (!plan) return;
    const after = viewAfter(log, [], plan);
    expect(after).toEqual([log[0]]);
    expect(findPairingViolations(after)).toEqual([]);
  });

  it('a single turn after a previous cut keeps only its user message too', () => {
    const log = turns(3);
    const edits = [dropThrough(9)];
    const plan = planDropOldestTurns(layerInputFor(log, edits));
    expect(plan).toMatchObject({ throughSeq: 9, hidden: [11, 12, 13, 14] });
    if (plan) expect(viewAfter(log, edits, plan)).toEqual([log[10]]);
  });

  it('one turn after messages that start none: those go, the turn stays whole', () => {
    const log = numbered([
      assistant('resumed mid-turn'),
      callsTo(['c0', 'read']),
      result('c0', 'out'),
      user('next request'),
      callsTo(['c1', 'read']),
      result('c1', 'out'),
      assistant('done'),
    ]);
    const input = layerInputFor(log);
    const plan = planDropOldestTurns(input);
    expect(plan).toMatchObject({ throughSeq: 2, hidden: [], turnsBefore: 1 });
    if (plan) expectCleanCut(log, [], asCut(input, plan));
  });

  it('no user message at all: the middle, snapped so no call loses its result', () => {
    const log = numbered([
      assistant('a'),
      callsTo(['c0', 'read']),
      result('c0', 'out'),
      assistant('b'),
      callsTo(['c1', 'read']),
      result('c1', 'out'),
    ]);
    const input = layerInputFor(log);
    const plan = planDropOldestTurns(input);
    expect(plan).toMatchObject({ throughSeq: 2, hidden: [], turnsBefore: 0 });
    expect(plan?.note).toBe(compressionNote(3));
    if (plan) expectCleanCut(log, [], asCut(input, plan));
  });

  it('a history of two messages or fewer is left alone', () => {
    expect(planDropOldestTurns(layerInputFor(numbered([user('hi'), assistant('hello')])))).toBeUndefined();
    expect(planDropOldestTurns(layerInputFor(numbered([user('hi')])))).toBeUndefined();
    expect(planDropOldestTurns(layerInputFor([]))).toBeUndefined();
  });

  it('appends the note to an existing summary after a blank line, as picoclaw does', () => {
    const note = compressionNote(7);
    expect(appendCompressionNote(undefined, note)).toBe(note);
    expect(appendCompressionNote('', note)).toBe(note);
    expect(appendCompressionNote('The user wants a refund.', note)).toBe(
      `The user wants a refund.\n\n${note}`,
    );
  });

  it('property: whole turns, about the fraction asked, with a clean cut; a lone turn keeps its user message', () => {
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        ({ log, edits }, fraction) => {
          const input = layerInputFor(log, edits);
          const view = messagesOf(input.view);
          const count = parseTurnBoundaries(view).length;
          const plan = planDropOldestTurns(input, { fraction });
          if (view.length <= 2) {
            expect(plan).toBeUndefined();
            return;
          }
          if (count >= 2) {
            expect(plan).toBeDefined();
            if (!plan) return;
            expect(plan.hidden).toEqual([]);
            expect(parseTurnBoundaries(plan.dropped).length).toBe(
              Math.min(count - 1, Math.max(1, Math.floor(count * fraction))),
            );
            expectCleanCut(log, edits, asCut(input, plan));
            return;
          }
          if (!plan) return;
          expect(plan.note).toBe(compressionNote(plan.dropped.length));
          const after = viewAfter(log, edits, plan);
          expect(findPairingViolations(after)).toEqual([]);
          expect(after.length).toBeGreaterThan(0);
          expect(after.length).toBeLessThan(view.length);
          if (count === 1 && plan.hidden.length > 0) {
            expect(after).toHaveLength(1);
            expect(after[0]?.role).toBe('user');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('halves a real tau-bench dialogue', () => {
    const log = readCorpusSession(CORPUS.tauBench);
    const input = layerInputFor(log);
    const plan = planDropOldestTurns(input);
    expect(plan?.turnsBefore).toBe(8);
    expect(plan && parseTurnBoundaries(plan.dropped).length).toBe(4);
    if (plan) expectCleanCut(log, [], asCut(input, plan));
  });
});
