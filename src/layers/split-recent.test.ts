import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edit } from '../core/edit.ts';
import { findSafeBoundary } from '../core/turns/find-safe-boundary.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { archiveEdit, extractiveToolDigest, planArchiveResults } from './archive-results.ts';
import { suffixTokens } from './history-cut.ts';
import { cutPoints, snapCut } from './safe-cut.ts';
import { DEFAULT_KEEP_RECENT_TOKENS, planRecentSplit } from './split-recent.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { dropThrough, layerInputFor, messagesOf } from './testing/layer-input-for.ts';
import { sessionArbitrary } from './testing/random-session.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot' };

/** Four turns: a long request, a parallel read, a long request, a command run last. */
const log = numbered([
  user(`u0 ${'a'.repeat(400)}`), // 0
  assistant('r0'), // 1
  user('u1'), // 2
  callsTo(['a', 'read_file', '{"path":"a.ts"}'], ['b', 'read_file', '{"path":"b.ts"}']), // 3
  result('a', 'x'.repeat(600)), // 4
  result('b', 'y'.repeat(600), { media: [{ ...image, tokens: 1 }] }), // 5
  assistant('r1'), // 6
  user(`u2 ${'c'.repeat(200)}`), // 7
  user('u3'), // 8
  callsTo(['c', 'bash', '{"command":"make"}']), // 9
  result('c', 'z'.repeat(800)), // 10
]);

/** One turn: a request, then eight tool exchanges of about 800 characters each, and `after`. */
const singleTurn = (...after: Parameters<typeof numbered>[0]) =>
  numbered([
    user('go'),
    ...Array.from({ length: 8 }, (_, n) => [
      callsTo([`c${n}`, 'bash']),
      result(`c${n}`, 'o'.repeat(800)),
    ]).flat(),
    ...after,
  ]);

