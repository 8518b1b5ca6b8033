import { describe, expect, it } from 'vitest';
import { textOf, toolCallsOf, toolResultOf } from '../core/message.ts';
import { projectView } from '../core/view/project-view.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { runeLength } from './clip-text.ts';
import {
  CLIPPED_ARGUMENTS_KEY,
  DEFAULT_SNIP_MARKER,
  EMERGENCY_TOOL_RESULT_MAX_CHARS,
  EMERGENCY_USER_TEXT_MAX_CHARS,
  planCapMessages,
  planSnipOversized,
} from './snip-oversized.ts';
import { layerInputFor, testMessageTokens, violationsAfter } from './testing/layer-input-for.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot' };
const headTail = (chars: number) => `HEAD${'x'.repeat(chars - 8)}TAIL`;

const log = numbered([
  user(`please look at this ${headTail(60_000)}`), // 0
  callsTo(['a', 'read_file', '{"path":"dump.bin"}']), // 1
  result('a', headTail(200_000), { name: 'read_file' }), // 2: "a 200 KB tool result"
  {
    role: 'assistant',
    parts: [
      { type: 'text', text: headTail(30_000) },
      { type: 'tool-call', callId: 'b', name: 'screenshot', args: '{}' },
    ],
    meta: {},
  }, // 3
  result('b', headTail(20_000), { name: 'screenshot', media: [image] }), // 4: current turn, with media
  assistant('small'), // 5
]);

describe('planSnipOversized (digitorn truncate_oversized_messages / snip_oversized_messages)', () => {
  it('"clip the offending content with a marker indicating the truncation", head and tail kept', () => {
    const input = layerInputFor(log);
    const edits = planSnipOversized(input, { maxTokensPerMessage: 5_000 });
    expect(edits.map((edit) => [edit.type, 'target' in edit ? edit.target : -1])).toEqual([
      ['truncate-text', 0],
      ['truncate-result', 2],
      ['truncate-text', 3],
      ['truncate-result', 4],
    ]);
    expect(edits[0]).toMatchObject({
      layer: 'snip',
      reason: 'context_overflow',
      tokensBefore: input.regions.history,
    });
    expect(edits.at(-1)?.tokensAfter).toBeLessThan(input.regions.history * 0.3);
    const after = layerInputFor(log, edits);
    for (const [index, entry] of after.entries.entries()) {
      expect(after.entryTokens[index]).toBeLessThanOrEqual(5_000);
      const text = toolResultOf(entry.message)?.content ?? textOf(entry.message);
      if (text.length > 100) {
        expect(text.startsWith('please look') || text.startsWith('HEAD')).toBe(true);
        expect(text.endsWith('TAIL')).toBe(true);
        expect(text).toContain(DEFAULT_SNIP_MARKER);
      }
    }
    // The call in the clipped assistant message stays, and so does its result's media.
    const call = after.entries.find((entry) => entry.sourceSeq === 3)?.message;
    expect(call && toolCallsOf(call)).toHaveLength(1);
    const withMedia = after.entries.find((entry) => entry.sourceSeq === 4)?.message;
    expect(withMedia && toolResultOf(withMedia)?.media).toEqual([image]);
    expect(violationsAfter(log, edits)).toEqual([]);
    expect(planSnipOversized(after, { maxTokensPerMessage: 5_000 })).toEqual([]);
  });

  it('takes a custom marker, and leaves messages under the limit alone', () => {
    const edits = planSnipOversized(layerInputFor(log), { maxTokensPerMessage: 20_000, marker: '[snip]' });
    expect(edits.map((edit) => ('target' in edit ? edit.target : -1))).toEqual([2]);
    expect(edits[0]?.type === 'truncate-result' && edits[0].content).toContain('[snip] (');
  });

  it('counts what it cannot clip (media, framing) against the limit', () => {
    const media = numbered([
      user('go'),
      callsTo(['a', 'shot']),
      result('a', 'y'.repeat(8_000), { media: [image] }),
    ]);
    const input = layerInputFor(media);
    const [edit] = planSnipOversized(input, { maxTokensPerMessage: 1_500 });
    expect(edit?.type).toBe('truncate-result');
    const after = layerInputFor(media, edit ? [edit] : []);
    expect(after.entryTokens[2]).toBeLessThanOrEqual(1_500);
    const clipped = after.entries[2]?.message;
    expect(clipped && testMessageTokens(clipped)).toBeGreaterThan(1_200);
  });
});

/** A session whose one call writes `content` to a file: the arguments, and the history. */
const fileWrite = (content: string) => {
  const args = JSON.stringify({ path: 'src/big.ts', content });
  const history = numbered([
    user('write the file'),
    callsTo(['w', 'write', args]),
    result('w', 'written'),
    assistant('done'),
  ]);
  return { args, history };
};

