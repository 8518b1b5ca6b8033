import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { toolCallsOf } from '../core/message.ts';
import { projectView, type ReadonlyView } from '../core/view/project-view.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import {
  archiveEdit,
  COMPACTION_TOOL_DIGEST_PREFIX,
  clipModelDigest,
  EXTRACTIVE_DIGEST_MAX_CHARS,
  extractiveToolDigest,
  MODEL_DIGEST_INPUT_MAX_CHARS,
  MODEL_DIGEST_OUTPUT_MAX_CHARS,
  planArchiveResults,
  TOOL_RESULTS_ARCHIVED_PREFIX,
  toolDigestInput,
} from './archive-results.ts';
import { runeLength } from './clip-text.ts';
import {
  dropThrough,
  layerInputFor,
  messagesOf,
  repairsIn,
  violationsAfter,
} from './testing/layer-input-for.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot' };

/** One turn with `count` chained calls: read_file on odd, bash on even, the third one failing. */
function agentTurn(count: number, tail: Parameters<typeof numbered>[0] = []): Message[] {
  const drafts: Parameters<typeof numbered>[0] = [user('fix the failing test')];
  for (let n = 0; n < count; n++) {
    const bash = n % 2 === 0;
    drafts.push(
      callsTo([
        `c${n}`,
        bash ? 'bash' : 'read_file',
        bash ? `{"command":"npm test -- ${n}"}` : `{"path":"src/f${n}.ts"}`,
      ]),
    );
    drafts.push(
      result(`c${n}`, n === 2 ? `running\nError: expected 1, got ${n}` : `first line ${n}\nmore`, {
        name: bash ? 'bash' : 'read_file',
        isError: n === 2,
        ...(n === 3 ? { media: [image] } : {}),
      }),
    );
  }
  return numbered([...drafts, ...tail]);
}

/** Results from the log the agent sees (stand-ins for unanswered calls are not counted). */
const visibleResults = (view: ReadonlyView) =>
  view.entries.filter((entry) => entry.sourceSeq !== undefined && entry.message.role === 'tool');

describe('planArchiveResults (tiancai maybeSummarizeToolResults)', () => {
  it('"visible toolResult count > ToolCallCutoff": archives the oldest until "visible tool results are at or below cutoff"', () => {
    const log = agentTurn(13, [assistant('done')]);
    const input = layerInputFor(log);
    const plan = planArchiveResults(input);
    expect(plan?.targets).toEqual([2, 4, 6]);
    expect(plan?.calls.map((call) => call?.callId)).toEqual(['c0', 'c1', 'c2']);
    expect(plan?.digestAfterSeq).toBe(27);
    if (!plan) return;
    const digest = extractiveToolDigest(plan.results, plan.calls);
    const edit = archiveEdit(plan, digest, input);
    expect(edit).toMatchObject({
      type: 'archive',
      layer: 'archive',
      reason: 'tool_call_cutoff',
      targets: [2, 4, 6],
      digestAfterSeq: 27,
      tokensBefore: input.regions.history,
    });
    const view = projectView(log, [edit]);
    const messages = messagesOf(view);
    expect(visibleResults(view)).toHaveLength(10);
    // The calls go with their results; the digest is one user message hidden from the user.
    expect(messages.flatMap((message) => toolCallsOf(message).map((call) => call.callId))).not.toContain(
      'c0',
    );
    expect(messages.at(-1)).toMatchObject({
      role: 'user',
      meta: { kind: 'tool_summary', agentVisible: true, userVisible: false },
    });
    expect(violationsAfter(log, [edit])).toEqual([]);
    expect(planArchiveResults(layerInputFor(log, [edit]))).toBeUndefined();
    expect(Math.abs(layerInputFor(log, [edit]).regions.history - edit.tokensAfter)).toBeLessThanOrEqual(3);
  });

  it('does nothing at or below the cutoff', () => {
    expect(planArchiveResults(layerInputFor(agentTurn(10)))).toBeUndefined();
    expect(planArchiveResults(layerInputFor(agentTurn(3)), { toolCallCutoff: 3 })).toBeUndefined();
  });

  it('anchors the digest before calls still waiting for results, so no result is orphaned when it arrives', () => {
    // A parallel batch half answered at the end, as the log stands while tools run.
    const log = numbered([
      ...agentTurn(4).map(({ id, seq, ...draft }) => draft),
      callsTo(['p1', 'bash', '{"command":"a"}'], ['p2', 'bash', '{"command":"b"}']), // 9
      result('p1', 'a done', { name: 'bash' }), // 10
    ]);
    const plan = planArchiveResults(layerInputFor(log), { toolCallCutoff: 1 });
    expect(plan?.digestAfterSeq).toBe(8);
    // Results after the anchor stay even though the cutoff asks for more.
    expect(plan?.targets).toEqual([2, 4, 6, 8]);
    if (!plan) return;
    const edit = archiveEdit(plan, extractiveToolDigest(plan.results, plan.calls), layerInputFor(log));
    const arrived = numbered([
      ...log.map(({ id, seq, ...draft }) => draft),
      result('p2', 'b done', { name: 'bash' }),
    ]);
    const view = projectView(arrived, [edit]);
    expect(repairsIn(view)).toEqual({ standIns: 0, orphaned: 0 });
    expect(violationsAfter(arrived, [edit])).toEqual([]);
  });

  it('works on the kept window after a summarize: the "[Compaction tool digest]" variant', () => {
    const log = numbered([
      user('old request'),
      assistant('old reply'),
      ...agentTurn(12).map(({ id, seq, ...draft }) => draft),
    ]);
    const cut = dropThrough(1);
    const input = layerInputFor(log, [cut]);
    const plan = planArchiveResults(input);
    expect(plan?.targets).toHaveLength(2);
    if (!plan) return;
    const digest = extractiveToolDigest(plan.results, plan.calls, { prefix: COMPACTION_TOOL_DIGEST_PREFIX });
    expect(digest.startsWith('[Compaction tool digest]')).toBe(true);
    expect(violationsAfter(log, [cut, archiveEdit(plan, digest, input)])).toEqual([]);
  });

  it('archives a real OpenHands run down to the cutoff', () => {
    const log = readCorpusSession(CORPUS.openhands);
    const input = layerInputFor(log);
    const before = visibleResults(input.view).length;
    const plan = planArchiveResults(input);
    expect(plan?.targets).toHaveLength(before - 10);
    if (!plan) return;
    const digest = extractiveToolDigest(plan.results, plan.calls);
    expect(runeLength(digest)).toBeLessThanOrEqual(EXTRACTIVE_DIGEST_MAX_CHARS);
    const edit = archiveEdit(plan, digest, input);
    expect(visibleResults(projectView(log, [edit]))).toHaveLength(10);
    expect(edit.tokensAfter).toBeLessThan(edit.tokensBefore);
    expect(violationsAfter(log, [edit])).toEqual([]);
  });
});

