import { InvalidPolicyError } from '../errors/index.ts';
import { isRecord } from '../is-record.ts';
import { policyErrorFromZod } from './policy-issues.ts';
import { type Policy, type PolicyOverride, PolicySchema } from './policy-schema.ts';

/**
 * digitorn, "Per-agent override": the agent-level block "fully overrides runtime.context for that
 * agent. Unspecified fields fall back to the app-level defaults." So merging is by field, deep through
 * objects; arrays (hooks, excludeTools, emergency.sequence) are values and are replaced whole, and an
 * `undefined` field means "not specified", never "unset it".
 */

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Deep merge of plain data: objects merged by key, everything else (arrays included) replaced. */
export function deepMerge<T>(base: T, override: unknown): T {
  if (!isRecord(base) || !isRecord(override)) {
    return (override === undefined ? clone(base) : clone(override)) as T;
  }
  const merged: Record<string, unknown> = clone(base);
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    merged[key] = key in merged ? deepMerge(merged[key], value) : clone(value);
  }
  return merged as T;
}

/** Merge two overrides (the later wins field by field); the result is still an override. */
export function mergeOverrides(first: PolicyOverride, second: PolicyOverride): PolicyOverride {
  return deepMerge(first, second);
}

/**
 * Apply an override to a complete policy, field by field, and validate the result (cross-field rules
 * included). Throws InvalidPolicyError naming the offending key. Neither input is modified.
 */
export function mergePolicy(base: Policy, override: PolicyOverride): Policy {
  const merged = deepMerge(base, override);
  const result = PolicySchema.safeParse(merged);
  if (!result.success) throw policyErrorFromZod(result.error, merged);
  return result.data;
}

/**
 * A complete policy handed in by a library caller (`{ ...PRESETS.default, model }`, or one built by
 * hand), checked as a config file is: the same schema and cross-field rules, an InvalidPolicyError naming
 * the key (`summarize.trigger`, `budget`) for anything else. Returns the policy as parsed (defaults filled).
 */
export function validatePolicy(policy: unknown): Policy {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy))
    throw new InvalidPolicyError(
      'policy',
      `must be a policy object (a preset such as PRESETS.default), got ${policy === null ? 'null' : Array.isArray(policy) ? 'an array' : typeof policy}`,
    );
  const result = PolicySchema.safeParse(policy);
  if (!result.success) throw policyErrorFromZod(result.error, policy);
  // As parsed: a hook condition left without its threshold gets the schema's default.
  return result.data;
}
