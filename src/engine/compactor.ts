import type { BudgetRegions } from '../core/budget/context-budget.ts';
import { isOverContextBudget } from '../core/budget/context-budget.ts';
import { clampKeepRecentTokens, effectiveTokenLimit } from '../core/budget/effective-token-limit.ts';
import { measurePressure } from '../core/budget/pressure-measure.ts';
import type { CompactionSnapshot, Edit, EditReason, LayerName, Summary } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { MemorySink } from '../core/memory-sink.ts';
import type { Message } from '../core/message.ts';
import { effectiveHooks } from '../core/policy/effective-hooks.ts';
import type { Hook, Policy } from '../core/policy/policy-schema.ts';
import type { SummaryReport } from '../core/summary-report.ts';
import { historyAsShown } from '../core/view/history-as-shown.ts';
import {
  archiveEdit,
  extractiveToolDigest,
  planArchiveResults,
  RECENT_DIGEST_PREFIX,
} from '../layers/archive-results.ts';
import { buildContextReminder } from '../layers/drop-with-reminder.ts';
import { appendCompressionNote, COMPRESSION_NOTE_PRODUCER } from '../layers/halve-turns.ts';
import type { LayerInput } from '../layers/layer-input.ts';
import { planRecentSplit, type RecentSplit, type SplitOptions } from '../layers/split-recent.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { cutToTokens } from '../summarize/cut-text.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import { continuationNote, needsContinuation, reminderPlacementFor } from './assemble-request.ts';
import type { CallContext } from './call-context.ts';
import { snapshotNoteOf, takeSnapshot } from './restore-session.ts';
import type { SessionRuntime } from './session-runtime.ts';
import { reportSummariesTo, type SummaryPurpose } from './summary-events.ts';
import { extendTranscript } from './transcript-markdown.ts';

/** A compaction never repeats more than this many times in a row without the history shrinking. */
export const MAX_CONSECUTIVE_COMPACTIONS = 6;
/** digitorn's context reminder: a recap, not a transcript. */
export const REMINDER_MAX_CHARS = 2_000;

export interface CompactorDeps {
  runtime: SessionRuntime;
  call: CallContext;
  policy: Policy;
  summarizer: Summarizer;
  blobs: BlobStore;
  memory: MemorySink;
  clock: () => number;
  newId: () => string;
  commitEdits: (edits: Edit[]) => Promise<void>;
  /** The session's whole log (a resumed session holds only its recent part in memory). */
  wholeLog: () => Promise<readonly Message[]>;
}

export interface CompactPrefixOptions {
  strategy: 'summarize' | 'drop';
  reason: EditReason;
  layer: LayerName;
  /** Messages kept verbatim, overriding the policy's keep rules (a hook's keep_recent). */
  keepRecentMessages?: number;
  /** Keep rules replacing the policy's entirely (emergency paths). */
  keep?: SplitOptions;
  summaryMaxTokens?: number;
  instructions?: string;
}

/** A summary's cap in tokens when the policy sets none (`summarize.maxSummaryTokens` 0). */
export const DEFAULT_SUMMARY_MAX_TOKENS = 2_048;

/**
 * Runs layers against one session for one call: builds their input, commits what they plan as edits
 * (each with compaction-started/finished events), and escalates, cheapest first, until the request fits.
 */
export class Compactor {
  readonly events: ContextEvent[] = [];
  readonly deps: CompactorDeps;

  constructor(deps: CompactorDeps) {
    this.deps = deps;
  }

  get runtime(): SessionRuntime {
    return this.deps.runtime;
  }

  get policy(): Policy {
    return this.deps.policy;
  }

  get call(): CallContext {
    return this.deps.call;
  }

  /** The policy's hooks plus the auto-compact hook (digitorn), for this call's window; computed once. */
  hooks(): Hook[] {
    const key = `${this.call.contextWindow}:${this.call.maxOutputTokens}`;
    const cached = this.runtime.hooksFor;
    if (cached && cached.key === key) return cached.hooks;
    const hooks = effectiveHooks(this.policy, {
      contextWindow: this.call.contextWindow,
      maxOutputTokens: this.call.maxOutputTokens,
      known: this.call.windowSource !== 'max-context-tokens' && this.call.windowSource !== 'unbounded',
    });
    this.runtime.hooksFor = { key, hooks };
    return hooks;
  }

