import { pressureDenominator, reachableThreshold } from '../budget/pressure-measure.ts';
import type { Hook, Policy } from './policy-schema.ts';

/**
 * digitorn: "When runtime.context.auto_compact: true (default), the runtime auto-injects a hook
 * equivalent to: id _auto_compact, on turn_start, condition context_pressure (threshold =
 * compression_trigger), action compact_context (strategy, keep_recent, summary_max_tokens),
 * cooldown 30.0 … The injection is skipped when an explicit compact_context hook already exists."
 *
 * ctxkit builds that hook from the summarize settings of any policy, so every preset's automatic
 * compaction is one hook the engine runs like a declared one.
 */

export const AUTO_COMPACT_HOOK_ID = '_auto_compact';

/** Whether a hook is the automatic one `summarize.auto` stands for (its compactions are pressure's, not a hook's). */
export function isAutoCompactHook(hook: Pick<Hook, 'id'>): boolean {
  return hook.id === AUTO_COMPACT_HOOK_ID;
}

/** The resolved window, for presets whose trigger is a token limit rather than a fraction. */
export interface HookWindow {
  contextWindow: number;
  maxOutputTokens: number;
  /**
   * `false` when the model's window is unknown and the window stands in for tiancai's MaxTokens
   * fallback: the limit is then MaxTokens itself, not window − ReserveTokens. Default true.
   */
  known?: boolean;
}

/**
 * The pressure at which automatic compaction fires, in the policy's own measure (budget.pressureOf):
 * summarize.trigger, or, when that is 0 (tiancai's rule), the effective token limit contextWindow −
 * reserveTokens (else maxContextTokens) divided by the measure's denominator. With a window, a
 * trigger past the largest request that fits is brought down to it (`reachableThreshold`). Without a
 * window it is summarize.trigger, else 1: the limit is then the message count and the proactive
 * check, which stay in the summarize settings.
 */
export function autoCompactThreshold(policy: Policy, window?: HookWindow): number {
  const { summarize, budget } = policy;
  const measure = budget.pressureOf;
  if (window === undefined) return summarize.trigger > 0 ? summarize.trigger : 1;
  if (summarize.trigger > 0) return reachableThreshold(summarize.trigger, measure, window);
  const denominator = pressureDenominator(measure, window);
  if (window.contextWindow - window.maxOutputTokens <= 0 || denominator <= 0) return 1;
  let limit: number | undefined;
  if (window.known === false) {
    if (budget.maxContextTokens > 0) limit = budget.maxContextTokens;
  } else if (budget.reserveTokens > 0) limit = window.contextWindow - budget.reserveTokens;
  if (budget.maxContextTokens > 0 && budget.maxContextTokensWhen === 'always') {
    limit = Math.min(limit ?? budget.maxContextTokens, budget.maxContextTokens);
  }
  if (limit === undefined) return 1;
  return Math.min(1, reachableThreshold(Math.max(0, limit / denominator), measure, window));
}

/** The hook `summarize.auto` stands for, built from the summarize settings. */
export function autoCompactHook(policy: Policy, window?: HookWindow): Hook {
  const { summarize } = policy;
  return {
    id: AUTO_COMPACT_HOOK_ID,
    on: summarize.runOn,
    condition: { type: 'context_pressure', threshold: autoCompactThreshold(policy, window) },
    action: {
      type: 'compact_context',
      strategy: summarize.strategy,
      // Only a message count maps onto the hook's keep_recent; other keep rules stay in summarize.
      ...(summarize.keepRecentMessages > 0 &&
      summarize.keepRecentTokens === 0 &&
      summarize.keepRecentFraction === 0 &&
      summarize.keepRecentTurns === 0
        ? { keepRecent: summarize.keepRecentMessages }
        : {}),
      ...(summarize.maxSummaryTokens > 0 ? { summaryMaxTokens: summarize.maxSummaryTokens } : {}),
    },
    ...(summarize.cooldownSeconds > 0 ? { cooldownSeconds: summarize.cooldownSeconds } : {}),
  };
}

/**
 * The hooks to run: the declared ones, plus the auto-compact hook when `summarize.auto` is on and no
 * declared hook already compacts (declaring one replaces the default completely).
 */
export function effectiveHooks(policy: Policy, window?: HookWindow): Hook[] {
  const declared = policy.hooks.map((hook) => structuredClone(hook));
  const declaresCompaction = declared.some((hook) => hook.action.type === 'compact_context');
  if (!policy.summarize.auto || declaresCompaction) return declared;
  return [...declared, autoCompactHook(policy, window)];
}
