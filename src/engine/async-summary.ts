import type { Summary } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import type { Compactor } from './compactor.ts';
import { errorText } from './compactor.ts';
import type { PendingSummary } from './session-runtime.ts';
import { type SummaryPurpose, summaryGeneratedEvent } from './summary-events.ts';

const purposeOf = (pending: Pick<PendingSummary, 'purpose'>): SummaryPurpose =>
  pending.purpose === 'trim'
    ? { reason: 'turn_limit', layer: 'trim' }
    : { reason: 'context_pressure', layer: 'summarize' };

/**
 * The async path (picoclaw's maybeSummarize, tiancai's tryAutoCompact, cowagent's trim summary):
 * summarization runs in the background after a turn; a later prepare applies its result whole, or
 * drops it when a newer cut made it stale. Never half-applied.
 */
export async function applyReadySummary(compactor: Compactor, wait: boolean): Promise<void> {
  const { runtime } = compactor;
  const pending = runtime.pending;
  if (!pending) return;
  if (!pending.settled) {
    if (!wait) return;
    await pending.promise;
  }
  runtime.pending = undefined;
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
      reason: pending.purpose === 'trim' ? 'turn_limit' : 'context_pressure',
      layer: 'summarize',
      tokensBefore: runtime.historyTokens,
      messagesBefore: runtime.view.entries.length,
    });
    compactor.events.push({
      type: 'compaction-finished',
      sessionId: runtime.id,
      at: compactor.deps.clock(),
      reason: pending.purpose === 'trim' ? 'turn_limit' : 'context_pressure',
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
  await compactor.commitSummary(
    summary,
    pending.purpose === 'trim' ? 'trim' : 'summarize',
    pending.purpose === 'trim' ? 'turn_limit' : 'context_pressure',
  );
  // tiancai: the rebuilt context archives recent results past the cutoff behind a [Compaction tool digest].
  if (pending.purpose === 'summarize') await compactor.digestRecentWindow('context_pressure');
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
  compactor.runtime.pending = entry;
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
 * After a turn: runs the hooks registered for `turn_end` (the async presets' automatic compaction)
 * and the message-count trigger. A summarize strategy runs in the background; drop is immediate.
 */
export function scheduleAsyncSummary(compactor: Compactor): Promise<void> | undefined {
  const { policy, call, runtime } = compactor;
  if (runtime.pending && !runtime.pending.settled) return undefined;
  const now = compactor.deps.clock();
  const due = compactor.hooks().find((hook) => hook.on === 'turn_end' && compactor.hookDue(hook, now));
  const byCount =
    policy.summarize.auto &&
    policy.summarize.runOn === 'turn_end' &&
    policy.summarize.maxMessages > 0 &&
    runtime.messagesSinceCut() > policy.summarize.maxMessages &&
    (policy.summarize.maxMessagesWhen === 'always' || call.windowSource === 'unbounded');
  if (!due && !byCount) return undefined;
  if (due) runtime.hookFiredAt.set(due.id, now);
  const keep = compactor.keepOptions(
    due?.action.keepRecent !== undefined ? { keepRecentMessages: due.action.keepRecent } : undefined,
  );
  // A count trigger with everything inside the token keep rule: keep by count instead (tiancai's KeepRecent).
  const split =
    compactor.split(keep) ??
    (byCount && !due
      ? compactor.split({
          keepRecentMessages: Math.max(1, policy.summarize.keepRecentMessages),
          cutAt: policy.summarize.cutAt,
        })
      : undefined);
  if (!split) return undefined;
  const strategy = due?.action.strategy ?? policy.summarize.strategy;
  if (strategy === 'drop') {
    return compactor.dropThrough(split, 'drop', 'context_pressure').then(() => undefined);
  }
  const pending: Omit<PendingSummary, 'settled' | 'promise'> = {
    throughSeq: split.throughSeq,
    purpose: 'summarize',
    reports: [],
  };
  const work = compactor.summarize(split.older, split.throughSeq, {
    ...(due?.action.summaryMaxTokens !== undefined ? { maxTokens: due.action.summaryMaxTokens } : {}),
    onReport: (report) => pending.reports.push(report),
  });
  return track(compactor, pending, work);
}