  /** Tokens of the summary region as assembled (summary block + reminder). */
  summaryTokens(): number {
    const { summary, reminder } = this.runtime.view;
    let tokens = 0;
    if (summary) tokens += summary.tokens + this.call.counter.count(this.policy.summarize.prefix) + 4;
    if (reminder) tokens += this.noteTokens(reminder);
    return tokens;
  }

  /**
   * Of the summary region, what memory and snapshot notes take (digitorn's resume note, carrying the
   * memory snapshot and the tools): stats report it apart, as `memory`.
   */
  memoryTokens(): number {
    const note = snapshotNoteOf(this.runtime.view);
    return note ? this.noteTokens(note) : 0;
  }

  /** A note of its own in the request: its text and the framing of a message. */
  private noteTokens(text: string): number {
    return this.call.counter.count(text) + 4;
  }

  /** Budget regions now; memoized until the history or the view changes. */
  regions(): BudgetRegions {
    const key = `${this.runtime.editCount}:${this.runtime.historyTokens}:${this.runtime.overflowScale}:${this.runtime.view.entries.length}`;
    if (this.#regions && this.#regionsKey === key) return this.#regions;
    this.#regionsKey = key;
    this.#regions = this.computeRegions();
    return this.#regions;
  }

  #regions: BudgetRegions | undefined;
  #regionsKey = '';

  private computeRegions(scale = this.runtime.overflowScale): BudgetRegions {
    return {
      contextWindow: this.call.contextWindow,
      maxOutputTokens: this.call.maxOutputTokens,
      system: this.call.systemTokens,
      toolDefinitions: this.call.toolTokens,
      summary: this.summaryTokens(),
      history:
        Math.ceil(this.runtime.estimatedHistoryTokens(this.policy.tokens.anchorOnUsage) * scale) +
        this.continuationTokens(),
    };
  }

  /**
   * The regions as counted, for what stats report: `regions()` without the scale a reported overflow
   * (or the final guard) puts on the history estimate. That scale makes the layers cut deeper; it is
   * not what the request holds, and once they have cut, the request is what they made.
   */
  countedRegions(): BudgetRegions {
    return this.runtime.overflowScale === 1 ? this.regions() : this.computeRegions(1);
  }

  /** The continuation note assembly puts first when the history would start with the assistant. */
  continuationTokens(): number {
    const { entries, summary, reminder } = this.runtime.view;
    const first = entries.find((entry) => entry.message.meta.kind !== 'system_note')?.message;
    if (!first) return 0;
    const { placement } = this.policy.summarize;
    const needed = needsContinuation({
      first,
      hasUserMessage: () => entries.some((entry) => entry.message.role === 'user'),
      summary,
      placement,
      reminder,
      reminderPlacement: reminderPlacementFor(placement),
    });
    return needed ? this.runtime.tokensOf(continuationNote(entries[0]?.message.seq ?? 0)) : 0;
  }

  inputTokens(): number {
    const regions = this.regions();
    return regions.system + regions.toolDefinitions + regions.summary + regions.history;
  }

  /** Pressure in the policy's own measure (budget.pressureOf), the figure its thresholds are fractions of. */
  pressure(): number {
    return measurePressure(this.policy.budget.pressureOf, this.regions());
  }

  overBudget(): boolean {
    return isOverContextBudget(this.regions()) || this.inputTokens() > this.tokenBudget();
  }

  /** cowagent: an absolute token budget for the context that applies whatever the window (50,000). */
  tokenBudget(): number {
    const { budget } = this.policy;
    return budget.maxContextTokens > 0 && budget.maxContextTokensWhen === 'always'
      ? budget.maxContextTokens
      : Number.POSITIVE_INFINITY;
  }

  /** What each layer planner sees. */
  input(): LayerInput {
    return {
      view: this.runtime.view,
      entries: this.runtime.view.entries,
      entryTokens: this.runtime.entryTokens,
      regions: this.regions(),
      countTokens: (text) => this.runtime.shortCounts.count(text, this.call.counter),
      now: this.deps.clock(),
      newId: this.deps.newId,
    };
  }

  /** Commits edits made by one layer, with the events that say what it did. */
  async apply(edits: Edit[], layer: LayerName, reason: EditReason, error?: string): Promise<boolean> {
    if (edits.length === 0) return false;
    const tokensBefore = this.runtime.historyTokens;
    const messagesBefore = this.runtime.view.entries.length;
    const at = this.deps.clock();
    this.events.push({
      type: 'compaction-started',
      sessionId: this.runtime.id,
      at,
      reason,
      layer,
      tokensBefore,
      messagesBefore,
    });
    await this.deps.commitEdits(edits);
    // Measured, for the event; the edits keep the planners' figures, exactly as they were stored.
    const tokensAfter = this.runtime.historyTokens;
    this.runtime.noteCompaction();
    this.events.push({
      type: 'compaction-finished',
      sessionId: this.runtime.id,
      at: this.deps.clock(),
      reason,
      layer,
      tokensBefore,
      tokensAfter,
      messagesBefore,
      messagesAfter: this.runtime.view.entries.length,
      editIds: edits.map((edit) => edit.id),
      ...(error !== undefined ? { error } : {}),
    });
    return tokensAfter < tokensBefore || messagesBefore !== this.runtime.view.entries.length;
  }

  /** The keep rule of the summarize layer, first non-zero wins: tokens, fraction, turns, messages. */
  keepOptions(override?: { keepRecentMessages?: number }): SplitOptions {
    const { summarize, budget } = this.policy;
    if (override?.keepRecentMessages !== undefined && override.keepRecentMessages > 0) {
      return { keepRecentMessages: override.keepRecentMessages, cutAt: summarize.cutAt };
    }
    if (summarize.keepRecentTokens > 0) {
      // tiancai's EffectiveTokenLimit: window − reserve, else MaxTokens, else none.
      const windowKnown =
        this.call.windowSource !== 'max-context-tokens' && this.call.windowSource !== 'unbounded';
      const limit = effectiveTokenLimit({
        contextWindow: windowKnown ? this.call.contextWindow : 0,
        reserveTokens: budget.reserveTokens > 0 ? budget.reserveTokens : this.call.maxOutputTokens,
        maxContextTokens: budget.maxContextTokens,
      });
      const clamped =
        summarize.keepRecentTokensMaxFraction > 0 && limit !== undefined
          ? Math.min(summarize.keepRecentTokens, Math.floor(limit * summarize.keepRecentTokensMaxFraction))
          : clampKeepRecentTokens(summarize.keepRecentTokens, undefined);
      return { keepRecentTokens: clamped, cutAt: summarize.cutAt };
    }
    if (summarize.keepRecentFraction > 0) {
      return {
        keepRecentTokens: Math.floor(this.call.contextWindow * summarize.keepRecentFraction),
        cutAt: summarize.cutAt,
      };
    }
    if (summarize.keepRecentTurns > 0)
      return { keepRecentTurns: summarize.keepRecentTurns, cutAt: summarize.cutAt };
    return { keepRecentMessages: Math.max(1, summarize.keepRecentMessages), cutAt: summarize.cutAt };
  }

  split(keep: SplitOptions): RecentSplit | undefined {
    return planRecentSplit(this.input(), keep);
  }

  /**
   * Summarizes (or drops) everything before the recent window. Strategy `summarize` costs one
   * summarizer call; if that fails, falls back to a drop with a reminder (digitorn).
   */
  async compactPrefix(options: CompactPrefixOptions): Promise<boolean> {
    const split = this.split(options.keep ?? this.keepOptions(options));
    if (!split) return false;
    if (options.strategy === 'drop') return this.dropThrough(split, options.layer, options.reason);
    try {
      const summary = await this.summarize(split.older, split.throughSeq, {
        ...(options.summaryMaxTokens !== undefined ? { maxTokens: options.summaryMaxTokens } : {}),
        ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
        purpose: { reason: options.reason, layer: options.layer },
      });
      const shrunk = await this.commitSummary(summary, options.layer, options.reason);
      await this.digestRecentWindow(options.reason);
      return shrunk;
    } catch (error) {
      const fresh = this.split(options.keep ?? this.keepOptions(options));
      if (!fresh) return false;
      return this.dropThrough(fresh, 'drop', options.reason, errorText(error));
    }
  }

  async commitSummary(summary: Summary, layer: LayerName, reason: EditReason): Promise<boolean> {
    const edit: Edit = {
      id: this.deps.newId(),
      at: this.deps.clock(),
      type: 'summarize',
      layer,
      reason,
      throughSeq: summary.throughSeq,
      summary,
      placement: this.policy.summarize.placement,
      ...(await this.snapshotIfKept()),
      tokensBefore: this.runtime.historyTokens,
      tokensAfter: this.historyAfterCut(summary.throughSeq),
    };
    return this.apply([edit], layer, reason);
  }

  /**
   * Runs the summarizer over `older`, merging the current summary, with the transcript offloaded first (deepagents).
   * Each summarizer call becomes a `summary-generated` event: in this compactor's events, or through
   * `onReport` for a background summary that finishes after its call has returned.
   */
  async summarize(
    older: Message[],
    throughSeq: number,
    options: {
      maxTokens?: number;
      instructions?: string;
      purpose?: SummaryPurpose;
      onReport?: (report: SummaryReport) => void;
    } = {},
  ): Promise<Summary> {
    const { summarize } = this.policy;
    let historyRef: string | undefined;
    if (summarize.offloadTranscript) {
      const stored = await this.deps.blobs.put(
        this.runtime.id,
        'conversation_history',
        `${this.runtime.id}.md`,
        await this.transcriptThrough(throughSeq),
      );
      historyRef = stored.ref;
    }
    const maxTokens =
      options.maxTokens ??
      (summarize.maxSummaryTokens > 0 ? summarize.maxSummaryTokens : DEFAULT_SUMMARY_MAX_TOKENS);
    const previous = this.runtime.view.summary;
    return this.deps.summarizer.summarize({
      messages: older,
      ...(previous ? { previous } : {}),
      throughSeq,
      maxTokens: Math.min(maxTokens, Math.max(64, Math.floor(this.call.contextWindow / 4))),
      toolResultMaxChars: summarize.toolResultMaxChars,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      ...(historyRef !== undefined ? { historyRef } : {}),
      countTokens: (text) => this.runtime.summaryCounts.count(text, this.call.counter),
      onReport:
        options.onReport ??
        reportSummariesTo(
          this.events,
          this.runtime.id,
          this.deps.clock,
          options.purpose ?? { reason: 'context_pressure', layer: 'summarize' },
        ),
    });
  }

  /**
   * The transcript of the log through `throughSeq`. Each summary moves the point forward, so the text
   * the last one offloaded is kept and only the messages since are rendered: a long session does not
   * re-render its whole history at every compaction.
   */
  private async transcriptThrough(throughSeq: number): Promise<string> {
    const cached = this.runtime.transcript;
    const from = cached && cached.throughSeq <= throughSeq ? cached.throughSeq + 1 : 0;
    const log =
      from >= this.runtime.logStart
        ? this.runtime.heldLog.slice(from - this.runtime.logStart, throughSeq + 1 - this.runtime.logStart)
        : (await this.deps.wholeLog()).filter((message) => message.seq >= from && message.seq <= throughSeq);
    // Archived results read as archived here too (tiancai), each archive's digest in its place.
    const text = extendTranscript(
      from > 0 && cached ? cached.text : '',
      historyAsShown(log, this.runtime.edits),
    );
    this.runtime.transcript = { throughSeq, text };
    return text;
  }

  async dropThrough(
    split: RecentSplit,
    layer: LayerName,
    reason: EditReason,
    error?: string,
  ): Promise<boolean> {
    return this.dropThroughSeq(split.throughSeq, split.older, {
      layer,
      reason,
      withReminder: true,
      ...(error !== undefined ? { error } : {}),
    });
  }

  /**
   * Drops everything up to throughSeq with no model call. With a reminder (digitorn), the agent keeps the
   * goal and recent activity; without (cowagent's trim), a summary follows from the background.
   */
  async dropThroughSeq(
    throughSeq: number,
    dropped: Message[],
    options: { layer: LayerName; reason: EditReason; withReminder: boolean; error?: string },
  ): Promise<boolean> {
    const { layer, reason, withReminder, error } = options;
    const recent = this.runtime.view.entries
      .filter((entry) => entry.message.seq > throughSeq)
      .map((entry) => entry.message);
    const reminder = withReminder
      ? buildContextReminder(dropped, recent, this.runtime.view.summary, {
          maxChars: REMINDER_MAX_CHARS,
          ...(this.runtime.view.reminder !== undefined
            ? { previousReminder: this.runtime.view.reminder }
            : {}),
        })
      : undefined;
    const edit: Edit = {
      id: this.deps.newId(),
      at: this.deps.clock(),
      type: 'drop',
      layer,
      reason,
      throughSeq,
      ...(await this.snapshotIfKept()),
      ...(reminder !== undefined ? { reminder } : {}),
      tokensBefore: this.runtime.historyTokens,
      tokensAfter: this.historyAfterCut(throughSeq),
    };
    return this.apply([edit], layer, reason, error);
  }

  /**
   * picoclaw's forceCompression: everything through `throughSeq` and the `hidden` log messages leave the
   * view with no model call, and the note is appended to the session summary (picoclaw's SetSummary of
   * `existing + "\n\n" + note`), so the next request's summary says what happened; no reminder.
   */
  async dropWithSummaryNote(
    plan: { throughSeq: number; hidden: readonly number[]; note: string },
    layer: LayerName,
    reason: EditReason,
  ): Promise<boolean> {
    const { view } = this.runtime;
    const throughSeq = Math.max(plan.throughSeq, view.cut?.throughSeq ?? -1);
    const previous = view.summary;
    const text = this.noteWithinSummaryCap(previous?.text, plan.note);
    const hidden = new Set(plan.hidden.filter((seq) => seq > throughSeq));
    let hiddenTokens = 0;
    view.entries.forEach((entry, index) => {
      if (entry.sourceSeq !== undefined && hidden.has(entry.sourceSeq))
        hiddenTokens += this.runtime.entryTokens[index] ?? 0;
    });
    const tokensBefore = this.runtime.historyTokens;
    const afterCut = this.historyAfterCut(throughSeq);
    const edits: Edit[] = [
      {
        id: this.deps.newId(),
        at: this.deps.clock(),
        type: 'summarize',
        layer,
        reason,
        throughSeq,
        summary: {
          text,
          // In the sections too: the next summary merges from them, so the note outlives this text.
          sections: {
            ...previous?.sections,
            facts: [...(previous?.sections.facts ?? []), plan.note],
          },
          throughSeq,
          tokens: this.call.counter.count(text),
          ...(previous?.historyRef !== undefined ? { historyRef: previous.historyRef } : {}),
          producer: previous?.producer ?? COMPRESSION_NOTE_PRODUCER,
        },
        placement: this.policy.summarize.placement,
        ...(await this.snapshotIfKept()),
        tokensBefore,
        tokensAfter: afterCut,
      },
    ];
    if (hidden.size > 0) {
      edits.push({
        id: this.deps.newId(),
        at: this.deps.clock(),
        type: 'hide',
        layer,
        reason,
        targets: [...hidden].sort((a, b) => a - b),
        tokensBefore: afterCut,
        tokensAfter: Math.max(0, afterCut - hiddenTokens),
      });
    }
    return this.apply(edits, layer, reason);
  }

  /**
   * The summary with the note appended, within the cap every summary keeps (the one `summarize` gives the
   * summarizer: the policy's maxSummaryTokens, else 2,048, at most a quarter of the window): when the two
   * do not fit, the summary is cut from its end, never the note.
   */
  private noteWithinSummaryCap(summary: string | undefined, note: string): string {
    const { maxSummaryTokens } = this.policy.summarize;
    const cap = Math.min(
      maxSummaryTokens > 0 ? maxSummaryTokens : DEFAULT_SUMMARY_MAX_TOKENS,
      Math.max(64, Math.floor(this.call.contextWindow / 4)),
    );
    const count = (text: string) => this.call.counter.count(text);
    const head = summary ? cutToTokens(summary, cap, (kept) => count(appendCompressionNote(kept, note))) : '';
    const text = appendCompressionNote(head, note);
    return count(text) <= cap ? text : cutToTokens(note, cap, count);
  }

  /** History tokens left in view after a cut through `throughSeq` (what a prefix edit plans to leave). */
  historyAfterCut(throughSeq: number): number {
    const { entries } = this.runtime.view;
    let left = 0;
    for (let index = entries.length - 1; index >= 0; index--) {
      const seq = entries[index]?.sourceSeq;
      if (seq !== undefined && seq <= throughSeq) break;
      left += this.runtime.entryTokens[index] ?? 0;
    }
    return left;
  }

  /** A snapshot for the edit when the policy restores sessions from snapshots (digitorn). */
  async snapshotIfKept(): Promise<{ snapshot?: CompactionSnapshot }> {
    if (this.policy.restore.mode !== 'snapshot') return {};
    return { snapshot: await takeSnapshot(this.runtime, this.call.tools, this.deps.memory) };
  }

  /** Nothing up to throughSeq is shown any more; the summary too unless `keepSummary`. */
  async resetTo(throughSeq: number, keepSummary: boolean, reason: EditReason): Promise<boolean> {
    if (throughSeq < 0 && !this.runtime.view.summary) return false;
    const edit: Edit = {
      id: this.deps.newId(),
      at: this.deps.clock(),
      type: 'reset',
      layer: reason === 'clear_command' ? 'manual' : 'emergency',
      reason,
      throughSeq,
      keepSummary,
      tokensBefore: this.runtime.historyTokens,
      tokensAfter: this.historyAfterCut(throughSeq),
    };
    return this.apply([edit], edit.layer, reason);
  }

  /**
   * `/context clear` (cowagent): the agent forgets the conversation. What it held is summarized into
   * memory first, so memory search still finds it; the log keeps every message.
   */
  async clearContext(): Promise<void> {
    const messages = this.runtime.view.entries.map((entry) => entry.message);
    const last = this.runtime.heldLog.at(-1);
    if (!last) return;
    if (messages.length > 0) {
      try {
        const summary = await this.summarize(messages, last.seq, {
          purpose: { reason: 'clear_command', layer: 'manual' },
        });
        await this.remember('Cleared context', summary.text);
      } catch {
        // Clearing must work even when summarizing does not.
      }
    }
    await this.resetTo(last.seq, false, 'clear_command');
  }

  /** tiancai: after a compaction, tool results beyond the cutoff in the kept window are archived behind a digest. */
  async digestRecentWindow(reason: EditReason): Promise<void> {
    if (!this.policy.summarize.recentToolDigest) return;
    const plan = planArchiveResults(this.input(), { toolCallCutoff: this.policy.archive.toolCallCutoff });
    if (!plan) return;
    const digest = extractiveToolDigest(plan.results, plan.calls, {
      maxChars: this.policy.archive.extractiveMaxChars,
      prefix: RECENT_DIGEST_PREFIX,
    });
    await this.apply([archiveEdit(plan, digest, this.input())], 'archive', reason);
  }

  /** Whether a hook's condition holds now. */
  hookDue(hook: Hook, now: number): boolean {
    const last = this.runtime.hookFiredAt.get(hook.id);
    if (
      last !== undefined &&
      hook.cooldownSeconds !== undefined &&
      now - last < hook.cooldownSeconds * 1000
    ) {
      return false;
    }
    const condition = hook.condition;
    switch (condition.type) {
      case 'context_pressure':
        return this.pressure() >= condition.threshold;
      case 'turn_count':
        return this.runtime.turnsSinceCompaction >= condition.every;
      case 'tool_calls':
        return this.runtime.toolCallsSinceCompaction >= condition.threshold;
    }
  }

  /** Memory sink write, for trimmed turns, emergencies and cleared context (cowagent). */
  async remember(title: string, text: string): Promise<void> {
    await this.deps.memory.write(this.runtime.id, { at: this.deps.clock(), title, text });
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
