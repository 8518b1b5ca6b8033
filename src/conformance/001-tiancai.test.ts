import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../core/errors/index.ts';
import type { Message, MessageInput, Part } from '../core/message.ts';
import { textOf } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import {
  PRESETS,
  TIANCAI_HEURISTIC_SUMMARY_MAX_CHARS,
  TIANCAI_KEEP_RECENT,
  TIANCAI_KEEP_RECENT_TOKENS,
  TIANCAI_LARGE_OUTPUT_THRESHOLD,
  TIANCAI_MAX_BYTES,
  TIANCAI_MAX_LINES,
  TIANCAI_MAX_MESSAGES,
  TIANCAI_MAX_TOKENS,
  TIANCAI_RESERVE_TOKENS,
  TIANCAI_SUMMARY_INPUT_MAX_CHARS,
  TIANCAI_SUMMARY_OUTPUT_MAX_CHARS,
  TIANCAI_SUMMARY_TOOL_RESULT_MAX_CHARS,
  TIANCAI_TOOL_CALL_CUTOFF,
} from '../core/policy/presets/index.ts';
import { resolvePolicyWith } from '../core/policy/resolve-policy.ts';
import { estimateMessageTokens } from '../core/tokens/estimate-message-tokens.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import type { ModelClient, ModelRequest } from '../providers/model-client.ts';
import { withStreamFromComplete } from '../providers/stream-events-of-response.ts';
import { createModelSummarizer } from '../summarize/model-summarizer.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { LONG_SESSION, loadCorpusSession } from '../testing/corpus.ts';
import { asInput, replaySession } from '../testing/replay-session.ts';
import {
  allText,
  callIds,
  concatCorpus,
  corpusInputs,
  eventsOfType,
  numberedLines,
  overflowError,
  RecordingSummarizer,
  resultContents,
  runes,
  seedManager,
  utf8Bytes,
} from './support/seeds-000-002-harness.ts';
import { NOT_APPLICABLE_001 } from './support/seeds-000-002-not-applicable.ts';

/**
 * tiancai (tiancai, pkg/compact + pkg/agent), statement by statement, with the `tiancai` preset through
 * the public ContextManager API on corpus sessions. The model is gpt-4o; where a statement is about the
 * effective token limit the window is set per call, so `window − ReserveTokens` is a figure the test
 * controls.
 */

const TIANCAI: Policy = { ...PRESETS.tiancai, model: 'gpt-4o' };
/** The preset with settings written in tiancai's own names (compact.Config, ToolOutputLimits). */
const tiancai = (override: Record<string, unknown>, model = 'gpt-4o'): Policy => ({
  ...resolvePolicyWith('tiancai', [override], { dialect: 'tiancai' }),
  model,
});

/** 8 turns, 61 messages, 23 tool calls. */
const TAU_TOOLS = 'tau-bench__gpt-4o-airline_task33_trial0.jsonl';
/** One user request, twenty tool calls. */
const SWE_ONE_TURN = 'swe-agent__ctf_i_got_id_demo.jsonl';

/** A window whose effective token limit is 18,000 − 16,384 = 1,616 tokens: a tau-bench session reaches it. */
const SMALL = { contextWindow: 18_000, maxOutputTokens: 2_000 };
const SMALL_LIMIT = SMALL.contextWindow - TIANCAI_RESERVE_TOKENS;

/** Replays like the agent loop: append up to each reply, prepare, record the reply, then `afterTurn`. */
async function replayWithAfterTurn(
  manager: ReturnType<typeof seedManager>,
  inputs: readonly MessageInput[],
  request: Parameters<ReturnType<typeof seedManager>['prepare']>[1],
  onTurnEnd: (figures: { inputTokens: number; scheduled: boolean }) => void,
): Promise<void> {
  let from = 0;
  for (let index = 1; index < inputs.length; index++) {
    if (inputs[index]?.role !== 'assistant') continue;
    await manager.append('s', inputs.slice(from, index));
    from = index;
    await manager.prepare('s', request);
    const stats = await manager.stats('s', request);
    const after = await manager.afterTurn('s');
    await after.done;
    // Inside a turn's tool loop nothing is due: a turn ends with a reply that calls no tool.
    if (after.turnEnded) onTurnEnd({ inputTokens: stats.tokens.input, scheduled: after.scheduled });
    else expect(after.scheduled).toBe(false);
  }
  await manager.append('s', inputs.slice(from));
}

/** The seed's per-message heuristic: text, thinking and tool-call payload by character length, ceil(chars / 4), images ~1200. */
function seedMessageTokens(message: Pick<Message, 'parts'>): number {
  let chars = 0;
  let images = 0;
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'reasoning') chars += runes(part.text);
    else if (part.type === 'tool-call') chars += runes(part.callId) + runes(part.name) + runes(part.args);
    else if (part.type === 'tool-result') chars += runes(part.callId) + runes(part.content);
    else if (part.type === 'media') images++;
  }
  return Math.ceil(chars / 4) + images * 1_200;
}

/** Inputs up to and including the `count`-th tool result. */
function throughResult(inputs: readonly MessageInput[], count: number): MessageInput[] {
  let seen = 0;
  const end = inputs.findIndex((input) => input.role === 'tool' && ++seen === count);
  return inputs.slice(0, end + 1);
}

const visibleResults = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === 'tool');
/** Call ids the tool results answer. */
const resultIds = (messages: readonly Pick<Message, 'parts'>[]) =>
  messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'tool-result' ? [part.callId] : [])),
  );

