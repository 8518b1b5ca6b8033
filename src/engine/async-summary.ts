import { nextTriggeredCompaction } from '../core/compaction/decide-compaction.ts';
import type { Summary } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import type { Compactor } from './compactor.ts';
import { errorText } from './compactor.ts';
import type { PendingSummary } from './layer-progress.ts';
import { type SummaryPurpose, summaryGeneratedEvent } from './summary-events.ts';

const purposeOf = (pending: Pick<PendingSummary, 'purpose' | 'reason'>): SummaryPurpose => ({
  reason: pending.reason,
  layer: pending.purpose === 'trim' ? 'trim' : 'summarize',
});

/**
 * The async path (picoclaw's maybeSummarize, tiancai's tryAutoCompact, cowagent's trim summary):
 * summarization runs in the background after a turn; a later prepare applies its result whole, or
 * drops it when a newer cut made it stale. Never half-applied.
 */
export async function applyReadySummary(
  compactor: Compactor,
  wait: boolean,
  trimSummary: 'from-next-turn' | 'now' = 'from-next-turn',
): Promise<void> {
  const { runtime } = compactor;
  const progress = runtime.progress.summaries;
  const pending = progress.pending;
  if (!pending) return;
  // cowagent: the trimmed turns' summary "takes effect from the next turn onward": the calls left in the
  // turn that trimmed go without it, whichever door makes them.
  if (
    pending.purpose === 'trim' &&
    trimSummary === 'from-next-turn' &&
    runtime.turnCount <= pending.startedInTurn
  )
    return;
  if (!pending.settled) {
    if (!wait) return;
    await pending.promise;
  }
  progress.clearPending();
  for (const report of pending.reports) {
    compactor.events.push(
      summaryGeneratedEvent(runtime.id, compactor.deps.clock(), purposeOf(pending), report),
    );
  }
  const summary = pending.result;
  if (!summary) {
    compactor.events.push({
      type: 'compaction-started',
      sessionId: runtime.id,
      at: compactor.deps.clock(),
      reason: pending.reason,
      layer: 'summarize',
      tokensBefore: runtime.historyTokens,
      messagesBefore: runtime.view.entries.length,
    });
    compactor.events.push({
      type: 'compaction-finished',
      sessionId: runtime.id,
      at: compactor.deps.clock(),
      reason: pending.reason,
      layer: 'summarize',
      tokensBefore: runtime.historyTokens,
      tokensAfter: runtime.historyTokens,
      messagesBefore: runtime.view.entries.length,
      messagesAfter: runtime.view.entries.length,
      editIds: [],
      error: errorText(pending.error),
    });
    return;
  }
  const cut = runtime.view.cut;
  const stale =
    cut !== undefined &&
    (pending.purpose === 'trim' ? cut.throughSeq > pending.throughSeq : cut.throughSeq >= pending.throughSeq);
  if (stale) return;
  await compactor.commitSummary(summary, pending.purpose === 'trim' ? 'trim' : 'summarize', pending.reason);
  // tiancai: the rebuilt context archives recent results past the cutoff behind a [Compaction tool digest].
  if (pending.purpose === 'summarize') await compactor.digestRecentWindow(pending.reason);
  compactor.events.push({
    type: 'summary-applied',
    sessionId: runtime.id,
    at: compactor.deps.clock(),
    throughSeq: summary.throughSeq,
    tokens: summary.tokens,
  });
}

function track(
  compactor: Compactor,
  pending: Omit<PendingSummary, 'settled' | 'promise'>,
  work: Promise<Summary>,
): Promise<void> {
  const entry: PendingSummary = { ...pending, settled: false, promise: Promise.resolve() };
  entry.promise = work.then(
    (summary) => {
      entry.result = summary;
      entry.settled = true;
    },
    (error: unknown) => {
      entry.error = error;
      entry.settled = true;
    },
  );
  compactor.runtime.progress.summaries.startPending(entry);
  compactor.events.push({
    type: 'summary-scheduled',
    sessionId: compactor.runtime.id,
    at: compactor.deps.clock(),
    throughSeq: pending.throughSeq,
  });
  return entry.promise;
}

/** cowagent: the trimmed turns are summarized in the background, written to memory, injected from the next turn on. */
export function scheduleTrimSummary(
  compactor: Compactor,
  trimmed: Message[],
  throughSeq: number,
): Promise<void> {
  const pending: Omit<PendingSummary, 'settled' | 'promise'> = {
    throughSeq,
    purpose: 'trim',
    startedInTurn: compactor.runtime.turnCount,
    reason: 'turn_limit',
    reports: [],
  };
  const work = (async () => {
    const summary = await compactor.summarize(trimmed, throughSeq, {
      onReport: (report) => pending.reports.push(report),
    });
    if (compactor.policy.trim.writeMemory) await compactor.remember('Trimmed turns', summary.text);
    return summary;
  })();
  return track(compactor, pending, work);
}

/**
 * After a turn: the compaction due at `turn_end` (the async presets' automatic hook, or the message count),
 * as decide-compaction.ts plans it. A summarize strategy runs in the background; drop is immediate.
 */
export function scheduleAsyncSummary(compactor: Compactor): Promise<void> | undefined {
  const { policy, runtime, budget } = compactor;
  const running = runtime.progress.summaries.pending;
  if (running && !running.settled) return undefined;
  const state = budget.triggerState();
  const plan = nextTriggeredCompaction(policy, budget.window(), state, ['turn_end']);
  if (!plan) return undefined;
  if (plan.hookId !== undefined) runtime.progress.triggers.noteFired(plan.hookId, state.now);
  const split =
    compactor.split(plan.keep) ?? (plan.fallbackKeep ? compactor.split(plan.fallbackKeep) : undefined);
  if (!split) return undefined;
  // The async path records its compactions as context_pressure whatever fired them (picoclaw's
  // maybeSummarize and tiancai's tryAutoCompact count messages as their measure of pressure); the trigger
  // is in the plan, the reason says which path acted.
  const reason = 'context_pressure';
  if (plan.strategy === 'drop') {
    return compactor.dropThrough(split, plan.layer, reason).then(() => undefined);
  }
  const pending: Omit<PendingSummary, 'settled' | 'promise'> = {
    throughSeq: split.throughSeq,
    purpose: 'summarize',
    startedInTurn: runtime.turnCount,
    reason,
    reports: [],
  };
  const work = compactor.summarize(split.older, split.throughSeq, {
    ...(plan.summaryMaxTokens !== undefined ? { maxTokens: plan.summaryMaxTokens } : {}),
    onReport: (report) => pending.reports.push(report),
  });
  return track(compactor, pending, work);
}
