import { describe, expect, it } from 'vitest';
import { toolCallsOf, toolResultOf } from '../core/message.ts';
import { CLEARED_ARGS, projectView } from '../core/view/project-view.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import {
  DEFAULT_CLEAR_PLACEHOLDER,
  newestClearingCandidateSeq,
  planClearOldResults,
} from './clear-old-results.ts';
import { layerInputFor, violationsAfter } from './testing/layer-input-for.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot' };
const out = (n: number) => `output ${n} ${'o'.repeat(400)}`;

/** A result with no call: the view leaves it out, so there is nothing to clear. */
const orphanOnly = numbered([user('go'), result('zz', 'orphan'), assistant('ok')]);

const session = numbered([
  user('explore'), // 0
  callsTo(['a', 'read_file', '{"path":"a.ts"}'], ['b', 'read_file', '{"path":"b.ts"}']), // 1
  result('a', out(0), { name: 'read_file' }), // 2
  result('b', out(1), { name: 'read_file' }), // 3
  callsTo(['c', 'attempt_log', '{}']), // 4
  result('c', out(2)), // 5: no name on the result; its call says attempt_log
  assistant('read them'), // 6
  user('run it'), // 7
  callsTo(['d', 'bash', '{"command":"make all"}']), // 8
  result('d', out(3), { name: 'bash', media: [image] }), // 9
  callsTo(['e', 'bash', '{"command":"make test"}']), // 10
  result('e', out(4), { name: 'bash' }), // 11
  assistant('built'), // 12
  user('again'), // 13
  callsTo(['f', 'bash', '{"command":"make test"}']), // 14
  result('f', out(5), { name: 'bash' }), // 15
]);

const contentOf = (edits: Parameters<typeof projectView>[1], seq: number) => {
  const entry = projectView(session, edits).entries.find((candidate) => candidate.sourceSeq === seq);
  return entry ? toolResultOf(entry.message)?.content : undefined;
};