/** Ends the slice where no call waits for its result (the corpus cut mid-turn leaves calls open). */
function settled(inputs: readonly MessageInput[]): MessageInput[] {
  let end = inputs.length;
  while (end > 0) {
    const slice = inputs.slice(0, end);
    const answered = new Set(resultIds(slice));
    if (callIds(slice).every((id) => answered.has(id))) return slice;
    end--;
  }
  return [];
}

/** pi-mono's first ten turns (187 messages, about 100k tokens), ending with every call answered. */
const PI_TEN_TURNS = settled(corpusInputs(LONG_SESSION, 0, 200));
/** Windows whose effective limits are 23,616 (40k) and 13,616 (30k) tokens. */
const FORTY = { contextWindow: 40_000 };
const THIRTY = { contextWindow: 30_000 };
const digests = (messages: readonly Message[]) =>
  messages.filter((message) => message.meta.kind === 'tool_summary');

/** pi-mono's turns 9–10: the agent implements a plan, dozens of reads, edits and checks in a row. */
const MANY_RESULTS = corpusInputs(LONG_SESSION, 51, 188);

describe('tiancai: not applicable here', () => {
  it('lists each statement that cannot apply, with its reason', () => {
    expect(NOT_APPLICABLE_001.length).toBeGreaterThan(0);
    for (const entry of NOT_APPLICABLE_001) {
      expect(entry.statement.trim().length).toBeGreaterThan(0);
      expect(entry.reason.trim().length).toBeGreaterThan(20);
    }
  });
});

describe('tiancai: triggering rules', () => {
  it('"If AutoCompact == false: do not compact."', async () => {
    const off = seedManager(tiancai({ AutoCompact: false }));
    const on = seedManager(TIANCAI);
    const layers = { off: [] as string[], on: [] as string[] };
    off.on((event) => event.type === 'compaction-finished' && layers.off.push(event.layer));
    on.on((event) => event.type === 'compaction-finished' && layers.on.push(event.layer));
    const inputs = corpusInputs(TAU_TOOLS);
    await replayWithAfterTurn(off, inputs, SMALL, () => {});
    await replayWithAfterTurn(on, inputs, SMALL, () => {});
    // The same session over the same limit: compacted with AutoCompact on, never with it off.
    expect(layers.on).toContain('summarize');
    expect(layers.off).not.toContain('summarize');
    expect((await off.history('s')).edits.filter((edit) => edit.type === 'summarize')).toEqual([]);
  });

  it('"If an effective token limit exists: compact when estimated tokens reach that limit" — "contextWindow - ReserveTokens (when context window is set and positive)"', async () => {
    const manager = seedManager(TIANCAI);
    const figures: { inputTokens: number; scheduled: boolean }[] = [];
    await replayWithAfterTurn(manager, corpusInputs(TAU_TOOLS), SMALL, (figure) => figures.push(figure));
    const over = figures.filter((figure) => figure.inputTokens >= SMALL_LIMIT + 16);
    const under = figures.filter((figure) => figure.inputTokens < SMALL_LIMIT - 16);
    expect(over.length).toBeGreaterThan(0);
    expect(under.length).toBeGreaterThan(0);
    expect(over.every((figure) => figure.scheduled)).toBe(true);
    expect(under.every((figure) => !figure.scheduled)).toBe(true);
  });

  it('"else MaxTokens" — without a context window, compact when estimated tokens reach MaxTokens (8000)', async () => {
    const manager = seedManager(tiancai({}, 'in-house-model-without-profile'));
    const figures: { inputTokens: number; scheduled: boolean }[] = [];
    // Tool-heavy sessions: with ten results visible (ToolCallCutoff) they still pass 8,000 tokens.
    const inputs = concatCorpus([
      'swe-agent__replay__marshmallow-code__marshmallow-1867__function_calling__install-1__marshmallow-code__marshmallow-1867.jsonl',
      'swe-agent__replay__marshmallow-code__marshmallow-1867__default_sys-env_cursors_window100__marshmallow-code__marshmallow-1867.jsonl',
      'swe-agent__replay__marshmallow-code__marshmallow-1867__xml_sys-env_window100__marshmallow-code__marshmallow-1867.jsonl',
    ]);
    await replayWithAfterTurn(manager, inputs, {}, (figure) => figures.push(figure));
    const over = figures.filter((figure) => figure.inputTokens >= TIANCAI_MAX_TOKENS + 16);
    const under = figures.filter((figure) => figure.inputTokens < TIANCAI_MAX_TOKENS - 16);
    expect(over.length).toBeGreaterThan(0);
    expect(over.every((figure) => figure.scheduled)).toBe(true);
    expect(under.every((figure) => !figure.scheduled)).toBe(true);
  });

  it('"Otherwise: fall back to MaxMessages" — no window and no MaxTokens: compact past 50 messages', async () => {
    const manager = seedManager(tiancai({ MaxTokens: 0 }, 'in-house-model-without-profile'));
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs.slice(0, TIANCAI_MAX_MESSAGES));
    expect((await manager.afterTurn('s')).scheduled).toBe(false);
    await manager.append('s', inputs.slice(TIANCAI_MAX_MESSAGES, TIANCAI_MAX_MESSAGES + 2));
    const after = await manager.afterTurn('s');
    expect(after.scheduled).toBe(true);
    await after.done;
    await manager.prepare('s');
    expect((await manager.stats('s')).messages.view).toBeLessThanOrEqual(TIANCAI_MAX_MESSAGES);
  });

  it('"KeepRecentTokens is also clamped to at most half of the effective token limit"', async () => {
    const keptTokens = async (contextWindow: number): Promise<number> => {
      const manager = seedManager(TIANCAI);
      await manager.append('s', PI_TEN_TURNS);
      await manager.stats('s', { contextWindow });
      expect((await manager.compact('s')).compacted).toBe(true);
      const { log, edits } = await manager.history('s');
      const summarize = edits.find((edit) => edit.type === 'summarize');
      const throughSeq = summarize?.type === 'summarize' ? summarize.throughSeq : -1;
      return log
        .filter((message) => message.seq > throughSeq)
        .reduce((sum, message) => sum + seedMessageTokens(message), 0);
    };
    // 40,000 − 16,384 = 23,616 → at most 11,808 recent tokens, below KeepRecentTokens.
    const clamped = await keptTokens(40_000);
    expect(clamped).toBeLessThanOrEqual(Math.floor((40_000 - TIANCAI_RESERVE_TOKENS) / 2));
    expect(clamped).toBeGreaterThan(Math.floor((40_000 - TIANCAI_RESERVE_TOKENS) / 4));
    // 100,000 − 16,384: half is 41,808, so KeepRecentTokens (20,000) itself applies.
    const unclamped = await keptTokens(100_000);
    expect(unclamped).toBeLessThanOrEqual(TIANCAI_KEEP_RECENT_TOKENS);
    expect(unclamped).toBeGreaterThan(Math.floor((40_000 - TIANCAI_RESERVE_TOKENS) / 2));
  });
});

