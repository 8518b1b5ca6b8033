import type { EditReason, Summary } from '../core/edit.ts';
import { type Message, toolCallsOf } from '../core/message.ts';
import type { SummaryReport } from '../core/summary-report.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { startsTurn } from '../core/turns/parse-turn-boundaries.ts';
import type { AssembledRequest } from './assemble-request.ts';

/**
 * What each step of the engine remembers of a session between calls, one record per step, each changed
 * only through its own methods, which its step calls (the decisions read it). The session runtime itself
 * holds the log, the edits, the view and their counts; none of this.
 */
export class LayerProgress {
  readonly triggers = new TriggerCounts();
  readonly overflow = new OverflowRecord();
  readonly truncateOld = new TruncateOldProgress();
  readonly clearing = new ClearingProgress();
  readonly summaries = new SummaryProgress();

  /**
   * The session's policy changed: what the cheap layers settled under the old settings (results checked
   * against the old cap, clearings found not worth it under the old minimum) is looked at again, as it is
   * after a reload. Counts since the last compaction, the overflow record and the background summary stay.
   */
  policyChanged(): void {
    this.truncateOld.policyChanged();
    this.clearing.policyChanged();
  }
}

/** The figures count-based hook conditions read: activity since the last compaction, and when hooks fired. */
export class TriggerCounts {
  #toolCallsSinceCompaction = 0;
  #turnsSinceCompaction = 0;
  readonly #hookFiredAt = new Map<string, number>();

  get toolCallsSinceCompaction(): number {
    return this.#toolCallsSinceCompaction;
  }

  get turnsSinceCompaction(): number {
    return this.#turnsSinceCompaction;
  }

  get hookFiredAt(): ReadonlyMap<string, number> {
    return this.#hookFiredAt;
  }

  /** A message joined the log. */
  noteMessage(message: Message): void {
    this.#toolCallsSinceCompaction += toolCallsOf(message).length;
    if (startsTurn(message)) this.#turnsSinceCompaction++;
  }

  /** A compaction happened: the conditions that count since the last one start again. */
  noteCompaction(): void {
    this.#toolCallsSinceCompaction = 0;
    this.#turnsSinceCompaction = 0;
  }

  noteFired(hookId: string, at: number): void {
    this.#hookFiredAt.set(hookId, at);
  }
}

/** The reactive path's record: overflows in a row, and by how much our count undershot the provider's. */
export class OverflowRecord {
  #overflows = 0;
  #scale = 1;
  #preparedHistoryTokens: number | undefined;
  #prepared: SentRequest | undefined;
  #overflowed: OverflowedRequest | undefined;
  #windowsAdopted = 0;
  #adoptedWindow: AdoptedWindow | undefined;

  /** Overflows reported since the last reported usage. */
  get overflows(): number {
    return this.#overflows;
  }

  /**
   * How much the provider's count exceeded ours when it reported an overflow: history estimates are
   * multiplied by it until reported usage shows the estimate is right again. A ratio, not a token
   * figure, so it shrinks with the history it is applied to. The final guard reads the budget at a
   * higher scale of its own while it refits (`Compactor.withScale`); this one stays as it is.
   */
  get scale(): number {
    return this.#scale;
  }

  /**
   * The history of the last request `prepare` returned, as counted (unscaled): what a provider's
   * overflow figures measure, even when `recover` is called again before the next `prepare`.
   */
  get preparedHistoryTokens(): number | undefined {
    return this.#preparedHistoryTokens;
  }

  /** The last request `prepare` returned, as sent: what an overflow reported next was reported for. */
  get prepared(): SentRequest | undefined {
    return this.#prepared;
  }

  /**
   * The request a provider reported an overflow for (with its count of it, when the error gave one),
   * until the retry after it is prepared: that retry must be smaller (`guard-retry.ts`).
   */
  get overflowed(): OverflowedRequest | undefined {
    return this.#overflowed;
  }

  /** Windows adopted from overflow errors since the last reported usage. */
  get windowsAdopted(): number {
    return this.#windowsAdopted;
  }

