/**
 * Edits: what compaction decided, recorded beside the append-only log. The log is never rewritten; the
 * model's view is `project(log, edits)`. Every edit names the layer that made it, why, and the token
 * figures before and after, so each one can be explained (and undone by dropping it).
 *
 * Targets are log sequence numbers (`Message.seq`), never array indices: the log only grows, so a seq
 * means the same message forever. What each word for making the history smaller means (offload, spill,
 * clear, archive, trim, drop, snip, truncate, compress, hide, reset): GLOSSARY.md beside this file.
 */
import type { ToolInjectionMode } from './tool-definition.ts';

export type LayerName =
  | 'normalize'
  | 'truncate-old'
  | 'clear'
  | 'archive'
  | 'trim'
  | 'summarize'
  | 'drop'
  | 'compress-text'
  | 'emergency'
  | 'snip'
  | 'sync'
  | 'restore'
  | 'manual';

export type EditReason =
  | 'tool_output_limit'
  | 'old_result_limit'
  | 'context_pressure'
  | 'tool_call_cutoff'
  | 'turn_limit'
  | 'message_limit'
  | 'token_budget'
  | 'hook'
  | 'context_overflow'
  | 'manual'
  | 'clear_command'
  | 'history_diverged'
  | 'session_restored';

export interface EditBase {
  id: string;
  /** Epoch ms, from the clock passed in. */
  at: number;
  layer: LayerName;
  reason: EditReason;
  /** Agent-visible history tokens before and after the edit, as the manager estimated them. */
  tokensBefore: number;
  tokensAfter: number;
}

/** Replaces one tool result's content: normalization on arrival, or head+tail truncation of an old result. */
export interface ReplaceResultEdit extends EditBase {
  type: 'truncate-result';
  target: number;
  content: string;
  originalChars: number;
}

/** Replaces one message's text parts with a clipped version (cowagent's emergency caps, digitorn's snip). */
export interface ReplaceTextEdit extends EditBase {
  type: 'truncate-text';
  target: number;
  text: string;
  originalChars: number;
}

/**
 * Replaces the arguments of one tool call with a clipped stand-in (valid JSON naming what was cut): a
 * call whose arguments alone do not fit the window (a whole file written in one call).
 */
export interface ReplaceArgsEdit extends EditBase {
  type: 'truncate-args';
  target: number;
  callId: string;
  args: string;
  originalChars: number;
}

/** Moves one tool result to a blob; a preview plus a pointer the agent can follow stays in view. */
export interface EvictEdit extends EditBase {
  type: 'evict';
  target: number;
  blobRef: string;
  sha256: string;
  bytes: number;
  /** What the model sees in place of the result: preview + pointer. */
  content: string;
}

/** Replaces old tool results with a placeholder (deepagents); the newest ones stay verbatim. */
export interface ClearEdit extends EditBase {
  type: 'clear';
  targets: number[];
  placeholder: string;
  /** Also blank the arguments of the calls that produced them. */
  clearInputs: boolean;
}

/** Hides old tool results from the agent and adds one digest message (tiancai). */
export interface ArchiveEdit extends EditBase {
  type: 'archive';
  targets: number[];
  digest: string;
  /** The digest is shown right after this log message (the newest one when archiving happened). */
  digestAfterSeq: number;
}

/** Each turn in the range keeps only its first user text and its final reply (cowagent). */
export interface CompressTextEdit extends EditBase {
  type: 'compress-text';
  fromSeq: number;
  throughSeq: number;
}

export type SummaryPlacement =
  | 'own-message'
  | 'user-message'
  | 'first-user-message'
  | 'system-message'
  | 'system-prompt';

/** A structured summary, stored apart from history and injected on assembly. */
export interface Summary {
  text: string;
  /** Sections the summarizer filled: intent, decisions, files, errors, plan, next steps… */
  sections: Record<string, string[]>;
  /** Log messages covered: everything with seq ≤ throughSeq. */
  throughSeq: number;
  tokens: number;
  /** Where the summarized transcript was offloaded (deepagents), when it was. */
  historyRef?: string;
  /** Which summarizer produced it: `extractive`, or the model's name. */
  producer: string;
}

/**
 * What an agent had at a compaction, recorded with it so a resumed session picks up with the same
 * tools, memory and tool-call examples (digitorn's durable compaction event).
 */
