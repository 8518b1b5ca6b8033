import type { EditReason, Summary } from '../core/edit.ts';
import { type Message, toolCallsOf } from '../core/message.ts';
import type { SummaryReport } from '../core/summary-report.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { startsTurn } from '../core/turns/parse-turn-boundaries.ts';
import type { AssembledRequest } from './assemble-request.ts';

/**
 * What each step of the engine remembers of a session between calls, one record per step, each written
 * only by its own step (and read by the decisions). The session runtime itself holds the log, the edits,
 * the view and their counts; none of this.
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
    this.truncateOld.checkedTurns = -1;
    this.truncateOld.checkedThroughSeq = undefined;
    this.clearing.settledBelowSeq = 0;
    this.clearing.blocked = undefined;
    this.clearing.argsChecked = { viewVersion: -1, through: 0 };
    this.clearing.argsLookedAt.clear();
  }
}

/** The figures count-based hook conditions read: activity since the last compaction, and when hooks fired. */
export class TriggerCounts {
  toolCallsSinceCompaction = 0;
  turnsSinceCompaction = 0;
  readonly hookFiredAt = new Map<string, number>();

  /** A message joined the log. */
  noteMessage(message: Message): void {
    this.toolCallsSinceCompaction += toolCallsOf(message).length;
    if (startsTurn(message)) this.turnsSinceCompaction++;
  }

  /** A compaction happened: the conditions that count since the last one start again. */
  noteCompaction(): void {
    this.toolCallsSinceCompaction = 0;
    this.turnsSinceCompaction = 0;
  }

  noteFired(hookId: string, at: number): void {
    this.hookFiredAt.set(hookId, at);
  }
}

/** The reactive path's record: overflows in a row, and by how much our count undershot the provider's. */
export class OverflowRecord {
  /** Overflows reported since the last reported usage. */
  overflows = 0;
  /**
   * How much the provider's count exceeded ours when it reported an overflow: history estimates are
   * multiplied by it until reported usage shows the estimate is right again. A ratio, not a token
   * figure, so it shrinks with the history it is applied to. The final guard raises it while it refits.
   */
  scale = 1;
  /**
   * The history of the last request `prepare` returned, as counted (unscaled): what a provider's
   * overflow figures measure, even when `recover` is called again before the next `prepare`.
   */
  preparedHistoryTokens: number | undefined;
  /** The last request `prepare` returned, as sent: what an overflow reported next was reported for. */
  prepared: SentRequest | undefined;
  /**
   * The request a provider reported an overflow for (with its count of it, when the error gave one),
   * until the retry after it is prepared: that retry must be smaller (`guard-retry.ts`).
   */
  overflowed: (SentRequest & { reportedInput: number | undefined }) | undefined;
  /** Windows adopted from overflow errors since the last reported usage. */
  windowsAdopted = 0;
  /**
   * The window an overflow error named for a model, below the one its requests were prepared for: the
   * session's window for that model from now on (a server loaded with less than its profile says).
   */
  adoptedWindow: AdoptedWindow | undefined;

  /** The provider reported usage: the request fitted, the estimate is trusted again. */
  noteUsage(): void {
    this.overflows = 0;
    this.scale = 1;
    this.overflowed = undefined;
    this.windowsAdopted = 0;
  }

  /** An overflow the emergency path answers: returns which one in a row it is. */
  noteOverflowAttempt(): number {
    this.overflows++;
    return this.overflows;
  }

  adoptWindow(window: AdoptedWindow): void {
    this.adoptedWindow = window;
    this.windowsAdopted++;
  }
}

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
  checkedTurns = -1;
  checkedThroughSeq: number | undefined;
}

/** The clearing layer's record, so a long session does not rescan what it has settled. */
export class ClearingProgress {
  /** Results below this log seq were settled by a clearing that looked at every candidate, under `settledWith`. */
  settledBelowSeq = 0;
  /** The counter `settledBelowSeq` was measured with: "too small to free anything" depends on it. */
  settledWith: TokenCounter | undefined;
  /** A clearing that could not free enough: not planned again before the history grows past this. */
  blocked: { edits: number; untilHistory: number } | undefined;
  /** Results clearing offloaded to pointers (never picked again); read from the edits on first use. */
  offloaded: Set<number> | undefined;
  /** View entries before `through` had their stale arguments looked at, in view version `viewVersion`. */
  argsChecked = { viewVersion: -1, through: 0 };
  /** Tool calls (`seq:callId`) whose arguments were looked at for offloading, whatever came of it. */
  readonly argsLookedAt = new Set<string>();
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
  pending: PendingSummary | undefined;
  /** The offloaded transcript as last written (`conversation_history/<session>.md`), through this seq. */
  transcript: { throughSeq: number; text: string } | undefined;
}
