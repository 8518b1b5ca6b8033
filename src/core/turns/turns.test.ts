import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistant, callsTo, numbered, result, user } from '../../testing/build-messages.ts';
import type { Message } from '../message.ts';
import { findSafeBoundary, safeBoundaries } from './find-safe-boundary.ts';
import { pairToolCalls } from './pair-tool-calls.ts';
import { parseTurnBoundaries, splitTurns } from './parse-turn-boundaries.ts';

const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot-1' };

describe('parseTurnBoundaries', () => {
  it('starts a turn at every user message, with no system message in history', () => {
    const history = numbered([
      user('fix the bug'),
      callsTo(['c1', 'read']),
      result('c1', 'file'),
      assistant('done'),
      user('thanks'),
      assistant('welcome'),
    ]);
    expect(parseTurnBoundaries(history)).toEqual([0, 4]);
  });

  it('finds one turn in a single-turn session', () => {
    expect(parseTurnBoundaries(numbered([user('hi'), assistant('hello')]))).toEqual([0]);
  });

  it('does not start turns at synthetic user messages (digests, reminders)', () => {
    const history = numbered([
      user('go'),
      callsTo(['c1', 'ls']),
      result('c1', 'a b'),
      user('[Compaction tool digest] ls listed a b', { kind: 'tool_summary', userVisible: false }),
      assistant('ok'),
    ]);
    expect(parseTurnBoundaries(history)).toEqual([0]);
  });

  it('splits history into turns covering every message, a leading non-user prefix included', () => {
    const history = numbered([assistant('resumed'), user('a'), assistant('b'), user('c')]);
    expect(splitTurns(history)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 3 },
      { start: 3, end: 4 },
    ]);
  });
});

describe('pairToolCalls', () => {
  it('pairs parallel calls with their results and reports unanswered calls', () => {
    const history = numbered([
      user('go'),
      callsTo(['a', 'read'], ['b', 'grep'], ['c', 'ls']),
      result('b', 'grep out'),
      result('a', 'read out'),
      user('stop'),
    ]);
    const pairing = pairToolCalls(history);
    expect(pairing.callIndexOfResult).toEqual(
      new Map([
        [2, 1],
        [3, 1],
      ]),
    );
    expect(pairing.unansweredCalls).toEqual([{ messageIndex: 1, partIndex: 2, callId: 'c' }]);
    expect(pairing.orphanResults).toEqual([]);
  });

  it('pairs a reused call id with the nearest unanswered call, and flags a result with no call', () => {
    const history = numbered([
      user('go'),
      callsTo(['x', 'bash']),
      result('x', 'one'),
      callsTo(['x', 'bash']),
      result('x', 'two'),
      result('ghost', 'no call'),
    ]);
    const pairing = pairToolCalls(history);
    expect(pairing.callIndexOfResult.get(2)).toBe(1);
    expect(pairing.callIndexOfResult.get(4)).toBe(3);
    expect(pairing.orphanResults).toEqual([5]);
  });
});

