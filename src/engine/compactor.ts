import type { CompactionPlan, KeepRule } from '../core/compaction/decide-compaction.ts';
import type { CompactionSnapshot, Edit, EditReason, LayerName, Summary } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { MemorySink } from '../core/memory-sink.ts';
import type { Message } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
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
import { planRecentSplit, type RecentSplit } from '../layers/split-recent.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { cutToTokens } from '../summarize/cut-text.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import type { CallContext } from './call-context.ts';
import { takeSnapshot } from './restore-session.ts';
import { SessionBudget } from './session-budget.ts';
import type { SessionRuntime } from './session-runtime.ts';
import { reportSummariesTo, type SummaryPurpose } from './summary-events.ts';
import { extendTranscriptInSlices } from './transcript-markdown.ts';

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
  /** See `ContextManagerOptions.sharedStore`: background summaries finish within the call. */
  sharedStore?: boolean;
}

/** What a prefix compaction needs of its plan; the keep rule comes beside it. */
export type PrefixCompaction = Pick<
  CompactionPlan,
  'strategy' | 'reason' | 'layer' | 'summaryMaxTokens' | 'instructions'
>;

/** A summary's cap in tokens when the policy sets none (`summarize.maxSummaryTokens` 0). */
export const DEFAULT_SUMMARY_MAX_TOKENS = 2_048;

/**
 * Commits what layers and decisions plan for one session in one call, as edits, each with its
 * compaction-started/finished events: prefix compactions (summarize, drop with a reminder, reset), their
 * snapshots, the summarizer call. Reading the budget is `budget`'s (SessionBudget).
 */
export class Compactor {
  readonly events: ContextEvent[];
  readonly deps: CompactorDeps;
  /** Reading the budget; this class commits edits. */
  readonly budget: SessionBudget;

  /** `shared`: the events of the compactor this one works for, and the scale its budget reads (`withScale`). */
  constructor(deps: CompactorDeps, shared?: { events: ContextEvent[]; scale: number }) {
    this.deps = deps;
    this.events = shared?.events ?? [];
    this.budget = new SessionBudget(shared ? { ...deps, scale: shared.scale } : deps);
  }

