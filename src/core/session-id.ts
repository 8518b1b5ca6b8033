import { InvalidSessionIdError } from './errors/index.ts';

/**
 * Session ids are the caller's: `tenant:42`, `alice@example.com`, `a/b c`, `日本語`, a UUID. Any of them
 * works end to end (stores keep them byte for byte; the filesystem blob store maps each to a path-safe
 * directory name of its own, see `store/blob-store-ids.ts`). Refused, up front, is only what no store
 * can keep exactly: not a string, empty, longer than `MAX_SESSION_ID_LENGTH`, a NUL character
 * (PostgreSQL text refuses it) or a lone UTF-16 surrogate (it would not survive UTF-8).
 */

/** The longest session id accepted, in UTF-16 code units (`string.length`). */
export const MAX_SESSION_ID_LENGTH = 512;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a value is not an acceptable id of at most `maxLength` code units, or undefined when it is. */
export function idProblem(value: unknown, maxLength: number): string | undefined {
  if (typeof value !== 'string') return `must be a string, got ${value === null ? 'null' : typeof value}`;
  if (value.length === 0) return 'must not be empty';
  if (value.length > maxLength) return `is ${value.length} characters long, the maximum is ${maxLength}`;
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed text (it holds a lone UTF-16 surrogate)';
  return undefined;
}

export function isValidSessionId(value: unknown): value is string {
  return idProblem(value, MAX_SESSION_ID_LENGTH) === undefined;
}

export function assertValidSessionId(value: unknown): asserts value is string {
  const problem = idProblem(value, MAX_SESSION_ID_LENGTH);
  if (problem !== undefined) throw new InvalidSessionIdError(value, problem);
}
