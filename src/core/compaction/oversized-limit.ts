import type { Policy } from '../policy/policy-schema.ts';
import type { DecisionWindow } from './decide-compaction.ts';

/**
 * The size past which a single message is clipped before every call (digitorn: "a single huge tool result
 * blowing past 25% of the budget", clipped by truncate_oversized_messages with a marker): the policy's
 * oversizedFraction of the budget, the window less the output reserve (digitorn's `max_tokens −
 * output_reserved`). Undefined when the policy clips only to make a request fit (`oversizedWhen: to-fit`,
 * the snip step), or when there is no window to take a fraction of.
 */
export function oversizedMessageLimit(policy: Policy, window: DecisionWindow): number | undefined {
  const { oversizedFraction, oversizedWhen } = policy.toolOutput;
  if (oversizedWhen !== 'always' || oversizedFraction <= 0 || window.unbounded) return undefined;
  const budget = window.contextWindow - window.maxOutputTokens;
  if (budget <= 0) return undefined;
  return Math.max(64, Math.floor(budget * oversizedFraction));
}