describe('tiancai: message visibility', () => {
  it('"If visibility flags are unset, visibility defaults to true."', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = corpusInputs('tau-bench__gpt-4o-airline_task11_trial0.jsonl');
    expect(inputs.every((input) => input.meta?.agentVisible === undefined)).toBe(true);
    await manager.append('s', inputs);
    const prepared = await manager.prepare('s');
    expect(prepared.messages.map((message) => message.parts)).toEqual(inputs.map((input) => input.parts));
  });

  it('"Messages with AgentVisible=false are not sent to the LLM (ConvertMessagesToLLM) and are skipped by token estimation."', async () => {
    const inputs = corpusInputs('tau-bench__gpt-4o-airline_task11_trial0.jsonl');
    const hidden: MessageInput = {
      role: 'user',
      parts: [{ type: 'text', text: `UI-ONLY NOTE ${'x'.repeat(40_000)}` }],
      meta: { agentVisible: false },
    };
    const withHidden = seedManager(TIANCAI);
    await withHidden.append('s', [...inputs.slice(0, 10), hidden, ...inputs.slice(10)]);
    const without = seedManager(TIANCAI);
    await without.append('s', inputs);
    const prepared = await withHidden.prepare('s');
    expect(allText(prepared.messages)).not.toContain('UI-ONLY NOTE');
    expect(prepared.messages).toHaveLength(inputs.length);
    expect((await withHidden.stats('s')).tokens).toEqual((await without.stats('s')).tokens);
  });

  it('"Important Kind values used by context management: tool_result (normal tool output), tool_result_archived (hidden old tool output), tool_summary (summary/digest message)"', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = throughResult(corpusInputs(SWE_ONE_TURN), TIANCAI_TOOL_CALL_CUTOFF + 1);
    await manager.append('s', [
      ...inputs.slice(0, -1),
      { ...(inputs.at(-1) as MessageInput), meta: { kind: 'tool_result' } },
    ]);
    const prepared = await manager.prepare('s');
    // Normal output stays a tool_result; the archived one is hidden (an `archive` edit over the log);
    // the digest is a tool_summary.
    expect(visibleResults(prepared.messages).at(-1)?.meta.kind).toBe('tool_result');
    const { log, edits } = await manager.history('s');
    const archive = edits.find((edit) => edit.type === 'archive');
    expect(archive?.type === 'archive' && archive.targets).toEqual([
      log.find((message) => message.role === 'tool')?.seq,
    ]);
    expect(digests(prepared.messages)).toHaveLength(1);
  });
});

