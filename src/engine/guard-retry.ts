import { ContextBudgetError } from '../core/errors/index.ts';
import type { AssembledRequest } from './assemble-request.ts';
import type { Compactor } from './compactor.ts';
import type { GuardedRequest } from './final-guard.ts';
import { runEmergencySequence } from './recover-from-overflow.ts';
import { tallyRequest } from './request-ledger.ts';

/** Rounds of cutting deeper before the emergency sequence, when a retry is not yet smaller. */
export const RETRY_GUARD_MAX_ROUNDS = 3;
/** Each round asks the estimate for this much more room than the count showed missing (5 %, 10 %, …). */
export const RETRY_GUARD_STEP = 0.05;

/**
 * The request prepared right after a reported overflow (each retry every door sends: the proxy, the
 * agent loop, the AI SDK and LangChain middlewares) must be strictly smaller than the one that
 * overflowed, counted the same way now (the final guard's count: exact, or the calibrated bound). An
 * estimate that undercounted one message (a kind of text token units misjudge) leaves the layers
 * nothing to cut and the same request would go again, to be refused the same way.
 *
 * When the provider said how large the overflowed request was, its count over ours is the factor our
 * counts are short by: the retry is also fitted so that, scaled by it, it fits the window less the
 * output reserve. Not yet smaller (or not yet fitting): the estimate is scaled up and the proactive
 * path runs again, a few rounds, then the policy's emergency sequence. Still not smaller: nothing is
 * sent (`ContextBudgetError`), and the caller passes the provider's error on. Smaller but not
 * predicted to fit: it is sent; what it costs is the provider's to say.
 *
 * A prepare after messages were appended is a new call, not a retry: the record is dropped unchecked.
 */
export async function guardRetry(
  compactor: Compactor,
  assemble: () => AssembledRequest,
  refit: (compactor: Compactor) => Promise<void>,
  guarded: GuardedRequest,
): Promise<GuardedRequest> {
  const { runtime, call, policy } = compactor;
  const overflowed = runtime.progress.overflow.takeOverflowed();
  if (!overflowed || overflowed.nextSeq !== runtime.nextSeq) return guarded;
  const size = (request: AssembledRequest, tools: typeof overflowed.tools): number =>
    tallyRequest(runtime, call.requestCounting, request, tools, true).tokens ?? 0;
  const before = size(overflowed.request, overflowed.tools);
  const short =
    overflowed.reportedInput !== undefined && before > 0 ? Math.max(1, overflowed.reportedInput / before) : 1;
  const limit = call.contextWindow - call.maxOutputTokens;
  let assembled = guarded.assembled;
  let now = size(assembled, call.tools);
  const settled = () => now < before && now * short <= limit;
  if (!settled()) {
    // The raised scale is this guard's own (`Compactor.withScale`): the overflow record is not touched.
    let scaled = compactor;
    for (let rounds = 1; !settled() && rounds <= RETRY_GUARD_MAX_ROUNDS + 1; rounds++) {
      const regions = scaled.budget.regions();
      const fixed = regions.system + regions.toolDefinitions + regions.summary;
      // The request to reach, and the scale at which the estimate of what is there now reads as much
      // more than that as it is: the layers then cut the difference.
      const target = Math.min(before - 1, limit / short);
      const ratio = Math.max(1, (now - fixed) / Math.max(1, target - fixed));
      scaled = compactor.withScale(
        Math.max(scaled.budget.scale(), 1) * ratio * (1 + RETRY_GUARD_STEP * rounds),
      );
      try {
        if (rounds <= RETRY_GUARD_MAX_ROUNDS) await refit(scaled);
        else await runEmergencySequence(scaled, policy.emergency, 'context_overflow');
      } catch (error) {
        if (!ContextBudgetError.isInstance(error)) throw error;
      }
      assembled = assemble();
      now = size(assembled, call.tools);
    }
  }
  // The ledger is left holding the request that goes (its pointers are the ones returned).
  const tally = tallyRequest(runtime, call.requestCounting, assembled, call.tools, policy.budget.finalGuard);
  if (now >= before) throw new ContextBudgetError('history', compactor.budget.regions());
  return {
    assembled,
    tally,
    guard: guarded.guard && { ...guarded.guard, tokens: tally.tokens ?? guarded.guard.tokens },
  };
}