describe('findSafeBoundary (picoclaw)', () => {
  const history = numbered([
    user('u0'), // 0
    callsTo(['a', 'read']), // 1
    result('a', 'ra'), // 2
    assistant('a0'), // 3
    user('u1'), // 4
    callsTo(['b', 'read'], ['c', 'read']), // 5: parallel
    result('b', 'rb'), // 6
    result('c', 'rc', { media: [image] }), // 7: result carrying media
    callsTo(['d', 'bash']), // 8: chained
    result('d', 'rd'), // 9
    user('u2'), // 10
    callsTo(['e', 'bash']), // 11: left unanswered at the end
  ]);

  it('snaps back to the last turn boundary at or before the target', () => {
    expect(findSafeBoundary(history, 7)).toBe(4);
    expect(findSafeBoundary(history, 4)).toBe(4);
    expect(findSafeBoundary(history, 11)).toBe(10);
  });

  it('falls forward to the first boundary after the target when none lies before it', () => {
    expect(findSafeBoundary(history, 2)).toBe(4);
  });

  it('returns 0 when the whole history is one turn, and clamps the ends', () => {
    const single = numbered([user('u'), callsTo(['a', 'x']), result('a', 'r'), assistant('done')]);
    expect(findSafeBoundary(single, 2)).toBe(0);
    expect(findSafeBoundary(history, 0)).toBe(0);
    expect(findSafeBoundary(history, -3)).toBe(0);
    expect(findSafeBoundary(history, 99)).toBe(history.length);
    expect(findSafeBoundary([], 5)).toBe(0);
  });

  it('returns the target unchanged when the history has no user message, as picoclaw does', () => {
    const noUser = numbered([
      assistant('resumed'),
      callsTo(['a', 'read']),
      result('a', 'ra'),
      assistant('a1'),
      user('[summary]', { kind: 'summary' }), // synthesized: starts no turn
      assistant('a2'),
    ]);
    expect(findSafeBoundary(noUser, 2)).toBe(2);
    expect(findSafeBoundary(noUser, 3)).toBe(3);
    expect(findSafeBoundary(noUser, 0)).toBe(0);
    expect(findSafeBoundary(noUser, 6)).toBe(noUser.length);
    // A user message anywhere, even only at the start, is a boundary: 0 then means "cannot cut".
    const oneTurn = numbered([user('u'), ...noUser.slice(0, 4)]);
    expect(findSafeBoundary(oneTurn, 2)).toBe(0);
  });

  it('skips a user message that a tool result arrives after (a call straddling it)', () => {
    const interleaved = numbered([
      user('u0'),
      callsTo(['a', 'slow']),
      user('still there?'), // 2: boundary, but call a's result comes later
      result('a', 'late'),
      assistant('ok'),
      user('u1'), // 5
    ]);
    expect(safeBoundaries(interleaved)).toEqual([0, 5]);
    expect(findSafeBoundary(interleaved, 3)).toBe(5);
  });
});

/** Random histories: user turns of text replies, chained and parallel calls, some never answered. */
const historyArbitrary = fc
  .array(
    fc.record({
      steps: fc.array(fc.record({ parallel: fc.integer({ min: 1, max: 3 }), answered: fc.boolean() }), {
        maxLength: 4,
      }),
      reply: fc.boolean(),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((turns) => {
    let callNumber = 0;
    const drafts = [];
    for (const [t, turn] of turns.entries()) {
      drafts.push(user(`u${t}`));
      for (const step of turn.steps) {
        const ids = Array.from({ length: step.parallel }, () => `call${callNumber++}`);
        drafts.push(callsTo(...ids.map((id): [string, string] => [id, 'tool'])));
        if (step.answered) for (const id of ids.reverse()) drafts.push(result(id, `out ${id}`));
      }
      if (turn.reply) drafts.push(assistant(`a${t}`));
    }
    return numbered(drafts);
  });

function separatesPair(history: Message[], cut: number): boolean {
  const { callIndexOfResult } = pairToolCalls(history);
  for (const [resultIndex, callIndex] of callIndexOfResult) {
    if (callIndex < cut && resultIndex >= cut) return true;
  }
  return false;
}

describe('findSafeBoundary properties', () => {
  it('never separates a tool call from its result, and lands on a user message or an end', () => {
    fc.assert(
      fc.property(historyArbitrary, fc.nat(), (history, rawTarget) => {
        const target = rawTarget % (history.length + 2);
        const cut = findSafeBoundary(history, target);
        expect(cut).toBeGreaterThanOrEqual(0);
        expect(cut).toBeLessThanOrEqual(history.length);
        expect(separatesPair(history, cut)).toBe(false);
        if (cut > 0 && cut < history.length) expect(history[cut]?.role).toBe('user');
      }),
      { numRuns: 500 },
    );
  });
});