describe('tiancai: tool output processing', () => {
  const bigSource = resultContents(corpusInputs(LONG_SESSION, 0, 7)).join('\n');

  it('"Tool results are normalized … before being stored. This is called for both successful output and error output"', async () => {
    const manager = seedManager(TIANCAI);
    const output = numberedLines(3_000, 12);
    await manager.append('s', [
      user('run both'),
      callsTo(['ok', 'bash', '{"command":"seq"}'], ['fail', 'bash', '{"command":"seq --bad"}']),
    ]);
    const { events } = await manager.append('s', [
      result('ok', output, { name: 'bash' }),
      result('fail', output, { name: 'bash', isError: true }),
    ]);
    expect(eventsOfType(events, 'tool-output-normalized').map((event) => event.seq)).toHaveLength(2);
    const prepared = await manager.prepare('s');
    for (const content of resultContents(prepared.messages)) {
      expect(content.split('\n').length).toBeLessThanOrEqual(TIANCAI_MAX_LINES + 1);
    }
  });

  it('"If rune count exceeds LargeOutputThreshold, output is spilled to a temp file and replaced with a notice message" that "Includes saved path and SHA256 checksum"', async () => {
    const manager = seedManager(TIANCAI);
    const huge = `${bigSource.repeat(3).slice(0, 300_000)}\nEND`;
    expect(runes(huge)).toBeGreaterThan(TIANCAI_LARGE_OUTPUT_THRESHOLD);
    await manager.append('s', [user('dump it'), callsTo(['c1', 'bash', '{"command":"cat *.ts"}'])]);
    const { events } = await manager.append('s', [result('c1', huge, { name: 'bash' })]);
    const [spilled] = eventsOfType(events, 'tool-output-spilled');
    expect(spilled?.sha256).toBe(createHash('sha256').update(huge, 'utf8').digest('hex'));
    const notice = resultContents((await manager.prepare('s')).messages).at(-1) ?? '';
    expect(notice).toContain(spilled?.blobRef ?? '—');
    expect(notice).toContain(spilled?.sha256 ?? '—');
    expect(notice.length).toBeLessThan(10_000);
    expect(await manager.readOffloaded('s', spilled?.blobRef ?? '')).toBe(huge);
  });

  it('"rune count": 150,000 emoji (300,000 UTF-16 units) are under the 200 Ki-rune threshold and are not spilled', async () => {
    const manager = seedManager(TIANCAI);
    const emoji = '🙂'.repeat(150_000);
    await manager.append('s', [user('print them'), callsTo(['c1', 'bash', '{}'])]);
    const { events } = await manager.append('s', [result('c1', emoji, { name: 'bash' })]);
    expect(eventsOfType(events, 'tool-output-spilled')).toEqual([]);
    expect(eventsOfType(events, 'tool-output-normalized')).toHaveLength(1);
  });

  it('"Otherwise, truncation is applied by: lines (with head_tail marker when enabled and limit >= 4), then rune count, then byte count" and "When truncation happens, a stats notice is appended."', async () => {
    const manager = seedManager(TIANCAI);
    // 5,000 short lines (under 50 KiB): cut by lines, head and tail kept around a marker.
    const manyLines = numberedLines(5_000, 9);
    // 3,000 lines of 30 characters: 2,000 lines are still over 50 KiB, so bytes cut too.
    const wideLines = numberedLines(3_000, 30);
    await manager.append('s', [
      user('two outputs'),
      callsTo(['lines', 'bash', '{}'], ['bytes', 'bash', '{}']),
    ]);
    await manager.append('s', [
      result('lines', manyLines, { name: 'bash' }),
      result('bytes', wideLines, { name: 'bash' }),
    ]);
    const [byLines = '', byBytes = ''] = resultContents((await manager.prepare('s')).messages);

    const [linesBody = '', linesNotice = ''] = byLines.split(/\n(?=\[output truncated)/);
    expect(linesBody.split('\n').length).toBeLessThanOrEqual(TIANCAI_MAX_LINES);
    expect(linesBody.startsWith('line 0 ')).toBe(true);
    expect(linesBody.endsWith(manyLines.slice(manyLines.lastIndexOf('\n')))).toBe(true);
    expect(linesBody).toMatch(/omitted/);
    expect(linesNotice).toMatch(/^\[output truncated: kept the start and end, \d+ of 5000 lines/);

    const [bytesBody = '', bytesNotice = ''] = byBytes.split(/\n(?=\[output truncated)/);
    expect(utf8Bytes(bytesBody)).toBeLessThanOrEqual(TIANCAI_MAX_BYTES);
    expect(bytesBody.split('\n').length).toBeLessThanOrEqual(TIANCAI_MAX_LINES);
    expect(bytesBody.startsWith('line 0 ')).toBe(true);
    expect(bytesBody.endsWith(wideLines.slice(-30))).toBe(true);
    expect(bytesNotice).toMatch(/of 3000 lines, .* of \d+ bytes\]$/);
  });
});

describe('tiancai: tool result summarization during loops', () => {
  it('"Trigger condition: visible toolResult count > ToolCallCutoff"', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = corpusInputs(SWE_ONE_TURN);
    const ten = throughResult(inputs, TIANCAI_TOOL_CALL_CUTOFF);
    await manager.append('s', ten);
    const atCutoff = await manager.prepare('s');
    expect(visibleResults(atCutoff.messages)).toHaveLength(10);
    expect(eventsOfType(atCutoff.events, 'compaction-finished')).toEqual([]);
    await manager.append('s', throughResult(inputs, TIANCAI_TOOL_CALL_CUTOFF + 1).slice(ten.length));
    const over = await manager.prepare('s');
    expect(eventsOfType(over.events, 'compaction-finished').map((event) => event.layer)).toEqual(['archive']);
  });

  it('"Repeats until visible tool results are at or below cutoff" and "Each iteration archives the oldest visible tool result"', async () => {
    const manager = seedManager(TIANCAI);
    const results = MANY_RESULTS.filter((input) => input.role === 'tool');
    expect(results.length).toBeGreaterThan(30);
    await manager.append('s', MANY_RESULTS);
    const prepared = await manager.prepare('s');
    expect(visibleResults(prepared.messages)).toHaveLength(TIANCAI_TOOL_CALL_CUTOFF);
    // The newest ten stay; every older one is archived, its call with it.
    const newest = resultIds(results).slice(-TIANCAI_TOOL_CALL_CUTOFF);
    expect(resultIds(prepared.messages)).toEqual(newest);
    expect(callIds(prepared.messages)).toEqual(newest);
    expect(findPairingViolations(prepared.messages)).toEqual([]);
  });

  it('archiving sets "AgentVisible=false" and keeps "UserVisible preserved from the original message" (the log is never rewritten)', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = MANY_RESULTS.map((input, index) =>
      input.role === 'tool' && index % 2 === 0 ? { ...input, meta: { userVisible: false } } : input,
    );
    await manager.append('s', inputs);
    const prepared = await manager.prepare('s');
    const { log, edits } = await manager.history('s');
    const archived = new Set(edits.flatMap((edit) => (edit.type === 'archive' ? edit.targets : [])));
    expect(archived.size).toBe(
      inputs.filter((input) => input.role === 'tool').length - TIANCAI_TOOL_CALL_CUTOFF,
    );
    const shown = new Set(prepared.messages.map((message) => message.seq));
    for (const message of log.filter((entry) => archived.has(entry.seq))) {
      expect(shown.has(message.seq)).toBe(false);
      expect(message.meta).toEqual(inputs[message.seq]?.meta ?? {});
    }
  });

  it('"Each iteration archives the oldest visible tool result: AgentVisible=false, UserVisible preserved from the original message, Kind=\\"tool_result_archived\\"" (wherever the history is shown)', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = MANY_RESULTS.map((input, index) =>
      input.role === 'tool' && index % 2 === 0 ? { ...input, meta: { userVisible: false } } : input,
    );
    await manager.append('s', inputs);
    await manager.prepare('s');
    const { edits } = await manager.history('s');
    const archived = new Set(edits.flatMap((edit) => (edit.type === 'archive' ? edit.targets : [])));
    const shown = await manager.transcript('s');
    const archivedShown = shown.filter((message) => archived.has(message.seq) && message.role === 'tool');
    expect(archivedShown).toHaveLength(archived.size);
    for (const message of archivedShown) {
      expect(message.meta.agentVisible).toBe(false);
      expect(message.meta.kind).toBe('tool_result_archived');
      expect(message.meta.userVisible).toBe(inputs[message.seq]?.meta?.userVisible);
    }
    // Results still sent keep their kind; the digest is in the history as the model saw it.
    for (const message of shown.filter((entry) => entry.role === 'tool' && !archived.has(entry.seq))) {
      expect(message.meta.kind).not.toBe('tool_result_archived');
      expect(message.meta.agentVisible).not.toBe(false);
    }
    expect(shown.filter((message) => message.meta.kind === 'tool_summary')).toHaveLength(1);
    // Every logged message is there, in order: archiving hides, it never removes.
    const { log } = await manager.history('s');
    expect(shown.filter((message) => message.meta.kind !== 'tool_summary').map((m) => m.seq)).toEqual(
      log.map((message) => message.seq),
    );
  });

  it('"Appends one summary message: Role=user, AgentVisible=true, UserVisible=false, Kind=tool_summary"', async () => {
    const manager = seedManager(TIANCAI);
    await manager.append('s', MANY_RESULTS);
    const prepared = await manager.prepare('s');
    const [digest, ...more] = digests(prepared.messages);
    expect(more).toEqual([]);
    expect(digest?.role).toBe('user');
    expect(digest?.meta).toEqual({ kind: 'tool_summary', agentVisible: true, userVisible: false });
  });

  it('"llm (default): summarize with LLM"', async () => {
    const summarizer = new RecordingSummarizer(() => 'LLM DIGEST: read and edited agent-session.ts');
    const manager = seedManager(TIANCAI, { summarizer });
    await manager.append('s', MANY_RESULTS);
    const prepared = await manager.prepare('s');
    expect(summarizer.calls).toHaveLength(1);
    expect(textOf(digests(prepared.messages)[0] ?? { parts: [] })).toBe(
      'LLM DIGEST: read and edited agent-session.ts',
    );
  });

  it('"heuristic: local fallback summary"', async () => {
    const summarizer = new RecordingSummarizer(() => 'never asked');
    const manager = seedManager(tiancai({ ToolSummaryStrategy: 'heuristic' }), { summarizer });
    await manager.append('s', MANY_RESULTS);
    const prepared = await manager.prepare('s');
    expect(summarizer.calls).toEqual([]);
    const digest = textOf(digests(prepared.messages)[0] ?? { parts: [] });
    expect(digest).toMatch(/^\[Tool results archived\] \d+ earlier tool results/);
  });

  it('"off: disabled"', async () => {
    const manager = seedManager(tiancai({ ToolSummaryStrategy: 'off' }));
    await manager.append('s', MANY_RESULTS);
    const prepared = await manager.prepare('s');
    expect(visibleResults(prepared.messages)).toHaveLength(
      MANY_RESULTS.filter((input) => input.role === 'tool').length,
    );
    expect(digests(prepared.messages)).toEqual([]);
  });

  it('"ToolSummaryStrategy string // llm, heuristic, off": any other value is refused in those words, naming the key', () => {
    const refused = (value: unknown) => () => tiancai({ ToolSummaryStrategy: value });
    for (const value of ['summary', 'model', 'extractive', 3]) {
      expect(refused(value)).toThrow(InvalidPolicyError);
      expect(refused(value)).toThrow(
        /^ToolSummaryStrategy: expected one of "llm" \| "heuristic" \| "off", got /,
      );
    }
    expect(refused('heuristics')).toThrow(/did you mean "heuristic"\?/);
    // And the output limits' TruncateMode: `// "head" or "head_tail"`.
    expect(() => tiancai({ TruncateMode: 'tail' })).toThrow(
      /^TruncateMode: expected one of "head" \| "head_tail", got a string \("tail"\)/,
    );
  });

  it('"LLM summary limits: input clipped to 12000 chars"', async () => {
    const summarizer = new RecordingSummarizer(() => 'digest');
    const manager = seedManager(TIANCAI, { summarizer });
    // pi-mono's first ten turns: 40-odd results, three of them 24,000–51,000 characters.
    await manager.append('s', corpusInputs(LONG_SESSION, 0, 188));
    await manager.prepare('s');
    const input = summarizer.calls[0];
    expect(input).toBeDefined();
    expect(runes(allText(input?.messages ?? []))).toBeLessThanOrEqual(TIANCAI_SUMMARY_INPUT_MAX_CHARS);
  });

  it('"output clipped to 1200 runes"', async () => {
    const digestFor = async (reply: string): Promise<string> => {
      const manager = seedManager(TIANCAI, { summarizer: new RecordingSummarizer(() => reply) });
      await manager.append('s', MANY_RESULTS);
      return textOf(digests((await manager.prepare('s')).messages)[0] ?? { parts: [] });
    };
    const long = await digestFor(`${'The agent read files and edited them. '.repeat(200)}`);
    expect(runes(long)).toBeLessThanOrEqual(TIANCAI_SUMMARY_OUTPUT_MAX_CHARS);
    expect(long.length).toBeGreaterThan(TIANCAI_SUMMARY_OUTPUT_MAX_CHARS / 2);
    // Runes, not UTF-16 units: a 1,000-rune reply of emoji (2,000 units) fits and is kept whole.
    const emoji = '✅🔧'.repeat(500);
    expect(await digestFor(emoji)).toBe(emoji);
  });

  it('"Heuristic fallback output is clipped to 800 runes (head-tail style)."', async () => {
    const check = (digest: string) => {
      expect(runes(digest)).toBeLessThanOrEqual(TIANCAI_HEURISTIC_SUMMARY_MAX_CHARS);
      expect(digest).toMatch(/^\[Tool results archived\]/);
      expect(digest).toMatch(/omitted/);
    };
    const heuristic = seedManager(tiancai({ ToolSummaryStrategy: 'heuristic' }));
    await heuristic.append('s', MANY_RESULTS);
    check(textOf(digests((await heuristic.prepare('s')).messages)[0] ?? { parts: [] }));
    // The LLM failing: the same local fallback.
    const failing = seedManager(TIANCAI, {
      summarizer: new RecordingSummarizer(() => new Error('model down')),
    });
    await failing.append('s', MANY_RESULTS);
    check(textOf(digests((await failing.prepare('s')).messages)[0] ?? { parts: [] }));
  });
});

