import type { BudgetRegions } from '../core/budget/context-budget.ts';
import { historyBudget, isOverContextBudget } from '../core/budget/context-budget.ts';
import { measurePressure } from '../core/budget/pressure-measure.ts';
import type { DecisionWindow, TriggerState } from '../core/compaction/decide-compaction.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { countSplice } from '../core/tokens/spliced-units.ts';
import type { LayerInput } from '../layers/layer-input.ts';
import { continuationNote, needsContinuation, reminderPlacementFor } from './assemble-request.ts';
import type { CallContext } from './call-context.ts';
import { snapshotNoteOf } from './restore-session.ts';
import type { SessionRuntime } from './session-runtime.ts';

/**
 * Reading a session's budget for one call: the regions of the request, the pressure in the policy's
 * measure, whether it is over, what the planners see, and the figures the decisions read. It never
 * writes: committing edits is the Compactor's.
 */
export class SessionBudget {
  readonly #runtime: SessionRuntime;
  readonly #call: CallContext;
  readonly #policy: Policy;
  readonly #clock: () => number;
  readonly #newId: () => string;
  readonly #scale: number | undefined;

  /**
   * `scale`: the scale to read the history estimate at, instead of the one a reported overflow left in
   * the session's record (the final guard's, while it refits).
   */
  constructor(options: {
    runtime: SessionRuntime;
    call: CallContext;
    policy: Policy;
    clock: () => number;
    newId: () => string;
    scale?: number;
  }) {
    this.#runtime = options.runtime;
    this.#call = options.call;
    this.#policy = options.policy;
    this.#clock = options.clock;
    this.#newId = options.newId;
    this.#scale = options.scale;
  }

  /** The scale this budget reads the history estimate at (see the constructor's `scale`). */
  scale(): number {
    return this.#scale ?? this.#runtime.progress.overflow.scale;
  }

  /** The call's window as the decisions read it. */
  window(): DecisionWindow {
    const source = this.#call.windowSource;
    return {
      contextWindow: this.#call.contextWindow,
      maxOutputTokens: this.#call.maxOutputTokens,
      known: source !== 'max-context-tokens' && source !== 'unbounded',
      unbounded: source === 'unbounded',
    };
  }

  /** The figures the compaction triggers read, now. */
  triggerState(): TriggerState {
    const { triggers } = this.#runtime.progress;
    return {
      now: this.#clock(),
      pressure: this.pressure(),
      turnsSinceCompaction: triggers.turnsSinceCompaction,
      toolCallsSinceCompaction: triggers.toolCallsSinceCompaction,
      messagesSinceCut: this.#runtime.messagesSinceCut(),
      hookFiredAt: triggers.hookFiredAt,
    };
  }

  /** Tokens of the summary region as assembled (summary block + reminder). */
  summaryTokens(): number {
    const { summary, reminder } = this.#runtime.view;
    let tokens = 0;
    if (summary) tokens += summary.tokens + this.#call.counter.count(this.#policy.summarize.prefix) + 4;
    if (reminder) tokens += this.#noteTokens(reminder);
    return tokens;
  }

  /**
   * Of the summary region, what memory and snapshot notes take (digitorn's resume note, carrying the
   * memory snapshot and the tools): stats report it apart, as `memory`.
   */
  memoryTokens(): number {
    const note = snapshotNoteOf(this.#runtime.view);
    return note ? this.#noteTokens(note) : 0;
  }

  /** A note of its own in the request: its text and the framing of a message. */
  #noteTokens(text: string): number {
    return this.#call.counter.count(text) + 4;
  }

  /** Budget regions now; memoized until the history, the view or the estimate's scale changes. */
  regions(): BudgetRegions {
    const runtime = this.#runtime;
    const scale = this.scale();
    const key = `${runtime.editCount}:${runtime.historyTokens}:${scale}:${runtime.view.entries.length}`;
    if (this.#regions && this.#regionsKey === key) return this.#regions;
    this.#regionsKey = key;
    this.#regions = this.#computeRegions(scale);
    return this.#regions;
  }

  #regions: BudgetRegions | undefined;
  #regionsKey = '';

  #computeRegions(scale: number): BudgetRegions {
    return {
      contextWindow: this.#call.contextWindow,
      maxOutputTokens: this.#call.maxOutputTokens,
      system: this.#call.systemTokens,
      toolDefinitions: this.#call.toolTokens,
      summary: this.summaryTokens(),
      history:
        scale > 1
          ? this.scaledHistoryTokens(scale)
          : this.#runtime.estimatedHistoryTokens(this.#policy.tokens.anchorOnUsage) +
            this.continuationTokens(),
    };
  }

