/**
 * One message as it sits in its source: the parsed JSON value plus where it came from, so that every
 * validation error can name the file, the line (JSONL) and the field.
 */

import type { z } from 'zod';
import { InvalidInputError } from '../core/errors/index.ts';
import { valueAtPath } from '../core/value-at-path.ts';

export interface SourceItem {
  value: unknown;
  /** 1-based line in the file, for JSONL sources. */
  line?: number;
  /** Field path of the value inside its document, e.g. `messages[3]`; empty for a JSONL line. */
  field: string;
}

/** `messages[3]` + `tool_calls[0].name` → `messages[3].tool_calls[0].name`. */
export function joinField(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Error at `field` (relative to the item) of one source item. */
export function invalidAt(item: SourceItem, file: string | undefined, field: string, reason: string) {
  return new InvalidInputError(reason, {
    ...(file !== undefined && { file }),
    ...(item.line !== undefined && { line: item.line }),
    field: field ? (item.field ? `${item.field}.${field}` : field) : item.field || undefined,
  });
}

/** Validates one item against a schema; a failure is an InvalidInputError naming file, line and field. */
export function validateItem<S extends z.ZodType>(schema: S, item: SourceItem, file?: string): z.output<S> {
  const result = schema.safeParse(item.value);
  if (result.success) return result.data;
  throw invalidInputFromZod(result.error, item, file);
}

type Issue = z.core.$ZodIssue;

export function invalidInputFromZod(error: z.ZodError, item: SourceItem, file?: string): InvalidInputError {
  const first = error.issues[0];
  const { path, reason } = first
    ? describeIssue(first, item.value, [])
    : { path: [], reason: 'invalid input' };
  return new InvalidInputError(reason, {
    ...(file !== undefined && { file }),
    ...(item.line !== undefined && { line: item.line }),
    ...(joinField(item.field, path) && { field: joinField(item.field, path) }),
  });
}

/** Turns a zod issue into a path and a reason a person can act on, looking inside unions. */
function describeIssue(
  issue: Issue,
  root: unknown,
  base: ReadonlyArray<PropertyKey>,
): { path: PropertyKey[]; reason: string } {
  const path = [...base, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return { path: [...path, key], reason: `unknown field "${key}"` };
  }
  if (issue.code === 'invalid_union') {
    if ('discriminator' in issue && issue.discriminator !== undefined) {
      const key = path.at(-1) ?? issue.discriminator;
      const actual = valueAtPath(root, path);
      const expected = (issue as { options?: unknown[] }).options
        ?.map((option) => JSON.stringify(option))
        .join(', ');
      return {
        path,
        reason:
          actual === undefined
            ? `missing ${String(key)}`
            : `unknown ${String(key)} ${JSON.stringify(actual)}${expected ? `; expected one of ${expected}` : ''}`,
      };
    }
    // A plain union: report the branch that got furthest, or list what would have been accepted.
    const branches = issue.errors.map((issues) => issues[0]).filter((branch) => branch !== undefined);
    const deepest = branches.reduce<Issue | undefined>(
      (best, branch) => (!best || branch.path.length > best.path.length ? branch : best),
      undefined,
    );
    if (deepest && deepest.path.length > 0) return describeIssue(deepest, root, path);
    const expected = branches
      .map((branch) => (branch.code === 'invalid_type' ? branch.expected : undefined))
      .filter((name) => name !== undefined);
    if (expected.length === branches.length && expected.length > 0) {
      return {
        path,
        reason: `expected ${expected.join(' or ')}, received ${kindOf(valueAtPath(root, path))}`,
      };
    }
    if (deepest) return describeIssue(deepest, root, path);
  }
  if (issue.code === 'invalid_type' && valueAtPath(root, path) === undefined) {
    return { path, reason: `missing ${String(path.at(-1) ?? 'value')} (expected ${issue.expected})` };
  }
  return { path, reason: issue.message };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