describe('tiancai: session compaction', () => {
  it('"Prefer token-budget split when KeepRecentTokens > 0"', async () => {
    const manager = seedManager(TIANCAI);
    await manager.append('s', PI_TEN_TURNS);
    await manager.stats('s', { contextWindow: 100_000 });
    await manager.compact('s');
    const { log, edits } = await manager.history('s');
    const summarize = edits.find((edit) => edit.type === 'summarize');
    const throughSeq = summarize?.type === 'summarize' ? summarize.throughSeq : -1;
    const kept = log.filter((message) => message.seq > throughSeq);
    const tokens = kept.reduce((sum, message) => sum + seedMessageTokens(message), 0);
    expect(tokens).toBeLessThanOrEqual(TIANCAI_KEEP_RECENT_TOKENS);
    expect(kept.length).toBeGreaterThan(TIANCAI_KEEP_RECENT);
  });

  it('"Otherwise split by KeepRecent message count"', async () => {
    const manager = seedManager(tiancai({ KeepRecentTokens: 0 }));
    const inputs = PI_TEN_TURNS;
    await manager.append('s', inputs);
    await manager.stats('s', FORTY);
    await manager.compact('s');
    const prepared = await manager.prepare('s');
    const own = prepared.messages.filter((message) => message.meta.kind !== 'summary');
    // The newest five messages; when the fifth from the end is a tool result, the call it answers comes
    // with it (a call is never separated from its result).
    let start = inputs.length - TIANCAI_KEEP_RECENT;
    while (start > 0 && inputs[start]?.role === 'tool') start--;
    expect(own.map((message) => message.parts)).toEqual(inputs.slice(start).map((input) => input.parts));
    expect(own.length).toBeGreaterThanOrEqual(TIANCAI_KEEP_RECENT);
  });

  it('"oldMessages are summarized with an LLM prompt into a structured checkpoint"', async () => {
    const requests: ModelRequest[] = [];
    const client: ModelClient = withStreamFromComplete({
      provider: 'fake',
      async complete(request) {
        requests.push(request);
        const text = [
          '## Session intent',
          'Refactor the coding agent around an AgentSession.',
          '## Decisions',
          '- AgentSession owns the model and thinking level',
          '## Next steps',
          '- Implement the remaining work packages',
        ].join('\n');
        const message: Message = {
          id: 'r',
          seq: 0,
          role: 'assistant',
          parts: [{ type: 'text', text }],
          meta: {},
        };
        return { message, usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'stop', model: 'fake' };
      },
    });
    const summarizer = createModelSummarizer({ client, model: 'fake', maxInputTokens: 16_000 });
    const manager = seedManager(TIANCAI, { summarizer });
    await manager.append('s', PI_TEN_TURNS);
    await manager.stats('s', FORTY);
    await manager.compact('s');
    expect(requests).toHaveLength(1);
    // The prompt asks for the checkpoint's sections, in order; the transcript is the older messages.
    expect(requests[0]?.system).toMatch(/## Session intent[\s\S]*## Decisions[\s\S]*## Next steps/);
    expect(allText(requests[0]?.messages ?? [])).toContain('<transcript>');
    const summary = (await manager.stats('s')).summary;
    expect(summary?.producer).toBe('model:fake');
    const prepared = await manager.prepare('s');
    expect(textOf(prepared.messages[0] ?? { parts: [] })).toContain(
      'AgentSession owns the model and thinking level',
    );
  });

  it('"Before summary generation: only AgentVisible messages are projected"', async () => {
    const summarizer = new RecordingSummarizer();
    const manager = seedManager(TIANCAI, { summarizer });
    const inputs = PI_TEN_TURNS;
    const hidden: MessageInput = {
      role: 'user',
      parts: [{ type: 'text', text: 'UI-ONLY NOTE: not for the model' }],
      meta: { agentVisible: false },
    };
    await manager.append('s', [...inputs.slice(0, 20), hidden, ...inputs.slice(20)]);
    await manager.stats('s', FORTY);
    await manager.compact('s');
    const summarized = summarizer.calls[0]?.messages ?? [];
    expect(summarized.length).toBeGreaterThan(20);
    expect(summarized.every((message) => message.meta.agentVisible !== false)).toBe(true);
    expect(allText(summarized)).not.toContain('UI-ONLY NOTE');
  });

  it('"toolResult text is reduced to a max of 1800 runes for summary input"', async () => {
    const requests: ModelRequest[] = [];
    const client: ModelClient = withStreamFromComplete({
      provider: 'fake',
      async complete(request) {
        requests.push(request);
        const message: Message = {
          id: 'r',
          seq: 0,
          role: 'assistant',
          parts: [{ type: 'text', text: '## Session intent\nRefactor.' }],
          meta: {},
        };
        return { message, usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'stop', model: 'fake' };
      },
    });
    const summarizer = createModelSummarizer({ client, model: 'fake', maxInputTokens: 100_000 });
    const manager = seedManager(TIANCAI, { summarizer });
    const inputs = PI_TEN_TURNS;
    await manager.append('s', inputs);
    await manager.stats('s', FORTY);
    await manager.compact('s');
    const prompt = allText(requests[0]?.messages ?? []);
    // The 49,929-character read of main.ts: its opening is in the prompt, not more than 1,800 runes of it.
    const read = resultContents(inputs)[0] ?? '';
    expect(prompt).toContain(read.slice(0, 200));
    expect(prompt).not.toContain(read.slice(0, TIANCAI_SUMMARY_TOOL_RESULT_MAX_CHARS + 1));
  });

  it('"The resulting message list is: 1. one synthetic user message: prefix: [Previous conversation summary] 2. recentMessages"', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    await manager.stats('s', SMALL);
    await manager.compact('s');
    const prepared = await manager.prepare('s', SMALL);
    const [summary, ...recent] = prepared.messages;
    expect(summary?.role).toBe('user');
    expect(textOf(summary ?? { parts: [] })).toMatch(/^\[Previous conversation summary\]\n/);
    const { log, edits } = await manager.history('s');
    const cut = edits.find((edit) => edit.type === 'summarize');
    const throughSeq = cut?.type === 'summarize' ? cut.throughSeq : -1;
    expect(recent.map((message) => message.parts)).toEqual(
      log.filter((message) => message.seq > throughSeq).map((message) => message.parts),
    );
  });

  describe('"Recent-window tool compaction (compactToolResultsInRecent)"', () => {
    const expectDigest = (messages: readonly Message[]) => {
      const digest = messages.find((message) => textOf(message).startsWith('[Compaction tool digest]'));
      expect(digest?.role).toBe('user');
      expect(digest?.meta).toMatchObject({ kind: 'tool_summary', agentVisible: true, userVisible: false });
      expect(visibleResults(messages).length).toBeLessThanOrEqual(TIANCAI_TOOL_CALL_CUTOFF);
    };

    it('"if visible recent tool results exceed cutoff, oldest excess entries are archived" and "one digest message is appended with prefix [Compaction tool digest]" (manual compaction)', async () => {
      const manager = seedManager(TIANCAI);
      await manager.append('s', PI_TEN_TURNS);
      await manager.stats('s', FORTY);
      await manager.compact('s');
      expectDigest((await manager.prepare('s', FORTY)).messages);
    });

    it('the same after the automatic compaction that runs after a turn (ToolSummaryStrategy off, so the loop archived nothing)', async () => {
      const manager = seedManager(tiancai({ ToolSummaryStrategy: 'off' }));
      // The turn ends with the agent's reply.
      await manager.append('s', [
        ...PI_TEN_TURNS,
        { role: 'assistant', parts: [{ type: 'text', text: 'Done.' }] },
      ]);
      await manager.stats('s', FORTY);
      const after = await manager.afterTurn('s');
      expect(after.scheduled).toBe(true);
      await after.done;
      const prepared = await manager.prepare('s', FORTY);
      expect(eventsOfType(prepared.events, 'summary-applied')).toHaveLength(1);
      expectDigest(prepared.messages);
    });
  });
});