describe('planSnipOversized on tool-call arguments', () => {
  it('clips the arguments of a call too large for the window into valid JSON naming what was cut', () => {
    const { args, history } = fileWrite(`HEAD${'const x = 1;\n'.repeat(8_000)}TAIL`);
    const input = layerInputFor(history);
    const edits = planSnipOversized(input, { maxTokensPerMessage: 2_000 });
    const argsEdit = edits.find((edit) => edit.type === 'truncate-args');
    if (argsEdit?.type !== 'truncate-args') throw new Error('expected a truncate-args edit');
    expect(argsEdit.target).toBe(1);
    expect(argsEdit.callId).toBe('w');
    const parsed = JSON.parse(argsEdit.args) as { ctxkit_clipped_arguments: string; original_chars: number };
    expect(parsed.original_chars).toBe(runeLength(args));
    expect(parsed.ctxkit_clipped_arguments.startsWith('{"path":"src/big.ts"')).toBe(true);
    expect(parsed.ctxkit_clipped_arguments.endsWith('TAIL"}')).toBe(true);
    const view = projectView(history, edits);
    const shown = view.entries[1]?.message;
    if (!shown) throw new Error('the call is not in view');
    const call = toolCallsOf(shown)[0];
    expect(call?.args).toBe(argsEdit.args);
    expect(testMessageTokens(shown)).toBeLessThanOrEqual(2_000);
    expect(violationsAfter(history, edits)).toEqual([]);
  });

  it('clips clipped arguments again inside their wrapper, still counting from the original', () => {
    const { args, history } = fileWrite(`HEAD${'say "hi"\n'.repeat(10_000)}TAIL`);
    const first = planSnipOversized(layerInputFor(history), { maxTokensPerMessage: 2_000 });
    const second = planSnipOversized(layerInputFor(history, first), { maxTokensPerMessage: 500 });
    const argsEdit = second.find((edit) => edit.type === 'truncate-args');
    if (argsEdit?.type !== 'truncate-args') throw new Error('expected a truncate-args edit');
    const parsed = JSON.parse(argsEdit.args) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([CLIPPED_ARGUMENTS_KEY, 'original_chars']);
    expect(parsed.original_chars).toBe(runeLength(args));
    const inner = parsed[CLIPPED_ARGUMENTS_KEY];
    if (typeof inner !== 'string') throw new Error('expected the clipped text');
    expect(inner).not.toContain(CLIPPED_ARGUMENTS_KEY);
    expect(inner.startsWith('{"path":"src/big.ts"')).toBe(true);
    expect(inner.endsWith('TAIL"}')).toBe(true);
    const omitted = /\((\d+) of (\d+) characters omitted\)/.exec(inner);
    expect(omitted?.[2]).toBe(String(runeLength(args)));
    expect(Number(omitted?.[1])).toBeGreaterThan(runeLength(args) - runeLength(inner));
    const shown = projectView(history, [...first, ...second]).entries[1]?.message;
    if (!shown) throw new Error('the call is not in view');
    expect(testMessageTokens(shown)).toBeLessThanOrEqual(500);
  });

  it('treats arguments that only look clipped as any other arguments', () => {
    const lookalike = JSON.stringify({
      [CLIPPED_ARGUMENTS_KEY]: 'x'.repeat(20_000),
      original_chars: 3,
      extra: true,
    });
    const history = numbered([user('go'), callsTo(['w', 'write', lookalike]), result('w', 'ok')]);
    const [edit] = planSnipOversized(layerInputFor(history), { maxTokensPerMessage: 1_000 });
    if (edit?.type !== 'truncate-args') throw new Error('expected a truncate-args edit');
    const parsed = JSON.parse(edit.args) as Record<string, unknown>;
    expect(parsed.original_chars).toBe(runeLength(lookalike));
    expect(String(parsed[CLIPPED_ARGUMENTS_KEY]).startsWith(`{"${CLIPPED_ARGUMENTS_KEY}":`)).toBe(true);
  });
});

describe('planCapMessages (cowagent emergency)', () => {
  it('"tool results limited to 10K chars, user text to 10K"; replies are not capped', () => {
    const input = layerInputFor(log);
    const edits = planCapMessages(input);
    expect(edits.map((edit) => [edit.type, 'target' in edit ? edit.target : -1])).toEqual([
      ['truncate-text', 0],
      ['truncate-result', 2],
      ['truncate-result', 4],
    ]);
    expect(edits[0]).toMatchObject({ layer: 'emergency', reason: 'context_overflow' });
    const [request, , read, reply] = projectView(log, edits).entries.map((entry) => entry.message);
    expect(runeLength(request ? textOf(request) : '')).toBeLessThanOrEqual(EMERGENCY_USER_TEXT_MAX_CHARS);
    expect(runeLength((read && toolResultOf(read)?.content) ?? '')).toBeLessThanOrEqual(
      EMERGENCY_TOOL_RESULT_MAX_CHARS,
    );
    expect(reply && textOf(reply)).toHaveLength(30_000);
    expect(violationsAfter(log, edits)).toEqual([]);
    expect(planCapMessages(layerInputFor(log, edits))).toEqual([]);
  });

  it('does nothing to a session of small messages', () => {
    const small = numbered([user('hi'), callsTo(['a', 'x']), result('a', 'ok'), assistant('done')]);
    expect(planCapMessages(layerInputFor(small))).toEqual([]);
    expect(planSnipOversized(layerInputFor(small), { maxTokensPerMessage: 10 })).toEqual([]);
  });
});

describe('on a real session', () => {
  it('brings every message of a real OpenHands run under 2,000 tokens', () => {
    const session = readCorpusSession(CORPUS.openhands);
    const edits = planSnipOversized(layerInputFor(session), { maxTokensPerMessage: 2_000 });
    expect(edits.length).toBeGreaterThan(0);
    const after = layerInputFor(session, edits);
    for (const tokens of after.entryTokens) expect(tokens).toBeLessThanOrEqual(2_000);
    expect(violationsAfter(session, edits)).toEqual([]);
    const capped = planCapMessages(layerInputFor(session));
    expect(capped.length).toBeGreaterThan(0);
    expect(violationsAfter(session, capped)).toEqual([]);
  });
});
