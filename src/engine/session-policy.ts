import { isDeepStrictEqual } from 'node:util';
import { InvalidPolicyError } from '../core/errors/index.ts';
import { isRecord } from '../core/is-record.ts';
import { mergePolicy } from '../core/policy/merge-policy.ts';
import { leafEntries } from '../core/policy/parse-policy.ts';
import { describeIssues, type PolicyIssue, policyErrorFromIssues } from '../core/policy/policy-issues.ts';
import { parsePath } from '../core/policy/policy-paths.ts';
import { type Policy, type PolicyOverride, PolicyOverrideSchema } from '../core/policy/policy-schema.ts';
import { valueAtPath } from '../core/value-at-path.ts';

/**
 * A session's own policy: the manager's policy with the session's override applied field by field
 * (digitorn's per-agent override: "Unspecified fields fall back to the app-level defaults"), as
 * `mergePolicy` merges any override.
 *
 * Most of the policy is read per call (every layer, trigger, hook, budget and index setting), so a session
 * may override it. A few keys set up what the manager builds once and shares between sessions: an
 * override may not change those (it would be stored and then silently ignored), and saying so names the
 * key and why. Setting one to the value the manager has changes nothing and is accepted (and dropped).
 */

/** The policy keys one manager applies to all its sessions (a key covers every field under it), with why. */
export const MANAGER_WIDE_POLICY_KEYS: Readonly<Record<string, string>> = {
  'tokens.counter': 'the token counters are chosen once, when the manager is created',
  'tokens.encoding': 'the token counters are chosen once, when the manager is created',
  'tokens.charsPerToken': 'the token counters are chosen once, when the manager is created',
  'tokens.messageOverhead':
    "every session's messages are counted by one token cache, set up with the manager",
  'tokens.mediaTokens': "every session's messages are counted by one token cache, set up with the manager",
  'tokens.countToolCallType':
    "every session's messages are counted by one token cache, set up with the manager",
  'summarize.model': 'the summarizer is chosen once, when the manager is created',
  'summarize.inputMaxTokens': 'it sizes the summarizer chosen when the manager is created',
  'retention.maxIdleDays': "retention sweeps the manager's whole store on one schedule",
  display: "the dashboard shows every session in the manager's colours",
};

/** A session's policy: the override it has (`{}` when none) and the policy it runs under. */
export interface SessionPolicy {
  override: PolicyOverride;
  policy: Policy;
}

/** The manager-wide key a leaf path (`summarize.model.model`) falls under, if any. */
export function managerWideKeyOf(path: string): string | undefined {
  return Object.keys(MANAGER_WIDE_POLICY_KEYS).find(
    (key) => path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`),
  );
}

/**
 * Checks an override against the manager's policy: its shape (strict: unknown keys named), the keys a
 * session may not change, and the rules that tie fields together once merged. Every problem is in one
 * `InvalidPolicyError` (`details.issues`, each with its key path); one about a manager-wide key has
 * `details.scope: 'manager'`. Returns the override as kept (parsed, manager-wide keys equal to the
 * manager's dropped, emptied sections removed) and the session's policy. Neither input is modified.
 */
export function resolveSessionPolicy(base: Policy, input: unknown): SessionPolicy {
  if (!isRecord(input)) {
    throw new InvalidPolicyError(
      'override',
      `must be an object of policy fields (as in a config file), got ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}`,
    );
  }
  const parsed = PolicyOverrideSchema.safeParse(input);
  const issues: PolicyIssue[] = parsed.success ? [] : describeIssues(parsed.error, input);
  const named = new Set(issues.map((issue) => issue.key));
  const unchanged: string[] = [];
  const managerWide: PolicyIssue[] = [];
  for (const [path, value] of leafEntries(input)) {
    const key = managerWideKeyOf(path);
    if (key === undefined || named.has(path)) continue;
    if (isDeepStrictEqual(value, valueAtPath(base, parsePath(path)))) unchanged.push(path);
    else
      managerWide.push({
        key: path,
        reason: `is set for the whole manager and cannot be overridden per session: ${MANAGER_WIDE_POLICY_KEYS[key]}`,
        suggestions: [],
      });
  }
  if (!parsed.success || managerWide.length > 0) {
    const error = policyErrorFromIssues([...issues, ...managerWide]);
    if (issues.length > 0) throw error;
    throw new InvalidPolicyError(error.key, String(error.details.reason), {
      ...error.details,
      scope: 'manager',
    });
  }
  const override = withoutEmptyObjects(withoutPaths(parsed.data, unchanged)) as PolicyOverride;
  if (Object.keys(override).length === 0) return { override: {}, policy: base };
  return { override, policy: mergePolicy(base, override) };
}

/**
 * RFC 7396 JSON merge patch: objects merge key by key, `null` removes a key, anything else (arrays
 * included) replaces. Pure; the result shares nothing with either input.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const entries = new Map<string, unknown>(isRecord(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) entries.delete(key);
    else entries.set(key, applyMergePatch(entries.get(key), value));
  }
  // Object.fromEntries defines own properties: a `__proto__` key stays a key (and is refused as unknown).
  return structuredClone(Object.fromEntries(entries));
}

/** A copy without the leaves at these (dotted) paths. */
function withoutPaths(value: unknown, paths: readonly string[]): unknown {
  if (paths.length === 0) return value;
  const copy = structuredClone(value);
  for (const path of paths) {
    const segments = parsePath(path);
    const last = segments.pop();
    const parent = valueAtPath(copy, segments);
    if (last !== undefined && isRecord(parent)) delete parent[String(last)];
  }
  return copy;
}

/** `{ summarize: {} }` says nothing: sections a merge patch emptied go, so the override reads as set. */
function withoutEmptyObjects(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const kept = withoutEmptyObjects(child);
    if (isRecord(kept) && Object.keys(kept).length === 0) continue;
    out[key] = kept;
  }
  return out;
}
