import { describe, expect, it } from 'vitest';
import { toolResultOf } from '../core/message.ts';
import { projectView } from '../core/view/project-view.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { runeLength } from './clip-text.ts';
import { currentTurnStart } from './current-turn.ts';
import { layerInputFor, messagesOf, TEST_NOW, violationsAfter } from './testing/layer-input-for.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';
import { DEFAULT_OLD_RESULT_MAX_CHARS, planTruncateOldResults } from './truncate-old-results.ts';

const big = (chars: number, head = 'H', tail = 'T') =>
  `${head.repeat(chars / 2)}${tail.repeat(chars - chars / 2)}`;
const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot' };

const contentAt = (
  log: ReturnType<typeof numbered>,
  edits: Parameters<typeof projectView>[1],
  seq: number,
) => {
  const entry = projectView(log, edits).entries.find((candidate) => candidate.sourceSeq === seq);
  return entry ? toolResultOf(entry.message)?.content : undefined;
};

describe('planTruncateOldResults (cowagent stage 1)', () => {
  const log = numbered([
    user('read the log'), // 0
    callsTo(['a', 'read_file', '{"path":"big.log"}']), // 1
    result('a', big(30_000), { name: 'read_file' }), // 2
    assistant('it is long'), // 3
    user('and now?'), // 4: current turn
    callsTo(['b', 'read_file', '{"path":"other.log"}']), // 5
    result('b', big(25_000), { name: 'read_file' }), // 6
  ]);

  it('"Results exceeding 20,000 characters are truncated, keeping only the beginning and end with a truncation notice"', () => {
    const input = layerInputFor(log);
    const edits = planTruncateOldResults(input);
    expect(edits).toHaveLength(1);
    const [edit] = edits;
    expect(edit).toMatchObject({
      type: 'truncate-result',
      target: 2,
      layer: 'truncate-old',
      reason: 'old_result_limit',
      at: TEST_NOW,
      id: 'edit-1',
      originalChars: 30_000,
      tokensBefore: input.regions.history,
    });
    expect(edit?.tokensAfter).toBeLessThan(input.regions.history);
    expect((edit?.tokensBefore ?? 0) - (edit?.tokensAfter ?? 0)).toBeGreaterThan(2_000);
    const content = contentAt(log, edits, 2) ?? '';
    expect(content.startsWith('HHHH')).toBe(true);
    expect(content.endsWith('TTTT')).toBe(true);
    expect(content).toMatch(/characters truncated from this earlier tool result/);
    expect(runeLength(content)).toBeLessThanOrEqual(DEFAULT_OLD_RESULT_MAX_CHARS);
  });

  it('"Current turn results are not affected"', () => {
    const edits = planTruncateOldResults(layerInputFor(log));
    expect(edits.map((edit) => edit.target)).not.toContain(6);
    expect(contentAt(log, edits, 6)).toBe(big(25_000));
  });

  it('leaves results at or under the limit alone, so a truncated result is not truncated again', () => {
    const first = planTruncateOldResults(layerInputFor(log));
    expect(planTruncateOldResults(layerInputFor(log, first))).toEqual([]);
    const exact = numbered([user('q'), callsTo(['a', 'x']), result('a', 'y'.repeat(20_000)), user('next')]);
    expect(planTruncateOldResults(layerInputFor(exact))).toEqual([]);
  });

  it('touches nothing in a single-turn session or one without any user message (no system message either)', () => {
    const single = numbered([user('go'), callsTo(['a', 'x']), result('a', big(40_000)), assistant('ok')]);
    expect(planTruncateOldResults(layerInputFor(single))).toEqual([]);
    const headless = numbered([callsTo(['a', 'x']), result('a', big(40_000)), assistant('resumed')]);
    expect(currentTurnStart(headless)).toBe(0);
    expect(planTruncateOldResults(layerInputFor(headless))).toEqual([]);
  });

  it('truncates parallel and chained results of earlier turns, chaining the token figures', () => {
    const chained = numbered([
      user('go'),
      callsTo(['a', 'x'], ['b', 'y']),
      result('b', big(21_000)),
      result('a', big(50_000)),
      callsTo(['c', 'z']),
      result('c', big(22_000), { media: [image] }),
      assistant('done'),
      user('next'),
    ]);
    const input = layerInputFor(chained);
    const edits = planTruncateOldResults(input, { maxChars: 10_000 });
    expect(edits.map((edit) => edit.target)).toEqual([2, 3, 5]);
    expect(edits[0]?.tokensBefore).toBe(input.regions.history);
    expect(edits[1]?.tokensBefore).toBe(edits[0]?.tokensAfter);
    expect(edits[2]?.tokensBefore).toBe(edits[1]?.tokensAfter);
    expect(new Set(edits.map((edit) => edit.id)).size).toBe(3);
    const view = projectView(chained, edits);
    const withMedia = view.entries.find((entry) => entry.sourceSeq === 5)?.message;
    expect(withMedia && toolResultOf(withMedia)?.media).toEqual([image]);
    expect(violationsAfter(chained, edits)).toEqual([]);
  });

  it('honours head and tail sizes, never splitting a surrogate pair', () => {
    const emoji = '😀'.repeat(30_000);
    const history = numbered([user('q'), callsTo(['a', 'x']), result('a', emoji), user('next')]);
    const [edit] = planTruncateOldResults(layerInputFor(history), {
      maxChars: 1_000,
      headChars: 100,
      tailChars: 50,
    });
    const content = edit?.content ?? '';
    expect(content.startsWith('😀'.repeat(100))).toBe(true);
    expect(content.endsWith(`\n\n${'😀'.repeat(50)}`)).toBe(true);
    expect(content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(edit?.originalChars).toBe(30_000);
  });

  it('skips stand-in results for calls the log never answered', () => {
    const history = numbered([user('q'), callsTo(['a', 'x']), assistant('gave up'), user('next')]);
    expect(planTruncateOldResults(layerInputFor(history), { maxChars: 10 })).toEqual([]);
  });

  it('truncates every oversized result of earlier turns in a real pi session', () => {
    const session = readCorpusSession(CORPUS.piMono);
    const input = layerInputFor(session);
    const edits = planTruncateOldResults(input);
    expect(edits.length).toBeGreaterThan(0);
    const view = projectView(session, edits);
    const messages = messagesOf(view);
    const current = currentTurnStart(messages);
    messages.forEach((message, index) => {
      const content = toolResultOf(message)?.content ?? '';
      if (index < current) expect(runeLength(content)).toBeLessThanOrEqual(DEFAULT_OLD_RESULT_MAX_CHARS);
    });
    expect(edits.every((edit) => edit.tokensAfter < edit.tokensBefore)).toBe(true);
    expect(violationsAfter(session, edits)).toEqual([]);
    expect(planTruncateOldResults(layerInputFor(session, edits))).toEqual([]);
  });
});