describe('tiancai: automatic and recovery compaction paths', () => {
  it('"Auto compaction after turns (Agent.tryAutoCompact) - Runs after each TurnEnd event. - Uses ShouldCompact() thresholds."', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = corpusInputs(TAU_TOOLS);
    let scheduled = 0;
    let applied = 0;
    manager.on((event) => {
      if (event.type === 'summary-scheduled') scheduled++;
      if (event.type === 'summary-applied') applied++;
    });
    const figures: boolean[] = [];
    await replayWithAfterTurn(manager, inputs, SMALL, ({ scheduled: due }) => figures.push(due));
    expect(scheduled).toBe(figures.filter(Boolean).length);
    expect(scheduled).toBeGreaterThan(0);
    expect(applied).toBeGreaterThan(0);
    // Never while the agent is working: prepare alone does not compact below the window.
    const quiet = seedManager(TIANCAI);
    await quiet.append('s', inputs);
    const prepared = await quiet.prepare('s', SMALL);
    expect(
      eventsOfType(prepared.events, 'compaction-finished').filter((event) => event.layer === 'summarize'),
    ).toEqual([]);
  });

  it('"Context-limit recovery in loop (runInnerLoop) - On IsContextLengthExceeded error, compacts and retries once (maxCompactionRecoveries = 1)."', async () => {
    const manager = seedManager(TIANCAI);
    await manager.append('s', PI_TEN_TURNS);
    await manager.prepare('s', FORTY);
    const first = await manager.recover('s', overflowError());
    expect(first.retry).toBe(true);
    const compacted = eventsOfType(first.events, 'compaction-finished').find(
      (event) => event.layer === 'emergency',
    );
    expect(compacted?.reason).toBe('context_overflow');
    expect((await manager.history('s')).edits.some((edit) => edit.type === 'summarize')).toBe(true);
    await manager.prepare('s', FORTY);
    expect((await manager.recover('s', overflowError())).retry).toBe(false);
  });

  it('compaction comes before any drop: pi-mono (979 messages) at 128k with a reply reserve of ReserveTokens is summarized, never cut to fit', async () => {
    // The limit window − ReserveTokens is then exactly the largest request that fits; chars / 4 undercounts
    // this session, so the request as counted stops fitting before the seed's estimate reaches the limit.
    // tiancai would send it, meet the overflow and compact: ctxkit compacts before sending.
    const manager = seedManager(TIANCAI);
    const layers: string[] = [];
    manager.on((event) => {
      if (event.type === 'compaction-finished') layers.push(event.layer);
    });
    const { messages } = loadCorpusSession(LONG_SESSION);
    await replaySession(manager, 's', messages, {
      contextWindow: 128_000,
      maxOutputTokens: TIANCAI_RESERVE_TOKENS,
    });
    expect(layers.filter((layer) => layer === 'summarize').length).toBeGreaterThanOrEqual(2);
    expect(layers.filter((layer) => layer === 'drop' || layer === 'snip')).toEqual([]);
    const { edits } = await manager.history('s');
    expect(edits.filter((edit) => edit.type === 'summarize').length).toBeGreaterThanOrEqual(2);
  });

  it('"Both paths emit compaction start/end events with before/after counts and optional error."', async () => {
    const checkPaired = (events: readonly { type: string; layer?: string }[]) => {
      const started = events.filter((event) => event.type === 'compaction-started').length;
      const finished = events.filter((event) => event.type === 'compaction-finished').length;
      expect(finished).toBeGreaterThan(0);
      expect(started).toBe(finished);
    };
    const cases = [
      { summarizer: new RecordingSummarizer(), failing: false },
      { summarizer: new RecordingSummarizer(() => new Error('model down')), failing: true },
    ];
    for (const { summarizer, failing } of cases) {
      // After a turn.
      const auto = seedManager(TIANCAI, { summarizer });
      const autoEvents: Parameters<Parameters<typeof auto.on>[0]>[0][] = [];
      auto.on((event) => autoEvents.push(event));
      await auto.append('s', PI_TEN_TURNS);
      await auto.stats('s', THIRTY);
      const after = await auto.afterTurn('s');
      expect(after.scheduled).toBe(true);
      await after.done;
      await auto.prepare('s', THIRTY);
      checkPaired(autoEvents);
      // On overflow.
      const reactive = seedManager(TIANCAI, { summarizer });
      const reactiveEvents: Parameters<Parameters<typeof reactive.on>[0]>[0][] = [];
      reactive.on((event) => reactiveEvents.push(event));
      await reactive.append('s', PI_TEN_TURNS);
      await reactive.prepare('s', FORTY);
      await reactive.recover('s', overflowError());
      checkPaired(reactiveEvents);
      for (const event of [...autoEvents, ...reactiveEvents]) {
        if (event.type !== 'compaction-finished') continue;
        expect(event.tokensAfter).toBeLessThanOrEqual(event.tokensBefore);
        expect(event.messagesBefore).toBeGreaterThan(0);
        expect(typeof event.messagesAfter).toBe('number');
      }
      const errors = [...autoEvents, ...reactiveEvents].filter(
        (event) => event.type === 'compaction-finished' && event.error !== undefined,
      );
      if (failing) expect(errors.length).toBeGreaterThan(0);
    }
  });
});

