import { historyBudget, isOverContextBudget } from '../core/budget/context-budget.ts';
import {
  type CompactionMoment,
  type EscalationStep,
  escalationSteps,
  nextTriggeredCompaction,
} from '../core/compaction/decide-compaction.ts';
import { ContextBudgetError } from '../core/errors/index.ts';
import { planTokenBudgetTrim } from '../layers/compress-text.ts';
import { planFitToBudget } from '../layers/fit-to-budget.ts';
import { planSnipOversized } from '../layers/snip-oversized.ts';
import { scheduleTrimSummary } from './async-summary.ts';
import { type Compactor, MAX_CONSECUTIVE_COMPACTIONS } from './compactor.ts';
import { runEmergencySequence } from './recover-from-overflow.ts';

/**
 * The triggered compactions due at these moments (hooks, the automatic one included, then the message
 * count), each at most once per call, as decide-compaction.ts plans them; the state is read afresh after
 * each, so one that relieved the pressure stops the ones after it.
 */
export async function runTriggeredCompactions(
  compactor: Compactor,
  moments: readonly CompactionMoment[],
): Promise<void> {
  const { policy, budget } = compactor;
  const tried = new Set<string>();
  for (;;) {
    const plan = nextTriggeredCompaction(policy, budget.window(), budget.triggerState(), moments, tried);
    if (!plan) return;
    tried.add(plan.trigger);
    await compactor.carryOut(plan);
  }
}

/**
 * The proactive path (picoclaw's isOverContextBudget before every call): while the full formula says
 * the request cannot fit, escalate through the policy's steps (`escalationSteps`). Each step must shrink
 * the history, and the loop is capped, so it can never spin; past the steps, a summary or reminder that
 * alone keeps the request over goes too.
 */
export async function fitProactively(compactor: Compactor): Promise<void> {
  const { policy, runtime, budget } = compactor;
  let rounds = 0;
  for (const step of escalationSteps(policy, budget.window())) {
    if (!budget.overBudget()) return;
    if (rounds++ >= MAX_CONSECUTIVE_COMPACTIONS) break;
    await takeStep(compactor, step);
  }
  if (budget.overBudget() && (runtime.view.summary || runtime.view.reminder !== undefined)) {
    await compactor.resetTo(runtime.view.cut?.throughSeq ?? -1, false, 'token_budget');
  }
  // The policy's own token budget (cowagent) is a target; only a request over the window cannot be sent.
  const regions = budget.regions();
  if (isOverContextBudget(regions)) {
    // The scale a reported overflow put on the estimate can make the newest message alone look too large
    // (figures far from our count): what our own count says fits is sent, and a real overflow is recovered
    // again. Refusing would leave the session unable to send anything, its scale never corrected.
    if (budget.scale() > 1 && !isOverContextBudget(budget.countedRegions())) return;
    throw new ContextBudgetError('history', regions);
  }
}

/** The smallest limit the snip step halves down to. */
export const SNIP_MIN_LIMIT = 64;

/**
 * Where halving from `start` can begin: the first limit not certain to leave the entries over `budget`.
 * A message clipped to a limit keeps more than half of it (the clip aims just under the limit), so a
 * limit at which the entries would be over even if every clipped one kept only half is passed over
 * without clipping anything: each round re-clips every message over its limit, and the rounds that
 * could not have been enough were most of the work on a long turn.
 */
export function firstSnipLimit(entryTokens: readonly number[], budget: number, start: number): number {
  let limit = start;
  while (limit / 2 >= SNIP_MIN_LIMIT) {
    let leastLeft = 0;
    for (const tokens of entryTokens) leastLeft += tokens > limit ? limit / 2 : tokens;
    if (leastLeft <= budget) return limit;
    limit = Math.floor(limit / 2);
  }
  return limit;
}

async function takeStep(compactor: Compactor, step: EscalationStep): Promise<boolean> {
  const { policy, budget } = compactor;
  switch (step.kind) {
    case 'compact':
      return compactor.carryOut(step.plan);
    case 'emergency':
      return runEmergencySequence(compactor, policy.emergency, 'token_budget');
    case 'compress-text': {
      const plan = planTokenBudgetTrim(budget.input(), {
        belowTurns: policy.compressText.belowTurns,
        includeCurrentTurn: false,
      });
      if (!plan) return false;
      if (plan.kind === 'compress') return compactor.apply([plan.edit], 'compress-text', 'token_budget');
      // cowagent: "with discarded content written to memory and a context summary injected", as turn trimming.
      const shrunk = await compactor.dropThroughSeq(plan.throughSeq, plan.trimmed, {
        layer: 'trim',
        reason: 'token_budget',
        withReminder: false,
      });
      scheduleTrimSummary(compactor, plan.trimmed, plan.throughSeq);
      return shrunk;
    }
    case 'fit-turns':
    case 'fit-messages': {
      // fit-messages: even snipped, the newest turn alone is over (one request, many tool calls): keep the
      // newest of its messages that fit, cutting where no call/result pair is split.
      const plan = planFitToBudget(budget.input(), {
        budget: budget.entryBudget(),
        ...(step.kind === 'fit-messages' ? { cutAt: 'message' as const } : {}),
      });
      if (!plan) return false;
      return compactor.dropThroughSeq(plan.throughSeq, plan.dropped, {
        layer: 'drop',
        reason: 'token_budget',
        withReminder: true,
      });
    }
    case 'snip': {
      // First clip anything over its share of the budget, then halve.
      let limit = firstSnipLimit(
        budget.input().entryTokens,
        budget.entryBudget(),
        Math.max(SNIP_MIN_LIMIT, Math.floor(historyBudget({ ...budget.regions() }) * step.fraction)),
      );
      let shrunk = false;
      while (budget.overBudget() && limit >= SNIP_MIN_LIMIT) {
        const edits = planSnipOversized(budget.input(), {
          maxTokensPerMessage: limit,
          marker: '[… snipped to fit the context window …]',
          layer: 'snip',
          reason: 'token_budget',
        });
        if (await compactor.apply(edits, 'snip', 'token_budget')) shrunk = true;
        limit = Math.floor(limit / 2);
      }
      return shrunk;
    }
  }
}
