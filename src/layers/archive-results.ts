import type { ArchiveEdit } from '../core/edit.ts';
import type { Message, ToolCallPart, ToolResultPart } from '../core/message.ts';
import { toolResultOf } from '../core/message.ts';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS } from '../core/tokens/token-estimate-options.ts';
import { clipHeadTail } from './clip-text.ts';
import { describeCall, resultHeadline } from './describe-tool-use.ts';
import { type EditOptions, editMeta } from './edit-meta.ts';
import type { LayerInput } from './layer-input.ts';
import { callsByResultIndex, toolNameOf } from './tool-call-lookup.ts';

/**
 * tiancai's `maybeSummarizeToolResults`: while more than `ToolCallCutoff` tool results are visible,
 * the oldest is archived (hidden from the agent, its call with it) and one digest message takes their
 * place. Here the loop is done at once: every result to archive, oldest first, so that exactly the
 * cutoff stays visible. The digest is written by the caller: a model (the engine's job, with the caps
 * below) or `extractiveToolDigest` (tiancai's heuristic fallback). The same planner run on the kept window
 * after a summarize is tiancai's `compactToolResultsInRecent`, with the `[Compaction tool digest]` prefix.
 */

/** tiancai `ToolCallCutoff: 10`. */
export const DEFAULT_TOOL_CALL_CUTOFF = 10;
/** tiancai's model digest: "input clipped to 12000 chars". */
export const MODEL_DIGEST_INPUT_MAX_CHARS = 12_000;
/** tiancai's model digest: "output clipped to 1200 runes". */
export const MODEL_DIGEST_OUTPUT_MAX_CHARS = 1_200;
/** tiancai: "Heuristic fallback output is clipped to 800 runes (head-tail style)". */
export const EXTRACTIVE_DIGEST_MAX_CHARS = 800;
/** Prefix of the digest written while the agent works. */
export const TOOL_RESULTS_ARCHIVED_PREFIX = '[Tool results archived]';
/** tiancai's prefix for the digest of the kept window after a summarize. */
export const COMPACTION_TOOL_DIGEST_PREFIX = '[Compaction tool digest]';
/** Alias the engine uses for the recent-window digest. */
export const RECENT_DIGEST_PREFIX = COMPACTION_TOOL_DIGEST_PREFIX;

export interface ArchiveResultsOptions {
  /** Results visible after archiving (tiancai `ToolCallCutoff`). */
  toolCallCutoff?: number;
}

export interface ArchivePlan {
  /** Log seqs of the results to archive, oldest first. */
  targets: number[];
  /** Those results as the view shows them, aligned with `targets`. */
  results: Message[];
  /** The call each result answers, aligned with `targets` (undefined when the view has none). */
  calls: (ToolCallPart | undefined)[];
  /** Where the digest goes: after the newest log message at which no call is waiting for its result. */
  digestAfterSeq: number;
  /** Agent-visible tokens the archived results and their calls cost now. */
  archivedTokens: number;
}

export function planArchiveResults(
  input: LayerInput,
  options: ArchiveResultsOptions = {},
): ArchivePlan | undefined {
  const cutoff = Math.max(0, options.toolCallCutoff ?? DEFAULT_TOOL_CALL_CUTOFF);
  const messages = input.entries.map((entry) => entry.message);
  const anchor = digestAnchor(input.entries);
  if (anchor === undefined) return undefined;

  const visible: number[] = [];
  input.entries.forEach((entry, index) => {
    if (entry.sourceSeq !== undefined && entry.message.role === 'tool' && toolResultOf(entry.message)) {
      visible.push(index);
    }
  });
  if (visible.length <= cutoff) return undefined;
  // Results after the anchor belong to a batch of calls still being answered: they stay.
  const archivable = visible.filter((index) => (input.entries[index]?.sourceSeq ?? 0) <= anchor);
  const chosen = archivable.slice(0, Math.min(archivable.length, visible.length - cutoff));
  if (chosen.length === 0) return undefined;

  const callOf = callsByResultIndex(messages);
  const plan: ArchivePlan = {
    targets: [],
    results: [],
    calls: [],
    digestAfterSeq: anchor,
    archivedTokens: 0,
  };
  // Call parts hidden with their results, per message: a message left with nothing goes whole.
  const hiddenCalls = new Map<number, number>();
  for (const index of chosen) {
    const entry = input.entries[index];
    if (!entry || entry.sourceSeq === undefined) continue;
    const call = callOf.get(index);
    plan.targets.push(entry.sourceSeq);
    plan.results.push(entry.message);
    plan.calls.push(call?.part);
    plan.archivedTokens += input.entryTokens[index] ?? 0;
    if (call) hiddenCalls.set(call.messageIndex, (hiddenCalls.get(call.messageIndex) ?? 0) + 1);
  }
  for (const [messageIndex, hidden] of hiddenCalls) {
    const message = messages[messageIndex];
    if (!message) continue;
    const emptied = hidden >= message.parts.length;
    plan.archivedTokens += emptied
      ? (input.entryTokens[messageIndex] ?? 0)
      : callPartsTokens(input, message, plan.calls);
  }
  return plan;
}

