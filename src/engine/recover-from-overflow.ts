import { emergencyCompaction, planOverflowRecovery } from '../core/compaction/decide-compaction.ts';
import type { EditReason } from '../core/edit.ts';
import type { EmergencyPolicy } from '../core/policy/policy-schema.ts';
import { planFitToBudget } from '../layers/fit-to-budget.ts';
import { planDropOldestTurns } from '../layers/halve-turns.ts';
import { planCapMessages } from '../layers/snip-oversized.ts';
import { isContextOverflow, parseOverflowTokens } from '../providers/is-context-overflow.ts';
import type { Compactor } from './compactor.ts';
import { errorText } from './compactor.ts';

/** Without figures in the error, history estimates grow by this factor per overflow. */
export const OVERFLOW_SCALE_STEP = 1.25;
/** A little more than the ratio the provider's figures show, for what those figures round away. */
export const OVERFLOW_SAFETY = 1.02;

/**
 * The reactive path: the provider said the request overflowed despite the proactive check (the
 * estimate undershot). Records by how much, runs the policy's emergency sequence with no model call
 * unless the policy says otherwise, and answers whether to retry: the first overflows are retried
 * (emergency.maxRetries), the next one resets when the policy allows (to the last turn + summary, media
 * kept, and retried; or, with `resetScope: 'all'`, the whole context, not retried), after that the error
 * stands.
 *
 * A retry is only asked for when the next request will differ from the one that overflowed: an edit was
 * committed, or the estimate's new scale puts the history over budget (the next `prepare` cuts). When
 * the emergency sequence changed nothing, the reset is tried at once; when that changes nothing either,
 * the answer is `false`: resending the same request would overflow the same way.
 */
export async function recoverFromOverflow(compactor: Compactor, error: unknown): Promise<boolean> {
  const { runtime, policy, budget } = compactor;
  if (!isContextOverflow(error)) return false;
  const overflow = runtime.progress.overflow;
  overflow.overflows++;
  const attempt = overflow.overflows;
  const editsBefore = runtime.editCount;
  const scaleBefore = overflow.scale;
  noteOverflowFigures(compactor, error, true);
  // Whether the retry would send something else than what overflowed.
  const changed = () =>
    runtime.editCount !== editsBefore || (overflow.scale > scaleBefore && budget.overBudget());

  const plan = planOverflowRecovery(policy.emergency, attempt);
  if (plan.runSequence) await runEmergencySequence(compactor, policy.emergency);
  let clearedAll = false;
  if (plan.reset === 'now' || (plan.reset === 'if-unchanged' && !changed())) {
    if (plan.resetScope === 'all') {
      // cowagent: "the entire conversation context is cleared": nothing is left to resend, so no retry; the
      // next request starts from the user's next message. The log keeps every message.
      const last = runtime.heldLog.at(-1);
      if (last !== undefined) clearedAll = await compactor.resetTo(last.seq, false, 'context_overflow');
    } else {
      const lastTurn = runtime.lastTurnStartSeq();
      if (lastTurn !== undefined) await compactor.resetTo(lastTurn - 1, true, 'context_overflow');
    }
  }
  const retry = !clearedAll && plan.mayRetry && changed();
  compactor.events.push({
    type: 'context-overflowed',
    sessionId: runtime.id,
    at: compactor.deps.clock(),
    attempt,
    error: errorText(error),
    retry,
  });
  return retry;
}

/**
 * What an overflow says, kept without compacting anything: the request it was reported for (the next
 * prepare, the retry, must be smaller: `guard-retry.ts`) and, when the provider counted it, by how much
 * our count fell short (history estimates are scaled up by it until reported usage shows them right).
 * For a caller that prepares the retry itself, for a window the error named (the proxy).
 */
export function noteOverflow(compactor: Compactor, error: unknown): void {
  if (isContextOverflow(error)) noteOverflowFigures(compactor, error, false);
}

