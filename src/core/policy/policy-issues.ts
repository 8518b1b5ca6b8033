import type { z } from 'zod';
import { InvalidPolicyError } from '../errors/index.ts';
import { valueAtPath } from '../value-at-path.ts';
import { didYouMean, nearestNames } from './nearest-name.ts';
import { formatPath, keysAt, type PolicyPath } from './policy-paths.ts';

/**
 * Turns zod's issues into one InvalidPolicyError that names the full key path, says what was
 * expected and what was found, and suggests the nearest valid key or value.
 */

export interface IssueContext {
  /** Extra names valid in the object at `path` (seed aliases), with what each means. */
  extraKeys?: (path: PolicyPath) => ReadonlyMap<string, string>;
  /** The key as the user wrote it, when a seed name was translated to this ctxkit path. */
  writtenAs?: (path: string) => string | undefined;
}

export interface PolicyIssue {
  key: string;
  reason: string;
  suggestions: string[];
}

/** `a string ("x")`, `a number (1.5)`, `an array`, … for "got …". */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
    case 'number':
      return `a number (${value})`;
    case 'boolean':
      return `a boolean (${value})`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

const EXPECTED_NAMES: Readonly<Record<string, string>> = {
  int: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  string: 'a string',
  object: 'an object',
  array: 'an array',
};

function quoteAll(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(' | ');
}

/**
 * A value outside the set a seed accepts under its own name, said in the seed's words: its key as
 * written, its values (`"llm" | "heuristic" | "off"`), and the ctxkit field it would have set.
 */
export function seedValueError(
  writtenKey: string,
  values: readonly string[],
  received: unknown,
  target: string,
): InvalidPolicyError {
  const suggestions = typeof received === 'string' ? nearestNames(received, values) : [];
  return new InvalidPolicyError(
    writtenKey,
    `expected one of ${quoteAll(values)}, got ${describeValue(received)}${didYouMean(suggestions)} (sets ${target})`,
    { suggestions, values: [...values] },
  );
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown, context: IssueContext): PolicyIssue[] {
  const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
  const key = formatPath(path);
  const received = valueAtPath(input, path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const extra = context.extraKeys?.(path) ?? new Map<string, string>();
      const candidates = [...keysAt(path), ...extra.keys()];
      return issue.keys.map((unknownKey) => {
        const suggestions = nearestNames(unknownKey, candidates);
        return {
          key: formatPath([...path, unknownKey]),
          reason: `unknown key${didYouMean(suggestions, (name) => extra.get(name))}`,
          suggestions,
        };
      });
    }
    case 'invalid_type': {
      const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
      return [{ key, reason: `expected ${expected}, got ${describeValue(received)}`, suggestions: [] }];
    }
    case 'invalid_value': {
      const values = issue.values.map(String);
      const suggestions = typeof received === 'string' ? nearestNames(received, values) : [];
      return [
        {
          key,
          reason: `expected one of ${quoteAll(issue.values)}, got ${describeValue(received)}${didYouMean(suggestions)}`,
          suggestions,
        },
      ];
    }
    case 'too_small': {
      const bound = String(issue.minimum);
      if (issue.origin === 'array')
        return [{ key, reason: `must have at least ${bound} item(s)`, suggestions: [] }];
      if (issue.origin === 'string') return [{ key, reason: 'must not be empty', suggestions: [] }];
      const relation = issue.inclusive === false ? '>' : '≥';
      return [
        { key, reason: `must be ${relation} ${bound}, got ${describeValue(received)}`, suggestions: [] },
      ];
    }
    case 'too_big': {
      const bound = String(issue.maximum);
      const relation = issue.inclusive === false ? '<' : '≤';
      return [
        { key, reason: `must be ${relation} ${bound}, got ${describeValue(received)}`, suggestions: [] },
      ];
    }
    case 'invalid_union': {
      const note = issue as unknown as { discriminator?: string; options?: unknown[] };
      if (note.options !== undefined) {
        const values = note.options.map(String);
        const suggestions = typeof received === 'string' ? nearestNames(received, values) : [];
        return [
          {
            key,
            reason: `expected one of ${quoteAll(note.options)}, got ${describeValue(received)}${didYouMean(suggestions)}`,
            suggestions,
          },
        ];
      }
      return [
        { key, reason: `does not match any accepted form, got ${describeValue(received)}`, suggestions: [] },
      ];
    }
    case 'invalid_format':
      return [
        { key, reason: `must be a valid ${issue.format}, got ${describeValue(received)}`, suggestions: [] },
      ];
    default:
      return [{ key, reason: issue.message, suggestions: [] }];
  }
}

/** All issues of a failed parse, described. */
/**
 * All issues of a failed parse, described. A key written under a seed name is reported as written
 * (`runtime.context.keep_recent`), with the ctxkit field it sets.
 */
export function describeIssues(error: z.ZodError, input: unknown, context: IssueContext = {}): PolicyIssue[] {
  const issues = error.issues.flatMap((issue) => describeIssue(issue, input, context));
  return issues.map((issue) => {
    const original = context.writtenAs?.(issue.key);
    if (original === undefined || original === issue.key) return issue;
    const unknownKey = issue.reason.startsWith('unknown key');
    return {
      ...issue,
      key: original,
      reason: unknownKey ? issue.reason : `${issue.reason} (sets ${issue.key})`,
    };
  });
}

/** One error naming the first problem; the rest are listed in the message tail and in `details.issues`. */
export function policyErrorFromIssues(issues: readonly PolicyIssue[]): InvalidPolicyError {
  const [first, ...rest] = issues;
  if (first === undefined) return new InvalidPolicyError('(policy)', 'invalid policy');
  const tail =
    rest.length === 0
      ? ''
      : ` (and ${rest.length} more: ${rest.map((issue) => `${issue.key}: ${issue.reason}`).join('; ')})`;
  return new InvalidPolicyError(first.key, `${first.reason}${tail}`, {
    suggestions: first.suggestions,
    issues: issues.map((issue) => ({ ...issue })),
  });
}

export function policyErrorFromZod(
  error: z.ZodError,
  input: unknown,
  context: IssueContext = {},
): InvalidPolicyError {
  return policyErrorFromIssues(describeIssues(error, input, context));
}