  /**
   * This compactor with a budget that reads the history estimate at `scale` rather than the one the
   * session's overflow record holds: what it commits and reports is this one's. The final guard refits
   * with it; the record is left as it is.
   */
  withScale(scale: number): Compactor {
    return new Compactor(this.deps, { events: this.events, scale });
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
    this.runtime.progress.triggers.noteCompaction();
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

  split(keep: KeepRule): RecentSplit | undefined {
    return planRecentSplit(this.budget.input(), keep);
  }

  /**
   * Carries out a decided compaction (see decide-compaction.ts): with its keep rule, else its fallback
   * rule; a hook that fired is recorded for its cooldown.
   */
  async carryOut(plan: CompactionPlan): Promise<boolean> {
    if (plan.hookId !== undefined) this.runtime.progress.triggers.noteFired(plan.hookId, this.deps.clock());
    if (await this.compactPrefix(plan, plan.keep)) return true;
    return plan.fallbackKeep !== undefined && this.compactPrefix(plan, plan.fallbackKeep);
  }

  /**
   * Summarizes (or drops) everything before the recent window. Strategy `summarize` costs one
   * summarizer call; if that fails, falls back to a drop with a reminder (digitorn).
   */
  async compactPrefix(options: PrefixCompaction, keep: KeepRule): Promise<boolean> {
    const split = this.split(keep);
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
      const fresh = this.split(keep);
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
      tokensAfter: this.budget.historyAfterCut(summary.throughSeq),
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
    const unsummarized = await this.droppedSinceSummary(older);
    return this.deps.summarizer.summarize({
      messages: unsummarized.length > 0 ? [...unsummarized, ...older] : older,
      ...(previous ? { previous } : {}),
      throughSeq,
      maxTokens: summaryTokenCap(maxTokens, this.call),
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
   * Messages a drop took out of the view since the last summary (an emergency drop after an overflow, a
   * fit-to-budget drop): the next summary covers them too, so what was dropped in a hurry still reaches
   * the summary (a plan item, a file) instead of living on only in the drop's short reminder. Read from
   * the log as people read it, without what a branch hid or the agent never saw; bounded like any other
   * transcript by the summarizer's own input budget.
   */
  private async droppedSinceSummary(older: readonly Message[]): Promise<Message[]> {
    const { view, edits } = this.runtime;
    const cut = view.cut;
    const from = (view.summary?.throughSeq ?? -1) + 1;
    const before = older[0]?.seq ?? (cut ? cut.throughSeq + 1 : from);
    if (cut?.type !== 'drop' || from >= before) return [];
    const hidden = new Set<number>();
    for (const edit of edits) if (edit.type === 'branch') for (const seq of edit.hiddenSeqs) hidden.add(seq);
    const log = (await this.deps.wholeLog()).filter(
      (message) => message.seq >= from && message.seq < before && !hidden.has(message.seq),
    );
    return historyAsShown(log, edits).filter((message) => message.meta.agentVisible !== false);
  }

  /**
   * The transcript of the log through `throughSeq`. Each summary moves the point forward, so the text
   * the last one offloaded is kept and only the messages since are rendered: a long session does not
   * re-render its whole history at every compaction.
   */
  private async transcriptThrough(throughSeq: number): Promise<string> {
    const cached = this.runtime.progress.summaries.transcript;
    const from = cached && cached.throughSeq <= throughSeq ? cached.throughSeq + 1 : 0;
    const log =
      from >= this.runtime.logStart
        ? this.runtime.heldLog.slice(from - this.runtime.logStart, throughSeq + 1 - this.runtime.logStart)
        : (await this.deps.wholeLog()).filter((message) => message.seq >= from && message.seq <= throughSeq);
    // Archived results read as archived here too (tiancai), each archive's digest in its place.
    // In slices: the first transcript of a client's history of hundreds of thousands is all of it.
    const text = await extendTranscriptInSlices(
      from > 0 && cached ? cached.text : '',
      historyAsShown(log, this.runtime.edits),
    );
    this.runtime.progress.summaries.noteTranscript(throughSeq, text);
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
      tokensAfter: this.budget.historyAfterCut(throughSeq),
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
    const afterCut = this.budget.historyAfterCut(throughSeq);
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
      tokensAfter: this.budget.historyAfterCut(throughSeq),
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
    const plan = planArchiveResults(this.budget.input(), {
      toolCallCutoff: this.policy.archive.toolCallCutoff,
    });
    if (!plan) return;
    const digest = extractiveToolDigest(plan.results, plan.calls, {
      maxChars: this.policy.archive.extractiveMaxChars,
      prefix: RECENT_DIGEST_PREFIX,
    });
    await this.apply([archiveEdit(plan, digest, this.budget.input())], 'archive', reason);
  }

  /** Memory sink write, for trimmed turns, emergencies and cleared context (cowagent). */
  async remember(title: string, text: string): Promise<void> {
    await this.deps.memory.write(this.runtime.id, { at: this.deps.clock(), title, text });
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The most a summary may take: the policy's cap, a quarter of the window, and half of what the window leaves
 * the conversation once the system prompt, the tools and the reply's reserve are in. With a large reserve
 * (8k window, 6k for the reply) a quarter of the window is the whole room: a summary that size would leave
 * nothing beside it, and the summary itself would be dropped to fit.
 */
export function summaryTokenCap(
  policyCap: number,
  call: Pick<CallContext, 'contextWindow' | 'maxOutputTokens' | 'systemTokens' | 'toolTokens'>,
): number {
  const room = call.contextWindow - call.maxOutputTokens - call.systemTokens - call.toolTokens;
  return Math.max(64, Math.min(policyCap, Math.floor(call.contextWindow / 4), Math.floor(room / 2)));
}
