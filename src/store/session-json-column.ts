import { CorruptSessionError } from '../core/errors/index.ts';

/** Reports a stored column's value as the session's corruption, naming the column. */
export type CorruptColumn = (reason: string) => CorruptSessionError;

/**
 * A JSON text column of a session's row (`policy_override`, `last_request`), parsed: undefined when the
 * session has none (NULL); text that is not JSON is the session's corruption. `corrupt` reports what the
 * caller's own check of the value finds.
 */
export function parseSessionJsonColumn(
  sessionId: string,
  column: string,
  text: unknown,
): { value: unknown; corrupt: CorruptColumn } | undefined {
  if (text === null || text === undefined) return undefined;
  const corrupt: CorruptColumn = (reason) =>
    new CorruptSessionError(sessionId, { table: 'sessions' }, `${column} ${reason}`);
  if (typeof text !== 'string') throw corrupt('is not text');
  try {
    return { value: JSON.parse(text) as unknown, corrupt };
  } catch {
    throw corrupt('is not JSON');
  }
}