  /**
   * The history estimate a scale multiplies. A scale says the request was larger than estimated (a
   * reported overflow, or the final guard's count), so an anchor on reported usage that reads below our
   * own count is not believed then: scaling an anchored 0 would stay 0 and cut nothing.
   */
  scaledHistoryTokens(scale: number): number {
    const runtime = this.#runtime;
    const estimate = Math.max(
      runtime.estimatedHistoryTokens(this.#policy.tokens.anchorOnUsage),
      runtime.estimatedHistoryTokens(false),
    );
    return Math.ceil(estimate * scale) + this.continuationTokens();
  }

  /**
   * The regions as counted, for what stats report: `regions()` without the scale a reported overflow
   * (or the final guard) puts on the history estimate. That scale makes the layers cut deeper; it is
   * not what the request holds, and once they have cut, the request is what they made.
   */
  countedRegions(): BudgetRegions {
    return this.scale() === 1 ? this.regions() : this.#computeRegions(1);
  }

  /** The continuation note assembly puts first when the history would start with the assistant. */
  continuationTokens(): number {
    const { entries, summary, reminder } = this.#runtime.view;
    const first = entries.find((entry) => entry.message.meta.kind !== 'system_note')?.message;
    if (!first) return 0;
    const { placement } = this.#policy.summarize;
    const needed = needsContinuation({
      first,
      hasUserMessage: () => entries.some((entry) => entry.message.role === 'user'),
      summary,
      placement,
      reminder,
      reminderPlacement: reminderPlacementFor(placement),
    });
    return needed ? this.#runtime.tokensOf(continuationNote(entries[0]?.message.seq ?? 0)) : 0;
  }

  inputTokens(): number {
    const regions = this.regions();
    return regions.system + regions.toolDefinitions + regions.summary + regions.history;
  }

  /** Pressure in the policy's own measure (budget.pressureOf), the figure its thresholds are fractions of. */
  pressure(): number {
    return measurePressure(this.#policy.budget.pressureOf, this.regions());
  }

  overBudget(): boolean {
    return isOverContextBudget(this.regions()) || this.inputTokens() > this.tokenBudget();
  }

  /** cowagent: an absolute token budget for the context that applies whatever the window (50,000). */
  tokenBudget(): number {
    const { budget } = this.#policy;
    return budget.maxContextTokens > 0 && budget.maxContextTokensWhen === 'always'
      ? budget.maxContextTokens
      : Number.POSITIVE_INFINITY;
  }

  /**
   * Tokens the view's entries may take: the history budget less what the history estimate adds to them
   * (stand-ins for calls still open, a continuation note, what reported usage says our count misses),
   * divided by the scale a reported overflow left.
   */
  entryBudget(): number {
    const runtime = this.#runtime;
    // A cut may leave the history starting with the assistant: room for the continuation note is kept.
    const note = runtime.tokensOf(continuationNote(0));
    // Usage anchoring the estimate above our own count is honoured: planners count entries our way.
    const added =
      Math.max(
        runtime.estimatedHistoryTokens(false),
        runtime.estimatedHistoryTokens(this.#policy.tokens.anchorOnUsage),
      ) - runtime.historyTokens;
    const regions = this.regions();
    // An absolute budget below the window (cowagent's agent_max_context_tokens) caps the history as well.
    const underCap = this.tokenBudget() - regions.system - regions.toolDefinitions - regions.summary;
    const available = Math.min(historyBudget(regions), underCap) - note;
    return Math.max(0, Math.floor(available / this.scale()) - added);
  }

  /** History tokens left in view after a cut through `throughSeq` (what a prefix edit plans to leave). */
  historyAfterCut(throughSeq: number): number {
    const { view, entryTokens } = this.#runtime;
    let left = 0;
    for (let index = view.entries.length - 1; index >= 0; index--) {
      const seq = view.entries[index]?.sourceSeq;
      if (seq !== undefined && seq <= throughSeq) break;
      left += entryTokens[index] ?? 0;
    }
    return left;
  }

  /** What each layer planner sees. */
  input(): LayerInput {
    const runtime = this.#runtime;
    return {
      view: runtime.view,
      entries: runtime.view.entries,
      entryTokens: runtime.entryTokens,
      regions: this.regions(),
      countTokens: (text) => runtime.shortCounts.count(text, this.#call.counter),
      countSplice: (source, splice) => countSplice(this.#call.counter, source, splice),
      now: this.#clock(),
      newId: this.#newId,
    };
  }
}
