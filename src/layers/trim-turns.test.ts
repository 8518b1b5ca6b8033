import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { parseTurnBoundaries } from '../core/turns/parse-turn-boundaries.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { dropEditForCut } from './drop-edit.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { layerInputFor, messagesOf, violationsAfter } from './testing/layer-input-for.ts';
import { sessionArbitrary } from './testing/random-session.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';
import { DEFAULT_MAX_TURNS, planTrimTurns } from './trim-turns.ts';

/** `count` turns, each a request, a chained pair of calls (the second one parallel) and a reply. */
function turns(count: number): Message[] {
  const drafts: Parameters<typeof numbered>[0] = [];
  for (let t = 0; t < count; t++) {
    drafts.push(
      user(`request ${t}`),
      callsTo([`a${t}`, 'read_file', `{"path":"f${t}.ts"}`]),
      result(`a${t}`, `file ${t}`),
      callsTo([`b${t}`, 'bash', '{"command":"make"}'], [`c${t}`, 'grep', '{"pattern":"x"}']),
      result(`c${t}`, 'grep out'),
      result(`b${t}`, 'make out'),
      assistant(`reply ${t}`),
    );
  }
  return numbered(drafts);
}

describe('planTrimTurns (cowagent stage 2)', () => {
  it('"When conversation turns exceed agent_max_context_turns: The oldest half of complete turns is trimmed (preserving tool call chain integrity)"', () => {
    const log = turns(DEFAULT_MAX_TURNS + 2);
    const plan = planTrimTurns(layerInputFor(log));
    expect(plan).toMatchObject({
      turnsBefore: 22,
      turnsRemoved: 11,
      turnsAfter: 11,
      cutIndex: 77,
      throughSeq: 76,
    });
    expect(plan?.trimmed).toHaveLength(77);
    expect(plan?.trimmed.at(-1)?.role).toBe('assistant');
    expect(plan?.recent[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'request 11' }] });
    if (plan) expectCleanCut(log, [], plan);
  });

  it('does nothing at or under the limit', () => {
    expect(planTrimTurns(layerInputFor(turns(20)))).toBeUndefined();
    expect(planTrimTurns(layerInputFor(turns(3)), { maxTurns: 3 })).toBeUndefined();
  });

  it('records the trim as a drop without reminder: the summary follows a turn later', () => {
    const log = turns(6);
    const input = layerInputFor(log);
    const plan = planTrimTurns(input, { maxTurns: 4 });
    expect(plan?.turnsRemoved).toBe(3);
    if (!plan) return;
    const edit = dropEditForCut(input, plan, { layer: 'trim', reason: 'turn_limit' });
    expect(edit).toMatchObject({
      type: 'drop',
      throughSeq: plan.throughSeq,
      layer: 'trim',
      reason: 'turn_limit',
    });
    expect(edit.reminder).toBeUndefined();
    expect(edit.tokensAfter).toBe(input.regions.history - plan.olderTokens);
    expect(violationsAfter(log, [edit])).toEqual([]);
  });

  it('cuts cleanly where a late result came after an interleaved user message, and trims a third with fraction 1/3', () => {
    const log = numbered([
      user('u0'),
      assistant('r0'),
      user('u1'),
      callsTo(['slow', 'bash']),
      user('still there?'), // the view closes `slow` with a stand-in and leaves the late result out
      result('slow', 'done'),
      assistant('r1'),
      user('u3'),
      assistant('r3'),
      user('u4'),
    ]);
    const plan = planTrimTurns(layerInputFor(log), { maxTurns: 2 });
    expect(plan?.turnsRemoved).toBe(2);
    expect(plan?.recent[0]).toMatchObject({ parts: [{ type: 'text', text: 'still there?' }] });
    if (plan) expectCleanCut(log, [], plan);
    const third = planTrimTurns(layerInputFor(turns(9)), { maxTurns: 2, fraction: 1 / 3 });
    expect(third?.turnsRemoved).toBe(3);
  });

  it('property: trimming keeps whole turns, at least the newest, and cuts cleanly', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.integer({ min: 1, max: 4 }), ({ log, edits }, maxTurns) => {
        const input = layerInputFor(log, edits);
        const plan = planTrimTurns(input, { maxTurns });
        const turnCount = parseTurnBoundaries(messagesOf(input.view)).length;
        if (!plan) {
          expect(turnCount).toBeLessThanOrEqual(maxTurns);
          return;
        }
        expect(plan.turnsBefore).toBe(turnCount);
        expect(plan.turnsRemoved).toBeGreaterThanOrEqual(1);
        expect(plan.turnsAfter).toBeGreaterThanOrEqual(1);
        expect(parseTurnBoundaries(plan.recent)).toHaveLength(plan.turnsAfter);
        expectCleanCut(log, edits, plan);
      }),
      { numRuns: 300 },
    );
  });

  it('trims the oldest half of a real 60-turn pi session', () => {
    const log = readCorpusSession(CORPUS.piMono);
    const plan = planTrimTurns(layerInputFor(log));
    expect(plan?.turnsBefore).toBe(60);
    expect(plan?.turnsRemoved).toBe(30);
    if (plan) expectCleanCut(log, [], plan);
  });
});
