import { pointerKeys } from '../core/distinctive-tokens.ts';
import type { EvictEdit, ReplaceArgsEdit } from '../core/edit.ts';
import { type Message, type ToolCallPart, toolResultOf } from '../core/message.ts';
import { projectMessage } from '../core/view/project-view.ts';
import type { BlobStore } from '../store/blob-store.ts';
import type { ClearingProgress } from './layer-progress.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** What offloading reads and writes: the session, where blobs go, ids and time for its edits. */
export interface OffloadContext {
  /** What a pointer keeps of its result, in characters (policy clearing.pointerKeysMaxChars); default 0. */
  pointerKeysMaxChars?: number;
  runtime: SessionRuntime;
  blobs: BlobStore;
  newId: () => string;
  clock: () => number;
}

/** The tool an agent calls to read offloaded content back (the normalize layer names the same one). */
export const READ_OFFLOADED_TOOL = 'read_offloaded';
const FIRST_LINE_CHARS = 60;
/** Argument strings longer than this (a file's whole content, a long patch) are offloaded with their result. */
export const OFFLOAD_ARG_MIN_CHARS = 600;

/**
 * The one line an offloaded result leaves: what it was, its first line, where to read it back, and what
 * it mentions (`pointerKeys`) after the ref, so the ref's bracket is found as the pointer's.
 */
export function offloadPointer(tool: string, tokens: number, gist: string, ref: string, keys = ''): string {
  return `[${tool} output, ~${tokens} tokens, offloaded${gist ? `: ${gist}` : ''} · ${READ_OFFLOADED_TOOL}("${ref}")${keys ? ` · mentions: ${keys}` : ''}]`;
}

/** A typical pointer with keys of `keysMaxChars`, for estimating what offloading saves before it is written. */
export function typicalOffloadPointer(keysMaxChars: number): string {
  return offloadPointer('tool', 1000, 'x'.repeat(40), 'large_tool_results/r1000', 'x'.repeat(keysMaxChars));
}

/**
 * Offload instead of forget: the results clearing picked are stored as blobs (or their existing blob,
 * when they were spilled on arrival, is reused) and each is replaced in the view by a one-line pointer
 * naming the tool, the first line, the size and where to read it back. Nothing the agent saw is lost.
 */
export async function offloadResults(
  context: OffloadContext,
  targets: readonly number[],
): Promise<(EvictEdit | ReplaceArgsEdit)[]> {
  const { runtime } = context;
  const deps = context;
  const entries = runtime.view.entries;
  const edits: (EvictEdit | ReplaceArgsEdit)[] = [];
  let history = runtime.historyTokens;
  for (const seq of targets) {
    const found = entryOfSeq(entries, seq);
    const result = found ? toolResultOf(found.entry.message) : undefined;
    if (!found || !result) continue;
    // A result spilled on arrival keeps its blob, which holds the whole output, whatever the view shows.
    const earlier = runtime.evictions.get(seq);
    const whole = asArrived(runtime, seq) ?? result.content;
    const stored = earlier
      ? { ref: earlier.blobRef, sha256: earlier.sha256, bytes: earlier.bytes }
      : await deps.blobs.put(runtime.id, 'large_tool_results', `r${seq}`, whole);
    const firstLine = (whole.split('\n').find((line) => line.trim().length > 0) ?? '').trim();
    const gist = firstLine.length > FIRST_LINE_CHARS ? `${firstLine.slice(0, FIRST_LINE_CHARS)}…` : firstLine;
    const tokens = runtime.entryTokens[found.index] ?? 0;
    edits.push({
      id: deps.newId(),
      at: deps.clock(),
      type: 'evict',
      layer: 'clear',
      reason: 'context_pressure',
      target: seq,
      blobRef: stored.ref,
      sha256: stored.sha256,
      bytes: stored.bytes,
      content: offloadPointer(
        result.name || 'tool',
        tokens,
        gist,
        stored.ref,
        pointerKeys(whole, context.pointerKeysMaxChars ?? 0),
      ),
      tokensBefore: history,
      tokensAfter: history,
    });
    const planned = edits.at(-1) as EvictEdit;
    planned.tokensAfter = history - tokens + runtime.tokensOf(projectMessage(found.entry.message, [planned]));
    history = planned.tokensAfter;
  }
  return edits;
}

/**
 * A result as the agent first saw it: the log's message with only the on-arrival normalization applied
 * (terminal output rendered, capped). A later layer may have snipped the view's copy to fit; the blob
 * must hold what was there before, or reading it back returns the snip, not the output.
 */
