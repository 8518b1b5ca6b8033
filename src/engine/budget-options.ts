import { InvalidPolicyError } from '../core/errors/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';

/** The context window and reply reserve given as plain manager options, over the policy's budget. */
export interface BudgetOptions {
  contextWindow?: number | undefined;
  maxOutputTokens?: number | undefined;
}

/** The policy with the `contextWindow` / `maxOutputTokens` options in its budget, checked. */
export function withBudgetOptions(policy: Policy, options: BudgetOptions): Policy {
  const { contextWindow, maxOutputTokens } = options;
  if (contextWindow === undefined && maxOutputTokens === undefined) return policy;
  const positive = (key: string, value: unknown): void => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new InvalidPolicyError(key, `must be a positive integer number of tokens, got ${String(value)}`);
    }
  };
  if (contextWindow !== undefined) positive('contextWindow', contextWindow);
  if (maxOutputTokens !== undefined) positive('maxOutputTokens', maxOutputTokens);
  const budget = {
    ...policy.budget,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
  };
  if (budget.contextWindow > 0 && budget.maxOutputTokens >= budget.contextWindow) {
    // Name the option the caller set: a window alone can clash with the policy's own reply reserve.
    throw maxOutputTokens === undefined
      ? new InvalidPolicyError(
          'contextWindow',
          `${budget.contextWindow} leaves no room beside the policy's output reserve (budget.maxOutputTokens ${budget.maxOutputTokens}): pass maxOutputTokens too`,
          { maxOutputTokens: budget.maxOutputTokens },
        )
      : new InvalidPolicyError(
          'maxOutputTokens',
          `must be smaller than the context window (${budget.contextWindow}), got ${budget.maxOutputTokens}`,
          { contextWindow: budget.contextWindow },
        );
  }
  return { ...policy, budget };
}