export interface CompactionSnapshot {
  /**
   * The tools the last request offered: name, first line of the description, and how each reaches the
   * model (digitorn: "current tool inventory + injection mode"). `injection` is absent only in snapshots
   * recorded before it was; read those as `DEFAULT_TOOL_INJECTION`.
   */
  tools: { name: string; description: string; injection?: ToolInjectionMode }[];
  /** Titles of the newest memory notes. */
  memory: string[];
  /** The shapes of the newest distinct tool calls: name and (clipped) arguments. */
  toolExamples: { name: string; args: string }[];
}

/** Everything up to throughSeq is replaced by a summary; later messages stay verbatim. */
export interface SummarizeEdit extends EditBase {
  type: 'summarize';
  throughSeq: number;
  summary: Summary;
  placement: SummaryPlacement;
  snapshot?: CompactionSnapshot;
}

/** Everything up to throughSeq is dropped without a model call; a reminder recaps goal and activity. */
export interface DropEdit extends EditBase {
  type: 'drop';
  throughSeq: number;
  /** Absent when a summary will follow (cowagent's trim: the summary lands a turn later). */
  reminder?: string;
  snapshot?: CompactionSnapshot;
}

/** Clears the context: nothing up to throughSeq is shown, and no summary unless `keepSummary`. */
export interface ResetEdit extends EditBase {
  type: 'reset';
  throughSeq: number;
  keepSummary: boolean;
}

/**
 * Hides log messages from the view wherever they are, not only a prefix (picoclaw's forceCompression on
 * a single turn keeps only its user message: the tool chain after it goes whole). Callers hide a call
 * with its result; the view's pairing repair covers any they do not.
 */
export interface HideEdit extends EditBase {
  type: 'hide';
  targets: number[];
}

/**
 * The caller's history diverged from the log (it dropped or edited messages itself): the log messages it
 * no longer has are hidden, and its own version was appended after them.
 */
export interface BranchEdit extends EditBase {
  type: 'branch';
  hiddenSeqs: number[];
}

export type Edit =
  | BranchEdit
  | ReplaceResultEdit
  | ReplaceTextEdit
  | ReplaceArgsEdit
  | EvictEdit
  | ClearEdit
  | ArchiveEdit
  | CompressTextEdit
  | HideEdit
  | SummarizeEdit
  | DropEdit
  | ResetEdit;

export type EditType = Edit['type'];

/** Edits that cut the history's prefix: the view starts after the newest one's throughSeq. */
export type PrefixEdit = SummarizeEdit | DropEdit | ResetEdit;

export const isPrefixEdit = (edit: Edit): edit is PrefixEdit =>
  edit.type === 'summarize' || edit.type === 'drop' || edit.type === 'reset';

/**
 * The highest seq an edit can change the view of, or null when a view from any point depends on it: the
 * cuts themselves and branches (whose hidden messages shape the caller's history, not only the view).
 * An edit whose reach is below where a view starts changes nothing in it, so a resume can leave it unread.
 */
export function editReach(edit: Edit): number | null {
  switch (edit.type) {
    case 'summarize':
    case 'drop':
    case 'reset':
    case 'branch':
      return null;
    case 'clear':
    case 'hide':
      return Math.max(-1, ...edit.targets);
    case 'archive':
      return Math.max(edit.digestAfterSeq, ...edit.targets);
    case 'compress-text':
      return edit.throughSeq;
    default:
      return edit.target;
  }
}

/** The oldest log message an edit can change the view of; -1 for edits that reach the whole history. */
export function lowestSeqTouched(edit: Edit): number {
  switch (edit.type) {
    case 'summarize':
    case 'drop':
    case 'reset':
    case 'branch':
    case 'compress-text':
      return -1;
    case 'clear':
    case 'hide':
      return Math.min(...edit.targets);
    case 'archive':
      return Math.min(edit.digestAfterSeq, ...edit.targets);
    default:
      return edit.target;
  }
}

/**
 * The first seq a view over these edits can show: one past the newest cut (0 when nothing is cut). A
 * resumed session needs the log's bodies from here on only; the view never reaches further back.
 */
export function firstVisibleSeq(edits: readonly Edit[]): number {
  let through = -1;
  for (const edit of edits) if (isPrefixEdit(edit) && edit.throughSeq > through) through = edit.throughSeq;
  return through + 1;
}