function asArrived(runtime: SessionRuntime, seq: number): string | undefined {
  const logged = runtime.messageAt(seq);
  if (!logged) return undefined;
  const onArrival = runtime.editsOf(seq).filter((edit) => edit.layer === 'normalize' && 'target' in edit);
  return toolResultOf(projectMessage(logged, onArrival))?.content;
}

/**
 * The view entry showing log message `seq`, searched from the newest end: what clearing picks sits
 * just behind the keep window, so a long session is not indexed whole on every call.
 */
function entryOfSeq(
  entries: SessionRuntime['view']['entries'],
  seq: number,
): { entry: SessionRuntime['view']['entries'][number]; index: number } | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry?.sourceSeq === seq) return { entry, index };
  }
  return undefined;
}

/**
 * Calls older than the keep window often carry the bulk (a whole file written, a long patch) while
 * their results are one line: their long string arguments go to a blob, each replaced by a pointer,
 * while short ones (the path, the command) stay where the agent can see them. Arguments that are not
 * a JSON object are offloaded whole. Each call is looked at once, as it leaves the keep window.
 */
export async function offloadStaleArguments(
  context: OffloadContext & { progress: ClearingProgress },
  keepRecent: number,
): Promise<ReplaceArgsEdit[]> {
  const { runtime, progress } = context;
  // Indexes noted in an earlier view version point elsewhere now: look again from the start (cheap,
  // and calls already looked at are skipped).
  const checkedThrough = progress.argsCheckedThrough(runtime.viewVersion);
  const entries = runtime.view.entries;
  // The keep window starts at the keepRecent-th newest tool result.
  let kept = 0;
  let boundary = entries.length;
  for (let index = entries.length - 1; index >= 0 && kept < keepRecent; index--) {
    if (entries[index]?.message.role === 'tool') {
      kept++;
      boundary = index;
    }
  }
  if (kept < keepRecent) return [];
  const edits: ReplaceArgsEdit[] = [];
  const from = Math.min(checkedThrough, boundary);
  for (let index = from; index < boundary; index++) {
    const entry = entries[index];
    if (!entry || entry.sourceSeq === undefined || entry.message.role !== 'assistant') continue;
    for (const part of entry.message.parts) {
      if (part.type !== 'tool-call' || part.args.length < OFFLOAD_ARG_MIN_CHARS) continue;
      const key = `${entry.sourceSeq}:${part.callId}`;
      if (!progress.lookAtArgs(key)) continue;
      const edit = await offloadArguments(context, entry.message, entry.sourceSeq, part);
      if (edit) edits.push(edit);
    }
  }
  progress.noteArgsChecked(boundary);
  return edits;
}

async function offloadArguments(
  context: OffloadContext,
  message: Message,
  seq: number,
  call: ToolCallPart,
): Promise<ReplaceArgsEdit | undefined> {
  const { runtime } = context;
  const deps = context;
  const stored = await deps.blobs.put(
    runtime.id,
    'large_tool_results',
    `a${seq}-${message.parts.indexOf(call)}`,
    call.args,
  );
  const pointer = (chars: number) => `[offloaded ${chars} chars · ${READ_OFFLOADED_TOOL}("${stored.ref}")]`;
  let args: string;
  try {
    const parsed = JSON.parse(call.args) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('not an object');
    let changed = false;
    const kept = Object.fromEntries(
      Object.entries(parsed).map(([key, value]) => {
        if (typeof value !== 'string' || value.length < OFFLOAD_ARG_MIN_CHARS) return [key, value];
        changed = true;
        return [key, pointer(value.length)];
      }),
    );
    if (!changed) return undefined;
    args = JSON.stringify(kept);
  } catch {
    args = JSON.stringify({ ctxkit_offloaded_arguments: pointer(call.args.length) });
  }
  const edit: ReplaceArgsEdit = {
    id: deps.newId(),
    at: deps.clock(),
    type: 'truncate-args',
    layer: 'clear',
    reason: 'context_pressure',
    target: seq,
    callId: call.callId,
    args,
    originalChars: call.args.length,
    tokensBefore: runtime.historyTokens,
    tokensAfter: runtime.historyTokens,
  };
  edit.tokensAfter =
    runtime.historyTokens - runtime.tokensOf(message) + runtime.tokensOf(projectMessage(message, [edit]));
  return edit;
}
