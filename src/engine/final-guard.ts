import { ContextBudgetError } from '../core/errors/index.ts';
import type { AssembledRequest } from './assemble-request.ts';
import type { Compactor } from './compactor.ts';
import { runEmergencySequence } from './recover-from-overflow.ts';
import { type RequestTally, tallyRequest } from './request-ledger.ts';

/** Fit-and-recount rounds before the emergency sequence; each one shrinks the history or stops. */
export const FINAL_GUARD_MAX_ROUNDS = 4;
/** Each round asks the estimate for this much more room than the count showed missing (1 %, 2 %, …). */
export const FINAL_GUARD_STEP = 0.01;

/** What the final guard found and did, reported with the prepared call. */
export interface FinalGuardReport {
  /** The request as sent, counted exactly (`exact`) or bounded from above (`bound`). */
  tokens: number;
  method: 'exact' | 'bound';
  /** contextWindow − maxOutputTokens: what `tokens` had to fit in. */
  limit: number;
  /** Rounds of fitting the guard ran (0: the policy's own estimate was right). */
  rounds: number;
}

export interface GuardedRequest {
  assembled: AssembledRequest;
  tally: RequestTally;
  guard: FinalGuardReport | undefined;
}

/**
 * The last check before a request leaves `prepare()` (policy `budget.finalGuard`): the request as
 * assembled is counted the way the provider counts it, and when it does not fit in the window less the
 * output reserve, it is fitted with the engine's own means, cheapest first. The policy's estimate is
 * scaled up by the ratio the count showed (as a provider-reported overflow scales it) only while the
 * proactive path (`refit`) runs again; each round recounts, and past the rounds the policy's emergency
 * sequence runs. The layers never separate a tool call from its result. The raised scale is the
 * guard's own (a compactor whose budget reads it, `Compactor.withScale`): the session's overflow record
 * is not touched, and the policy's thresholds and triggers keep reading its own estimate.
 */
export async function guardFinalRequest(
  compactor: Compactor,
  assemble: () => AssembledRequest,
  refit: (compactor: Compactor) => Promise<void>,
): Promise<GuardedRequest> {
  const { runtime, policy, call } = compactor;
  const enabled = policy.budget.finalGuard;
  const tally = (request: AssembledRequest) =>
    tallyRequest(runtime, call.requestCounting, request, call.tools, enabled);
  let assembled = assemble();
  let counted = tally(assembled);
  if (!enabled || counted.tokens === undefined) return { assembled, tally: counted, guard: undefined };
  const limit = call.contextWindow - call.maxOutputTokens;
  let rounds = 0;
  if ((counted.tokens ?? 0) > limit) {
    let scaled = compactor;
    while ((counted.tokens ?? 0) > limit && rounds < FINAL_GUARD_MAX_ROUNDS + 1) {
      rounds++;
      const scale = scaled.budget.scale();
      const regions = scaled.budget.regions();
      const fixed = regions.system + regions.toolDefinitions + regions.summary;
      const history = Math.max(1, compactor.budget.scaledHistoryTokens(scale));
      // The scale at which the estimate reads what the count says, and a little more each round.
      const ratio = Math.max(1, ((counted.tokens ?? 0) - fixed) / history) * (1 + FINAL_GUARD_STEP * rounds);
      scaled = compactor.withScale(scale * ratio);
      try {
        if (rounds <= FINAL_GUARD_MAX_ROUNDS) await refit(scaled);
        else await runEmergencySequence(scaled, policy.emergency, 'token_budget');
      } catch (error) {
        if (!ContextBudgetError.isInstance(error)) throw error;
        // "Cannot fit" was read off the scaled estimate, which can overstate what is left (the newest
        // message alone, scaled): what the layers made so far is counted as sent before giving up. An
        // exact count that does not fit is thrown below; under a bound, "cannot fit" may be the bound's
        // margin speaking, and the smallest request goes.
        assembled = assemble();
        counted = tally(assembled);
        break;
      }
      assembled = assemble();
      counted = tally(assembled);
    }
    // What the guard committed (a summary among them) must still fit the policy's own estimate.
    if (compactor.budget.overBudget()) {
      await refit(compactor);
      assembled = assemble();
      counted = tally(assembled);
    }
    // An exact count that still does not fit is the provider's answer: nothing is sent. An upper bound
    // that does not fit the smallest request the layers can make is only a bound: the request goes, and
    // a real overflow takes the reactive path.
    if ((counted.tokens ?? 0) > limit && counted.method === 'exact')
      throw new ContextBudgetError('history', compactor.budget.regions());
  }
  return {
    assembled,
    tally: counted,
    guard: { tokens: counted.tokens ?? 0, method: counted.method, limit, rounds },
  };
}