describe('tiancai: token estimation', () => {
  it('"Compactor.EstimateContextTokens() uses: 1. last assistant usage totals (if available and valid), plus 2. estimated tokens for trailing messages"', async () => {
    const manager = seedManager(TIANCAI);
    const inputs = corpusInputs(TAU_TOOLS, 0, 20);
    await manager.append('s', inputs);
    await manager.prepare('s');
    await manager.append('s', [
      { ...assistant('Your reservation is confirmed.'), usage: { inputTokens: 5_000, outputTokens: 200 } },
    ]);
    const trailing = user('a'.repeat(401));
    await manager.append('s', [trailing]);
    const stats = await manager.stats('s');
    expect(stats.tokens.input).toBe(5_000 + 200 + Math.ceil(401 / 4));
  });

  it('"Fallback is full heuristic estimation across visible messages." — "text/thinking/tool-call payload counted by character length", "images approximated as ~1200 tokens", "converted with ceil(chars / 4)"', async () => {
    const manager = seedManager(TIANCAI);
    // pi-mono after its first turn: 50-odd messages of text, thinking, calls and results none of which
    // the normalize layer changes (under 2,000 lines and 50 KiB).
    const transcript = settled(loadCorpusSession(LONG_SESSION).messages.slice(7, 60).map(asInput));
    const image: Part = { type: 'media', mediaType: 'image/png', ref: 'blob:screenshot-1' };
    const withImage: MessageInput = {
      role: 'user',
      parts: [{ type: 'text', text: 'see this screenshot' }, image],
    };
    const { events } = await manager.append('s', [...transcript, withImage]);
    expect(eventsOfType(events, 'tool-output-normalized')).toEqual([]);
    const expected =
      transcript.reduce((sum, message) => sum + seedMessageTokens(message), 0) + seedMessageTokens(withImage);
    expect((await manager.stats('s')).tokens.history).toBe(expected);
    // The pure function the seed names (estimateMessageTokens), on the same figures.
    const counter = createHeuristicCounter(4);
    const options = { messageOverheadTokens: 0, mediaTokens: 1_200 };
    expect(estimateMessageTokens(withImage, counter, options).total).toBe(
      Math.ceil('see this screenshot'.length / 4) + 1_200,
    );
    for (const message of transcript.slice(0, 10)) {
      expect(estimateMessageTokens(message, counter, options).total).toBe(seedMessageTokens(message));
    }
  });
});