  /**
   * The window an overflow error named for a model, below the one its requests were prepared for: the
   * session's window for that model from now on (a server loaded with less than its profile says).
   */
  get adoptedWindow(): AdoptedWindow | undefined {
    return this.#adoptedWindow;
  }

  /** `prepare` returned `request`, whose history our own count put at `historyTokens`. */
  notePrepared(request: SentRequest, historyTokens: number): void {
    this.#preparedHistoryTokens = historyTokens;
    this.#prepared = request;
  }

  /**
   * A provider reported an overflow for the last request prepared: history estimates are scaled by
   * `scale` from now on, and the retry must be smaller than that request (`reportedInput`: the
   * provider's count of it, when the error gave one).
   */
  noteOverflowed(scale: number, reportedInput: number | undefined): void {
    this.#scale = scale;
    if (this.#prepared) this.#overflowed = { ...this.#prepared, reportedInput };
  }

  /** The request that overflowed, for the retry being prepared now: the record forgets it. */
  takeOverflowed(): OverflowedRequest | undefined {
    const overflowed = this.#overflowed;
    this.#overflowed = undefined;
    return overflowed;
  }

  /** The provider reported usage: the request fitted, the estimate is trusted again. */
  noteUsage(): void {
    this.#overflows = 0;
    this.#scale = 1;
    this.#overflowed = undefined;
    this.#windowsAdopted = 0;
  }

  /** An overflow the emergency path answers: returns which one in a row it is. */
  noteOverflowAttempt(): number {
    this.#overflows++;
    return this.#overflows;
  }

  adoptWindow(window: AdoptedWindow): void {
    this.#adoptedWindow = window;
    this.#windowsAdopted++;
  }
}

/** A request a provider reported an overflow for, with its count of it when the error gave one. */
export type OverflowedRequest = SentRequest & { reportedInput: number | undefined };

/** A window learned from an overflow error, for the model the request named (undefined: none named). */
export interface AdoptedWindow {
  model: string | undefined;
  contextWindow: number;
}

/** A request as `prepare` returned it, and where the log stood then (a retry appends nothing). */
export interface SentRequest {
  request: AssembledRequest;
  tools: readonly ToolDefinition[];
  nextSeq: number;
}

/** truncate-old (cowagent): the turn count when it last looked, and the newest old result it looked at. */
export class TruncateOldProgress {
  #checkedTurns = -1;
  #checkedThroughSeq: number | undefined;

  get checkedTurns(): number {
    return this.#checkedTurns;
  }

  get checkedThroughSeq(): number | undefined {
    return this.#checkedThroughSeq;
  }

  /** truncate-old looked at `turns` turns, at old results through `throughSeq` (undefined: none newer). */
  noteChecked(turns: number, throughSeq: number | undefined): void {
    this.#checkedThroughSeq = throughSeq ?? this.#checkedThroughSeq;
    this.#checkedTurns = turns;
  }

  /** The policy changed: every old result is looked at again. */
  policyChanged(): void {
    this.#checkedTurns = -1;
    this.#checkedThroughSeq = undefined;
  }
}

/** The clearing layer's record, so a long session does not rescan what it has settled. */
export class ClearingProgress {
  #settledBelowSeq = 0;
  #settledWith: TokenCounter | undefined;
  #blocked: { edits: number; untilHistory: number } | undefined;
  #offloaded: Set<number> | undefined;
  #argsChecked = { viewVersion: -1, through: 0 };
  readonly #argsLookedAt = new Set<string>();

  /** Results below this log seq were settled by a clearing that looked at every candidate, under `settledWith`. */
  get settledBelowSeq(): number {
    return this.#settledBelowSeq;
  }

  /** The counter `settledBelowSeq` was measured with: "too small to free anything" depends on it. */
  get settledWith(): TokenCounter | undefined {
    return this.#settledWith;
  }

  /** A clearing that could not free enough: not planned again before the history grows past this. */
  get blocked(): { readonly edits: number; readonly untilHistory: number } | undefined {
    return this.#blocked;
  }

  /** Results clearing offloaded to pointers (never picked again); undefined until `readOffloaded`. */
  get offloaded(): ReadonlySet<number> | undefined {
    return this.#offloaded;
  }