describe('extractiveToolDigest (001 heuristic fallback)', () => {
  const log = agentTurn(5);
  const plan = planArchiveResults(layerInputFor(log), { toolCallCutoff: 0 });

  it('lists each archived result: tool, key argument, first line or error line', () => {
    const digest = extractiveToolDigest(plan?.results ?? [], plan?.calls);
    expect(digest.split('\n')).toEqual([
      `${TOOL_RESULTS_ARCHIVED_PREFIX} 5 earlier tool results hidden to save context:`,
      '- bash(npm test -- 0): first line 0',
      '- read_file(src/f1.ts): first line 1',
      '- bash(npm test -- 2): error: Error: expected 1, got 2',
      '- read_file(src/f3.ts): first line 3 (+1 media)',
      '- bash(npm test -- 4): first line 4',
    ]);
  });

  it('names the tool from the result when no calls are given', () => {
    expect(extractiveToolDigest(plan?.results ?? []).split('\n')[1]).toBe('- bash: first line 0');
  });

  it('"Heuristic fallback output is clipped to 800 runes (head-tail style)"', () => {
    const many = agentTurn(60);
    const all = planArchiveResults(layerInputFor(many), { toolCallCutoff: 0 });
    const digest = extractiveToolDigest(all?.results ?? [], all?.calls);
    expect(runeLength(digest)).toBeLessThanOrEqual(800);
    expect(digest.startsWith(TOOL_RESULTS_ARCHIVED_PREFIX)).toBe(true);
    expect(digest).toMatch(/bash\(npm test -- 58\)/);
    expect(digest).toMatch(/characters of the digest omitted/);
  });

  it('clips the model digest input to 12,000 characters and its output to 1,200 runes', () => {
    const huge = numbered([
      user('go'),
      ...Array.from({ length: 4 }, (_, n) => [
        callsTo([`h${n}`, 'read_file', `{"path":"big${n}.txt"}`]),
        result(`h${n}`, `${n}`.repeat(10_000), { name: 'read_file' }),
      ]).flat(),
    ]);
    const all = planArchiveResults(layerInputFor(huge), { toolCallCutoff: 0 });
    const source = toolDigestInput(all?.results ?? [], all?.calls);
    expect(runeLength(source)).toBeLessThanOrEqual(MODEL_DIGEST_INPUT_MAX_CHARS);
    for (const n of [0, 1, 2, 3]) expect(source).toContain(`### read_file(big${n}.txt)`);
    expect(runeLength(clipModelDigest('d'.repeat(5_000)))).toBeLessThanOrEqual(MODEL_DIGEST_OUTPUT_MAX_CHARS);
  });
});