/** Tokens of the message's call parts that are archived (a message that keeps text keeps its framing). */
function callPartsTokens(
  input: LayerInput,
  message: Message,
  archived: readonly (ToolCallPart | undefined)[],
): number {
  let tokens = 0;
  for (const part of message.parts) {
    if (part.type === 'tool-call' && archived.includes(part)) {
      tokens += input.countTokens(part.callId) + input.countTokens(part.name) + input.countTokens(part.args);
    }
  }
  return tokens;
}

/**
 * The newest log seq after which no tool call is waiting for its result. The digest is a user message:
 * shown between a call and its result, it would end the call's block and orphan the result.
 */
function digestAnchor(entries: LayerInput['entries']): number | undefined {
  const open = new Map<string, number>();
  let anchor: number | undefined;
  for (const entry of entries) {
    // Stand-in results are not the log's: the real result may still come, after the anchor.
    if (entry.sourceSeq === undefined) continue;
    for (const part of entry.message.parts) {
      if (part.type === 'tool-call') open.set(part.callId, (open.get(part.callId) ?? 0) + 1);
      else if (part.type === 'tool-result') {
        const waiting = open.get(part.callId) ?? 0;
        if (waiting <= 1) open.delete(part.callId);
        else open.set(part.callId, waiting - 1);
      }
    }
    if (open.size === 0) anchor = entry.sourceSeq;
  }
  return anchor;
}

export interface ToolDigestOptions {
  /** Runes, head + tail (tiancai: 800). */
  maxChars?: number;
  /** First line of the digest: `[Tool results archived]` while working, `[Compaction tool digest]` after a summarize. */
  prefix?: string;
}

/**
 * tiancai's heuristic digest: per archived result, the tool, its key argument (path, command…) and its
 * first line or error line, clipped head + tail to 800 runes.
 */
export function extractiveToolDigest(
  results: readonly Message[],
  calls: readonly (ToolCallPart | undefined)[] = [],
  options: ToolDigestOptions = {},
): string {
  const lines = [
    `${options.prefix ?? TOOL_RESULTS_ARCHIVED_PREFIX} ${results.length} earlier tool result${
      results.length === 1 ? '' : 's'
    } hidden to save context:`,
  ];
  results.forEach((message, index) => {
    const result = toolResultOf(message);
    if (!result) return;
    const call = callFor(result, calls, index);
    lines.push(`- ${describeCall(toolNameOf(result, call), call)}: ${resultHeadline(result)}`);
  });
  const digest = lines.join('\n');
  return (
    clipHeadTail(digest, {
      maxChars: options.maxChars ?? EXTRACTIVE_DIGEST_MAX_CHARS,
      notice: (omitted) => `\n[… ${omitted} characters of the digest omitted …]\n`,
    }) ?? digest
  );
}

/**
 * What a model digest is written from (tiancai: input clipped to 12,000 characters): each result with its
 * call, the results sharing the room equally so the newest are not crowded out by one huge output.
 */
export function toolDigestInput(
  results: readonly Message[],
  calls: readonly (ToolCallPart | undefined)[] = [],
  options: { maxChars?: number } = {},
): string {
  const maxChars = options.maxChars ?? MODEL_DIGEST_INPUT_MAX_CHARS;
  const separators = 2 * Math.max(0, results.length - 1);
  const share = Math.max(200, Math.floor((maxChars - separators) / Math.max(1, results.length)));
  const blocks: string[] = [];
  results.forEach((message, index) => {
    const result = toolResultOf(message);
    if (!result) return;
    const call = callFor(result, calls, index);
    const header = `### ${describeCall(toolNameOf(result, call), call, 200)}${result.isError ? ' (error)' : ''}`;
    const body =
      clipHeadTail(result.content, {
        maxChars: Math.max(0, share - header.length - 1),
        notice: (omitted) => `\n[… ${omitted} characters omitted …]\n`,
      }) ?? result.content;
    blocks.push(`${header}\n${body}`);
  });
  const text = blocks.join('\n\n');
  return (
    clipHeadTail(text, { maxChars, notice: (omitted) => `\n[… ${omitted} characters omitted …]\n` }) ?? text
  );
}

/** A model's digest held to tiancai's output cap (1,200 runes), head + tail. */
export function clipModelDigest(digest: string, maxChars = MODEL_DIGEST_OUTPUT_MAX_CHARS): string {
  return clipHeadTail(digest, { maxChars, notice: () => '\n[…]\n' }) ?? digest;
}

/** The edit recording a plan and its digest. */
export function archiveEdit(
  plan: ArchivePlan,
  digest: string,
  input: LayerInput,
  options: EditOptions = {},
): ArchiveEdit {
  return {
    ...editMeta(input, {
      layer: options.layer ?? 'archive',
      reason: options.reason ?? 'tool_call_cutoff',
      tokensAfter:
        input.regions.history -
        plan.archivedTokens +
        input.countTokens(digest) +
        DEFAULT_MESSAGE_OVERHEAD_TOKENS,
    }),
    type: 'archive',
    targets: [...plan.targets],
    digest,
    digestAfterSeq: plan.digestAfterSeq,
  };
}

function callFor(
  result: ToolResultPart,
  calls: readonly (ToolCallPart | undefined)[],
  index: number,
): ToolCallPart | undefined {
  const aligned = calls[index];
  if (aligned?.callId === result.callId) return aligned;
  return calls.findLast((call) => call?.callId === result.callId);
}
