import { emergencyCompaction } from '../core/compaction/decide-compaction.ts';
import { planOverflowRecovery } from '../core/compaction/plan-overflow-recovery.ts';
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

/** What the reactive path did about an overflow, and whether the call may be sent again. */
export interface OverflowOutcome {
  /** Whether the error was an overflow at all (anything else is the caller's to pass on). */
  overflow: boolean;
  /** Whether a retry is asked for: the next `prepare` will send something smaller than what overflowed. */
  retry: boolean;
  /** The window the error named, adopted for this model from now on (the retry is prepared for it). */
  adoptedWindow?: number;
  /** The policy's last resort cleared the whole context (cowagent): nothing is resent. */
  cleared: boolean;
}

/**
 * The reactive path, as `planOverflowRecovery` (decide-compaction.ts) plans it for the n-th overflow in
 * a row: the provider said the request overflowed despite the proactive check. A limit the error names
 * below the prepared window is adopted; otherwise the overflow is recorded (by how much, when the error
 * says), the policy's emergency sequence runs with no model call unless the policy says otherwise, and
 * resets follow as the plan says.
 *
 * A retry is only asked for when the next request will differ from the one that overflowed: a window was
 * adopted, an edit was committed, or the estimate's new scale puts the history over budget (the next
 * `prepare` cuts). When the emergency sequence changed nothing, the reset is tried at once; when that
 * changes nothing either, the answer is no retry: resending the same request would overflow the same way.
 */
export async function recoverFromOverflow(compactor: Compactor, error: unknown): Promise<OverflowOutcome> {
  const { runtime, policy, budget, call } = compactor;
  if (!isContextOverflow(error)) return { overflow: false, retry: false, cleared: false };
  const overflow = runtime.progress.overflow;
  const plan = planOverflowRecovery(policy.emergency, {
    attempt: overflow.overflows + 1,
    namedLimit: parseOverflowTokens(error).limit,
    preparedWindow: call.contextWindow,
    windowsAdopted: overflow.windowsAdopted,
  });
  if (plan.kind === 'adopt-window') {
    // Prepared again for the real window as any request is (clearing, offloading, summarizing, every
    // pointer readable), not cut by the emergency path; what the error says of the request's size is
    // kept all the same.
    noteOverflowFigures(compactor, error, false);
    overflow.adoptWindow({ model: call.model, contextWindow: plan.contextWindow });
    overflowedEvent(compactor, error, overflow.overflows + overflow.windowsAdopted, true, plan.contextWindow);
    return { overflow: true, retry: true, adoptedWindow: plan.contextWindow, cleared: false };
  }
  const attempt = overflow.noteOverflowAttempt();
  const editsBefore = runtime.editCount;
  const scaleBefore = overflow.scale;
  noteOverflowFigures(compactor, error, true);
  // Whether the retry would send something else than what overflowed.
  const changed = () =>
    runtime.editCount !== editsBefore || (overflow.scale > scaleBefore && budget.overBudget());

  if (plan.runSequence) await runEmergencySequence(compactor, policy.emergency);
  let cleared = false;
  if (plan.reset === 'now' || (plan.reset === 'if-unchanged' && !changed())) {
    if (plan.resetScope === 'all') {
      // cowagent: "the entire conversation context is cleared": nothing is left to resend, so no retry; the
      // next request starts from the user's next message. The log keeps every message.
      const last = runtime.heldLog.at(-1);
      if (last !== undefined) cleared = await compactor.resetTo(last.seq, false, 'context_overflow');
    } else {
      const lastTurn = runtime.lastTurnStartSeq();
      if (lastTurn !== undefined) await compactor.resetTo(lastTurn - 1, true, 'context_overflow');
    }
  }
  const retry = !cleared && plan.mayRetry && changed();
  overflowedEvent(compactor, error, attempt + overflow.windowsAdopted, retry, undefined);
  return { overflow: true, retry, cleared };
}

function overflowedEvent(
  compactor: Compactor,
  error: unknown,
  attempt: number,
  retry: boolean,
  adoptedWindow: number | undefined,
): void {
  compactor.events.push({
    type: 'context-overflowed',
    sessionId: compactor.runtime.id,
    at: compactor.deps.clock(),
    attempt,
    error: errorText(error),
    retry,
    ...(adoptedWindow !== undefined && { adoptedWindow }),
  });
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
  const scale = Math.max(
    overflow.scale * (measured > 1 || !blindStep ? 1 : OVERFLOW_SCALE_STEP),
    measured * OVERFLOW_SAFETY,
    1,
  );
  overflow.noteOverflowed(scale, requestedInput);
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
          budget: Math.max(0, Math.floor(budget / compactor.budget.scale())),
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