  /** Clearing measures with `counter`: what was settled under another counter is looked at again. */
  measureWith(counter: TokenCounter): void {
    if (this.#settledWith === counter) return;
    this.#settledBelowSeq = 0;
    this.#settledWith = counter;
  }

  /** The results clearing offloaded, read from the edits (`read`) the first time they are asked for. */
  readOffloaded(read: () => Iterable<number>): ReadonlySet<number> {
    this.#offloaded ??= new Set(read());
    return this.#offloaded;
  }

  /** Clearing offloaded the result at `seq` to a pointer. */
  noteOffloaded(seq: number): void {
    this.#offloaded ??= new Set();
    this.#offloaded.add(seq);
  }

  /** Every candidate below `seq` is settled: the next plan starts there. */
  settleBelow(seq: number): void {
    this.#settledBelowSeq = Math.max(this.#settledBelowSeq, seq);
  }

  /** A clearing could not free enough: none is planned before the history grows past `untilHistory`. */
  block(edits: number, untilHistory: number): void {
    this.#blocked = { edits, untilHistory };
  }

  unblock(): void {
    this.#blocked = undefined;
  }

  /**
   * Where looking at stale arguments goes on from, in view version `viewVersion`: view entries before it
   * were looked at. Indexes noted in an earlier version point elsewhere now: from the start then.
   */
  argsCheckedThrough(viewVersion: number): number {
    if (this.#argsChecked.viewVersion !== viewVersion) this.#argsChecked = { viewVersion, through: 0 };
    return this.#argsChecked.through;
  }

  /** View entries before `through` had their stale arguments looked at (in the version last asked about). */
  noteArgsChecked(through: number): void {
    this.#argsChecked.through = Math.max(this.#argsChecked.through, through);
  }

  /**
   * Notes that the arguments of a tool call (`seq:callId`) are looked at for offloading, whatever comes of
   * it; false when they were looked at already.
   */
  lookAtArgs(key: string): boolean {
    if (this.#argsLookedAt.has(key)) return false;
    this.#argsLookedAt.add(key);
    return true;
  }

  /** The policy changed: what clearing settled under the old settings is looked at again. */
  policyChanged(): void {
    this.#settledBelowSeq = 0;
    this.#blocked = undefined;
    this.#argsChecked = { viewVersion: -1, through: 0 };
    this.#argsLookedAt.clear();
  }
}

/** A summarization running in the background (the async path); applied whole by a later prepare, or not at all. */
export interface PendingSummary {
  throughSeq: number;
  promise: Promise<void>;
  settled: boolean;
  result?: Summary;
  error?: unknown;
  /** What to do with the result: a summarize edit (async path) or attach to a trim's drop (cowagent). */
  purpose: 'summarize' | 'trim';
  /** The session's turn count when it started: a trim's summary shows from the next turn on. */
  startedInTurn: number;
  /** Why it was started (a hook, pressure, the message count, the turn limit): the edit's reason. */
  reason: EditReason;
  /**
   * The summarizer calls it made, reported while it ran: the call that started it has already returned its
   * events, so a later call's events carry them as `summary-generated`, whatever becomes of the summary.
   */
  reports: SummaryReport[];
}

/** The summarize layer's record: the summary running in the background, the transcript last offloaded. */
export class SummaryProgress {
  #pending: PendingSummary | undefined;
  #transcript: { throughSeq: number; text: string } | undefined;

  get pending(): Readonly<PendingSummary> | undefined {
    return this.#pending;
  }

  /** The offloaded transcript as last written (`conversation_history/<session>.md`), through this seq. */
  get transcript(): { readonly throughSeq: number; readonly text: string } | undefined {
    return this.#transcript;
  }

  /** A summary started in the background (it replaces one no longer waited for). */
  startPending(pending: PendingSummary): void {
    this.#pending = pending;
  }

  /** The background summary was taken up (applied, or dropped as stale). */
  clearPending(): void {
    this.#pending = undefined;
  }

  noteTranscript(throughSeq: number, text: string): void {
    this.#transcript = { throughSeq, text };
  }
}