/**
 * The figures are the provider's count of the request we sent, which our own (unscaled) count measured
 * when `prepare` returned it (recover may be called again before the next prepare: the same request).
 * The provider counted `requested` input tokens where we counted less: our history figures are scaled
 * up by the ratio until reported usage shows them right again. Without figures (or figures no larger
 * than our count), `blindStep` scales them a step further on each overflow, so a retry can never resend
 * the same request; a caller that changes the window itself asks for none.
 */
function noteOverflowFigures(compactor: Compactor, error: unknown, blindStep: boolean): void {
  const overflow = compactor.runtime.progress.overflow;
  const regions = compactor.budget.countedRegions();
  const figures = parseOverflowTokens(error);
  const requestedInput =
    figures.requested !== undefined ? figures.requested - (figures.completion ?? 0) : undefined;
  const fixed = regions.system + regions.toolDefinitions + regions.summary;
  const history = Math.max(1, overflow.preparedHistoryTokens ?? regions.history);
  const measured = requestedInput !== undefined ? (requestedInput - fixed) / history : 0;
  overflow.scale = Math.max(
    overflow.scale * (measured > 1 || !blindStep ? 1 : OVERFLOW_SCALE_STEP),
    measured * OVERFLOW_SAFETY,
    1,
  );
  if (overflow.prepared) overflow.overflowed = { ...overflow.prepared, reportedInput: requestedInput };
}

/**
 * The policy's emergency steps, in order (cowagent: summarize to memory, limit sizes; tiancai: compact; digitorn:
 * truncate keeping half of keep_recent; picoclaw: drop the oldest turns with a note; default: drop to fit).
 * Returns whether the history shrank. The proactive path runs it too when a preset says so (picoclaw).
 */
export async function runEmergencySequence(
  compactor: Compactor,
  emergency: EmergencyPolicy,
  reason: EditReason = 'context_overflow',
): Promise<boolean> {
  const { runtime, policy } = compactor;
  const before = runtime.historyTokens;
  const entriesBefore = runtime.view.entries.length;
  for (const step of emergency.sequence) {
    switch (step) {
      case 'summarize-to-memory': {
        const messages = runtime.view.entries.map((entry) => entry.message);
        const last = messages.at(-1);
        if (!last) break;
        try {
          const summary = await compactor.summarize(messages, last.seq);
          await compactor.remember('Context overflow', summary.text);
        } catch {
          // Memory is a courtesy here; recovery must go on without it.
        }
        break;
      }
      case 'limit-sizes': {
        const edits = planCapMessages(compactor.budget.input(), {
          toolResultMaxChars: emergency.toolResultMaxChars,
          userTextMaxChars: emergency.userTextMaxChars,
        });
        await compactor.apply(edits, 'emergency', reason);
        await compactor.carryOut(emergencyCompaction(policy, compactor.budget.window(), step, reason));
        break;
      }
      case 'compact':
      case 'truncate':
        await compactor.carryOut(emergencyCompaction(policy, compactor.budget.window(), step, reason));
        break;
      case 'drop-fraction': {
        const plan = planDropOldestTurns(compactor.budget.input(), { fraction: emergency.dropFraction });
        if (plan) await compactor.dropWithSummaryNote(plan, 'emergency', reason);
        break;
      }
      case 'drop-to-fit': {
        const regions = compactor.budget.regions();
        const budget =
          regions.contextWindow -
          regions.maxOutputTokens -
          regions.system -
          regions.toolDefinitions -
          regions.summary;
        const plan = planFitToBudget(compactor.budget.input(), {
          budget: Math.max(0, Math.floor(budget / runtime.progress.overflow.scale)),
        });
        if (plan)
          await compactor.dropThroughSeq(plan.throughSeq, plan.dropped, {
            layer: 'emergency',
            reason,
            withReminder: true,
          });
        break;
      }
    }
  }
  return runtime.historyTokens < before || runtime.view.entries.length !== entriesBefore;
}
