/**
 * A session's policy override as every store keeps it: JSON text, checked with the override schema both
 * ways. Writing refuses what is not an override (an `InvalidPolicyError` naming the key, before anything
 * is stored); reading turns a damaged value into a `CorruptSessionError`, never a crash later.
 *
 * The store checks the override's shape only. Whether it fits the policy it is applied over, and which
 * keys a session may override, is the engine's to say (see `engine/session-policy.ts`).
 */

import { describeIssues, policyErrorFromZod } from '../core/policy/policy-issues.ts';
import { type PolicyOverride, PolicyOverrideSchema } from '../core/policy/policy-schema.ts';
import { parseSessionJsonColumn } from './session-json-column.ts';

/** A session's policy override as stored, and when it was set. */
export interface StoredPolicyOverride {
  override: PolicyOverride;
  /** Epoch ms of the write that set it. */
  updatedAt: number;
}

/** The override, checked, as the JSON text the SQL stores keep (`ctxkit_sessions.policy_override`). */
export function encodePolicyOverride(override: PolicyOverride): string {
  return JSON.stringify(checkPolicyOverrideShape(override));
}

/** The override, checked and parsed (a copy: the caller's object is never kept). */
export function checkPolicyOverrideShape(override: PolicyOverride): PolicyOverride {
  const parsed = PolicyOverrideSchema.safeParse(override);
  if (!parsed.success) throw policyErrorFromZod(parsed.error, override);
  return parsed.data;
}

/** A stored (text, time) pair back as an override; undefined when the session has none. */
export function decodePolicyOverride(
  sessionId: string,
  text: unknown,
  updatedAt: unknown,
): StoredPolicyOverride | undefined {
  const column = parseSessionJsonColumn(sessionId, 'policy_override', text);
  if (column === undefined) return undefined;
  const { value, corrupt } = column;
  const parsed = PolicyOverrideSchema.safeParse(value);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, value);
    throw corrupt(
      `is not a policy override: ${issues.map((issue) => `${issue.key}: ${issue.reason}`).join('; ')}`,
    );
  }
  const at = Number(updatedAt);
  if (updatedAt === null || !Number.isFinite(at)) throw corrupt('has no valid time (policy_updated_at)');
  return { override: parsed.data, updatedAt: at };
}