describe('planRecentSplit', () => {
  it('"Prefer token-budget split when KeepRecentTokens > 0": keeps the newest turns within the tokens', () => {
    const input = layerInputFor(log);
    const split = planRecentSplit(input, { keepRecentTokens: 277, keepRecentMessages: 1 });
    expect(split?.cutIndex).toBe(7);
    expect(split?.throughSeq).toBe(6);
    expect(split?.recentTokens).toBeLessThanOrEqual(277);
    expect((split?.olderTokens ?? 0) + (split?.recentTokens ?? 0)).toBe(input.regions.history);
    if (split) expectCleanCut(log, [], split);
  });

  it('snaps back to the start of the turn the budget ends in (findSafeBoundary): that turn is kept whole', () => {
    // 280 tokens fit from index 6, inside turn 1's tool chain: all of turn 1 stays.
    const split = planRecentSplit(layerInputFor(log), { keepRecentTokens: 290 });
    expect(split?.cutIndex).toBe(2);
    expect(split?.recentTokens).toBeGreaterThan(290);
    if (split) expectCleanCut(log, [], split);
  });

  it('"Otherwise split by KeepRecent message count", snapped back to a turn boundary', () => {
    // The last 5 messages start inside turn 1's tool chain (index 6): the cut snaps back to turn 2.
    const split = planRecentSplit(layerInputFor(log), { keepRecentMessages: 5 });
    expect(split?.cutIndex).toBe(2);
    expect(split?.recent).toHaveLength(9);
    if (split) expectCleanCut(log, [], split);
  });

  it('counts turns (cowagent and picoclaw)', () => {
    const split = planRecentSplit(layerInputFor(log), { keepRecentTurns: 2 });
    expect(split?.cutIndex).toBe(7);
    expect(planRecentSplit(layerInputFor(log), { keepRecentTurns: 4 })).toBeUndefined();
  });

  it('uses 20k tokens when no rule is given, and nothing is cut when everything fits', () => {
    expect(DEFAULT_KEEP_RECENT_TOKENS).toBe(20_000);
    expect(planRecentSplit(layerInputFor(log))).toBeUndefined();
    expect(planRecentSplit(layerInputFor(log), { keepRecentMessages: 11 })).toBeUndefined();
  });

  it('never cuts a single turn, however long, and always keeps the current turn', () => {
    const single = singleTurn();
    expect(planRecentSplit(layerInputFor(single), { keepRecentTokens: 10 })).toBeUndefined();
    const keepNothing = planRecentSplit(layerInputFor(log), { keepRecentTokens: 1 });
    expect(keepNothing?.cutIndex).toBe(8);
  });

  it('with cutAt "turn-or-message", cuts a turn that has no boundary in reach between its messages', () => {
    const single = singleTurn();
    const input = layerInputFor(single);
    const inside = planRecentSplit(input, { keepRecentTokens: 700, cutAt: 'turn-or-message' });
    // At a call, as far back as the budget reaches: one more exchange would be over it.
    const cutIndex = inside?.cutIndex ?? 0;
    expect(cutIndex).toBeGreaterThan(1);
    expect(single[cutIndex]?.role).toBe('assistant');
    expect(inside?.recentTokens).toBeLessThanOrEqual(700);
    expect(suffixTokens(input.entryTokens)[cutIndex - 2]).toBeGreaterThan(700);
    if (inside) expectCleanCut(single, [], inside);
    // The newest exchange stays whatever the rule says (its result is what the agent works from). Past the
    // rule, a cut is made inside the turn only when what goes is at least as large as what stays.
    const answered = numbered([...single, assistant('all read')]);
    const newestCall = answered.length - 3;
    const before = planRecentSplit(layerInputFor(answered), {
      keepRecentTokens: 700,
      cutAt: 'turn-or-message',
    });
    expect(before?.cutIndex).toBeLessThanOrEqual(newestCall);
    expect(before?.cutIndex).toBeGreaterThan(1);
    const overRule = planRecentSplit(layerInputFor(answered), {
      keepRecentTokens: 10,
      cutAt: 'turn-or-message',
    });
    expect(overRule?.cutIndex).toBe(newestCall);
    expect(overRule?.recentTokens).toBeGreaterThan(10);
    expect(overRule?.olderTokens).toBeGreaterThanOrEqual(overRule?.recentTokens ?? Number.POSITIVE_INFINITY);
    const bigNewest = numbered([
      user('go'),
      callsTo(['c0', 'bash']),
      result('c0', 'o'.repeat(400)),
      callsTo(['c1', 'bash']),
      result('c1', 'o'.repeat(4_000)),
    ]);
    expect(
      planRecentSplit(layerInputFor(bigNewest), { keepRecentTokens: 10, cutAt: 'turn-or-message' }),
    ).toBe(undefined);
    // Where a turn boundary can be cut at, it is the one taken, as in turn mode.
    for (const keepRecentTokens of [1, 277, 290, 600]) {
      const either = planRecentSplit(layerInputFor(log), { keepRecentTokens, cutAt: 'turn-or-message' });
      expect(either?.cutIndex).toBe(planRecentSplit(layerInputFor(log), { keepRecentTokens })?.cutIndex);
    }
  });

  it('inside a turn, snaps back over a call left unanswered as the rule is, though the newest exchange fits', () => {
    // The unanswered call gets a stand-in result in the view, where no cut can start.
    const turn = numbered([
      user('go'),
      callsTo(['c0', 'read_file']),
      result('c0', 'o'.repeat(4_000)),
      callsTo(['c1', 'bash']),
      callsTo(['c2', 'grep'], ['c3', 'read_file']),
      result('c2', 'two'),
      result('c3', 'three'),
    ]);
    const input = layerInputFor(turn);
    const messages = messagesOf(input.view);
    const standIn = input.entries.findIndex((entry) => entry.sourceSeq === undefined);
    expect(messages[standIn - 1]?.parts[0]).toMatchObject({ type: 'tool-call', callId: 'c1' });
    const suffix = suffixTokens(input.entryTokens);
    const keepRecentTokens = suffix[standIn] ?? 0;
    const split = planRecentSplit(input, { keepRecentTokens, cutAt: 'turn-or-message' });
    // The budget runs out at the stand-in: the cut is the call before it, as a turn's cut snaps back.
    expect(split?.cutIndex).toBe(standIn - 1);
    expect(split?.recentTokens).toBeGreaterThan(keepRecentTokens);
    expect(suffix[standIn + 1]).toBeLessThanOrEqual(keepRecentTokens);
    if (split) expectCleanCut(turn, [], split);
  });

  it('cuts inside a long turn between complete tool exchanges with cutAt "message" (tiancai, digitorn)', () => {
    const single = singleTurn(callsTo(['p', 'bash'], ['q', 'bash']), result('q', 'q'), result('p', 'p'));
    const split = planRecentSplit(layerInputFor(single), { keepRecentMessages: 2, cutAt: 'message' });
    // Two messages would start at result p: snapped back to the call that both results answer.
    expect(split?.cutIndex).toBe(17);
    if (split) expectCleanCut(single, [], split);
  });

  it('handles synthetic entries: a digest is never the first kept message, stand-ins are not in the log', () => {
    const busy = numbered([
      user('go'),
      ...Array.from({ length: 4 }, (_, n) => [
        callsTo([`c${n}`, 'bash']),
        result(`c${n}`, 'o'.repeat(80)),
      ]).flat(),
      assistant('done'),
      user('next'),
      callsTo(['open', 'bash']), // never answered: a stand-in closes it in the view
    ]);
    const input = layerInputFor(busy);
    const plan = planArchiveResults(input, { toolCallCutoff: 1 });
    const edits: Edit[] = plan
      ? [archiveEdit(plan, extractiveToolDigest(plan.results, plan.calls), input)]
      : [];
    const view = layerInputFor(busy, edits);
    expect(view.entries.some((entry) => entry.sourceSeq === undefined && entry.message.role === 'user')).toBe(
      true,
    );
    for (const keepRecentMessages of [1, 2, 3, 4, 5]) {
      const split = planRecentSplit(view, { keepRecentMessages, cutAt: 'message' });
      if (!split) continue;
      expect(view.entries[split.cutIndex]?.sourceSeq).toBeDefined();
      expectCleanCut(busy, edits, split);
    }
  });

  it('takes throughSeq from the log, after an earlier cut', () => {
    const earlier = [dropThrough(1)];
    const input = layerInputFor(log, earlier);
    const split = planRecentSplit(input, { keepRecentTurns: 1 });
    expect(split?.older[0]?.seq).toBe(2);
    expect(split?.throughSeq).toBe(7);
    if (split) expectCleanCut(log, earlier, split);
  });

  it('property: every split is clean, whatever the session and the rule', () => {
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.oneof(
          fc.record({ keepRecentTokens: fc.integer({ min: 1, max: 5_000 }) }),
          fc.record({ keepRecentMessages: fc.integer({ min: 1, max: 30 }) }),
          fc.record({ keepRecentTurns: fc.integer({ min: 1, max: 6 }) }),
        ),
        fc.constantFrom('turn' as const, 'message' as const, 'turn-or-message' as const),
        ({ log: session, edits }, rule, cutAt) => {
          const input = layerInputFor(session, edits);
          const split = planRecentSplit(input, { ...rule, cutAt });
          if (!split) return;
          expectCleanCut(session, edits, split);
          if ('keepRecentTokens' in rule) {
            const messages = messagesOf(input.view);
            const suffix = suffixTokens(input.entryTokens);
            const insideTurn =
              cutAt === 'turn-or-message' &&
              planRecentSplit(input, { ...rule, cutAt: 'turn' })?.cutIndex !== split.cutIndex;
            let newestCall = -1;
            messages.forEach((message, index) => {
              if (message.role === 'assistant' && message.parts.some((part) => part.type === 'tool-call'))
                newestCall = index;
            });
            if (insideTurn && newestCall >= 0 && (suffix[newestCall] ?? 0) > rule.keepRecentTokens) {
              // The newest tool exchange alone is past the rule: a cut inside the turn keeps no more than
              // it, and only where what goes is at least as large as what stays.
              expect(split.olderTokens).toBeGreaterThanOrEqual(split.recentTokens);
              for (const point of cutPoints(messages, 'message'))
                if (point > split.cutIndex) expect(point).toBeGreaterThan(newestCall);
              return;
            }
            // Every later cut point would keep no more than the budget: the cut is the last one at or
            // before where the budget runs out (or the first after it, when none is before).
            for (const point of cutPoints(messages, cutAt)) {
              if (point > split.cutIndex) expect(suffix[point]).toBeLessThanOrEqual(rule.keepRecentTokens);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('property: in turn mode the snap is findSafeBoundary’s', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.nat(), ({ log: session }, raw) => {
        const target = raw % (session.length + 1);
        const expected = findSafeBoundary(session, Math.min(target, session.length - 1));
        expect(snapCut(session, target, 'turn')).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('property: "turn-or-message" snaps as turn mode does, and as message mode only where turn mode cannot', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.nat(), ({ log: session }, raw) => {
        const target = raw % (session.length + 1);
        const atTurn = snapCut(session, target, 'turn');
        const either = snapCut(session, target, 'turn-or-message');
        expect(either).toBe(atTurn > 0 ? atTurn : snapCut(session, target, 'message'));
      }),
      { numRuns: 300 },
    );
  });

  it('splits a real pi session at 20k tokens on a turn boundary', () => {
    const session = readCorpusSession(CORPUS.piMono);
    const input = layerInputFor(session);
    const split = planRecentSplit(input, { keepRecentTokens: 20_000 });
    expect(split).toBeDefined();
    if (!split) return;
    expect(split.recent[0]?.role).toBe('user');
    expectCleanCut(session, [], split);
  });
});