describe('planClearOldResults (deepagents, LangChain ClearToolUsesEdit)', () => {
  it('"the older tool results are replaced by a [cleared] placeholder while the most recent ones stay verbatim"', () => {
    const input = layerInputFor(session);
    const edit = planClearOldResults(input);
    expect(edit).toMatchObject({
      type: 'clear',
      targets: [2, 3, 5],
      placeholder: DEFAULT_CLEAR_PLACEHOLDER,
      clearInputs: false,
      layer: 'clear',
      reason: 'context_pressure',
      tokensBefore: input.regions.history,
    });
    const edits = edit ? [edit] : [];
    for (const seq of [2, 3, 5]) expect(contentOf(edits, seq)).toBe('[cleared]');
    for (const [seq, n] of [
      [9, 3],
      [11, 4],
      [15, 5],
    ] as const)
      expect(contentOf(edits, seq)).toBe(out(n));
    expect(violationsAfter(session, edits)).toEqual([]);
  });

  it('"The attempt log is never cleared": excluded tools stay, and still count among the newest K kept', () => {
    const edit = planClearOldResults(layerInputFor(session), { excludeTools: ['attempt_log'] });
    // seq 5 is excluded by its call's name (the result carries none); it is not replaced by an older one.
    expect(edit?.targets).toEqual([2, 3]);
  });

  it('skips results already cleared, so nothing is cleared twice', () => {
    const first = planClearOldResults(layerInputFor(session), { keepRecent: 4 });
    expect(first?.targets).toEqual([2, 3]);
    const second = planClearOldResults(layerInputFor(session, first ? [first] : []), { keepRecent: 2 });
    expect(second?.targets).toEqual([5, 9]);
  });

  it('looks only from fromSeq on, and names the newest result it could pick', () => {
    const input = layerInputFor(session);
    expect(planClearOldResults(input, { keepRecent: 1, fromSeq: 4 })?.targets).toEqual([5, 9, 11]);
    expect(planClearOldResults(input, { keepRecent: 1, fromSeq: 10 })?.targets).toEqual([11]);
    // The newest results are kept whatever fromSeq says.
    expect(planClearOldResults(input, { keepRecent: 1, fromSeq: 12 })).toBeUndefined();
    expect(newestClearingCandidateSeq(input, 1)).toBe(11);
    expect(newestClearingCandidateSeq(input, 3)).toBe(5);
    expect(newestClearingCandidateSeq(input, 6)).toBeUndefined();
  });

  it('returns undefined unless it frees at least minFreedTokens (clear_at_least), and stops once reached', () => {
    const input = layerInputFor(session);
    const all = planClearOldResults(input, { keepRecent: 0 });
    const freedAll = (all?.tokensBefore ?? 0) - (all?.tokensAfter ?? 0);
    expect(planClearOldResults(input, { keepRecent: 0, minFreedTokens: freedAll + 1 })).toBeUndefined();
    const enough = planClearOldResults(input, { keepRecent: 0, minFreedTokens: 150 });
    expect(enough?.targets).toEqual([2, 3]);
    expect((enough?.tokensBefore ?? 0) - (enough?.tokensAfter ?? 0)).toBeGreaterThanOrEqual(150);
    const anthropic = planClearOldResults(input, {
      keepRecent: 0,
      minFreedTokens: 150,
      stopAtMinimum: false,
    });
    expect(anthropic?.targets).toEqual([2, 3, 5, 9, 11, 15]);
  });

  it('blanks the producing calls’ inputs with clear_tool_inputs, and counts media the placeholder drops', () => {
    const input = layerInputFor(session);
    const plain = planClearOldResults(input, { keepRecent: 2 });
    const withInputs = planClearOldResults(input, { keepRecent: 2, clearInputs: true });
    expect(plain?.targets).toEqual([2, 3, 5, 9]);
    expect(withInputs?.clearInputs).toBe(true);
    expect(withInputs?.tokensAfter).toBeLessThan(plain?.tokensAfter ?? 0);
    // The media result frees its ~1200-token image too.
    expect((plain?.tokensBefore ?? 0) - (plain?.tokensAfter ?? 0)).toBeGreaterThan(1_200);
    const view = projectView(session, withInputs ? [withInputs] : []);
    const call = view.entries.find((entry) => entry.sourceSeq === 8)?.message;
    expect(call && toolCallsOf(call)[0]?.args).toBe(CLEARED_ARGS);
    const mediaResult = view.entries.find((entry) => entry.sourceSeq === 9)?.message;
    expect(mediaResult && toolResultOf(mediaResult)?.media).toBeUndefined();
    expect(violationsAfter(session, withInputs ? [withInputs] : [])).toEqual([]);
  });

  it('returns undefined when nothing would be freed: results no bigger than the placeholder, or too few results', () => {
    const tiny = numbered([
      user('go'),
      callsTo(['a', 'x'], ['b', 'x']),
      result('a', 'ok'),
      result('b', 'ok'),
      assistant('done'),
      user('more'),
    ]);
    expect(planClearOldResults(layerInputFor(tiny), { keepRecent: 0 })).toBeUndefined();
    expect(planClearOldResults(layerInputFor(session), { keepRecent: 6 })).toBeUndefined();
    expect(planClearOldResults(layerInputFor(orphanOnly), { keepRecent: 0 })).toBeUndefined();
  });

  it('ignores stand-in results for unanswered calls, with no system message and a call left open at the end', () => {
    const open = numbered([
      user('go'),
      callsTo(['a', 'x']),
      result('a', out(0)),
      callsTo(['b', 'x']),
      result('b', out(1)),
      callsTo(['c', 'x']), // never answered: the view closes it with a stand-in
    ]);
    const edit = planClearOldResults(layerInputFor(open), { keepRecent: 1 });
    expect(edit?.targets).toEqual([2]);
    expect(violationsAfter(open, edit ? [edit] : [])).toEqual([]);
  });

  it('clears all but the newest three results of a real tau-bench session', () => {
    const real = readCorpusSession(CORPUS.tauBench);
    const input = layerInputFor(real);
    const results = input.entries.filter((entry) => entry.message.role === 'tool');
    const edit = planClearOldResults(input);
    expect(edit).toBeDefined();
    const edits = edit ? [edit] : [];
    expect(edit?.targets.length).toBeLessThanOrEqual(results.length - 3);
    const after = layerInputFor(real, edits);
    // The estimate matches what the view costs once cleared, give or take rounding per result.
    expect(Math.abs(after.regions.history - (edit?.tokensAfter ?? 0))).toBeLessThanOrEqual(
      2 * (edit?.targets.length ?? 0),
    );
    const newest = results.slice(-3).map((entry) => entry.sourceSeq);
    for (const entry of after.entries) {
      if (newest.includes(entry.sourceSeq))
        expect(toolResultOf(entry.message)?.content).not.toBe('[cleared]');
    }
    expect(violationsAfter(real, edits)).toEqual([]);
    expect(planClearOldResults(after)).toBeUndefined();
  });
});

describe('the working set (keepRecentTokens)', () => {
  const resultTokens = (seq: number) => {
    const input = layerInputFor(session);
    const index = input.entries.findIndex((entry) => entry.sourceSeq === seq);
    return input.entryTokens[index] ?? 0;
  };

  it('keeps the newest results verbatim while they fit the budget; the one past it and all older ones go', () => {
    // Room for the three newest results (15, 11, 9) and not a fourth.
    const budget = resultTokens(15) + resultTokens(11) + resultTokens(9) + 1;
    const edit = planClearOldResults(layerInputFor(session), { keepRecent: 0, keepRecentTokens: budget });
    expect(edit?.targets).toEqual([2, 3, 5]);
    expect(newestClearingCandidateSeq(layerInputFor(session), { results: 0, tokens: budget })).toBe(5);
  });

  it('a result larger than what is left ends the working set, even when an older one would fit', () => {
    const budget = resultTokens(15) + 5;
    const edit = planClearOldResults(layerInputFor(session), { keepRecent: 0, keepRecentTokens: budget });
    expect(edit?.targets).toEqual([2, 3, 5, 9, 11]);
  });

  it('the count keeps at least keepRecent results, whatever their size', () => {
    const edit = planClearOldResults(layerInputFor(session), { keepRecent: 2, keepRecentTokens: 1 });
    expect(edit?.targets).toEqual([2, 3, 5, 9]);
  });
});
