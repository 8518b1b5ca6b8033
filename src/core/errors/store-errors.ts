import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

export class InvalidRetentionError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_retention';
  constructor(field: string, reason: string) {
    super('invalid_retention', `retention ${field}: ${reason}`, { field, reason });
  }
}

export class SequenceConflictError extends CtxkitError {
  static override readonly code: ErrorCode = 'sequence_conflict';
  constructor(sessionId: string, what: 'messages' | 'edits', expected: number, actual: number) {
    super(
      'sequence_conflict',
      `session ${sessionId}: another writer appended ${what} first (expected position ${expected}, found ${actual}); re-read and retry`,
      { sessionId, what, expected, actual },
    );
  }
}

export class InvalidAppendError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_append';
  constructor(sessionId: string, reason: string) {
    super('invalid_append', `session ${sessionId}: ${reason}`, { sessionId });
  }
}

/** An event that is not a ContextEvent the trace can keep: names the field. */
export class InvalidTraceEventError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_trace_event';
  constructor(reason: string) {
    super('invalid_trace_event', `not a trace event: ${reason}`, { reason });
  }
}

export class TraceStoreClosedError extends CtxkitError {
  static override readonly code: ErrorCode = 'store_closed';
  constructor(location: string) {
    super('store_closed', `trace store ${location} is closed`, { location });
  }
}

/** A row read back from a durable store that is not what ctxkit wrote: names the session and the position. */
export class CorruptSessionError extends CtxkitError {
  static override readonly code: ErrorCode = 'corrupt_session';
  constructor(
    sessionId: string,
    where: { table: 'sessions' | 'messages' | 'edits'; position?: number },
    reason: string,
  ) {
    const at =
      where.table !== 'sessions' && where.position === undefined
        ? `the ${where.table} table`
        : where.table === 'messages'
          ? `message seq ${where.position}`
          : where.table === 'edits'
            ? `edit ${where.position}`
            : 'session row';
    super('corrupt_session', `session ${sessionId}: ${at} is corrupt: ${reason}`, {
      sessionId,
      table: where.table,
      position: where.position,
      reason,
    });
  }
}

/** The database was written by a newer ctxkit: this one must not touch it (upgrade, never downgrade). */
export class SchemaTooNewError extends CtxkitError {
  static override readonly code: ErrorCode = 'schema_too_new';
  constructor(location: string, found: number, supported: number) {
    super(
      'schema_too_new',
      `${location} has schema version ${found}, but this ctxkit supports schema versions up to ${supported}: upgrade ctxkit to open it`,
      { location, found, supported },
    );
  }
}

/** A store used after `close()`. */
export class StoreClosedError extends CtxkitError {
  static override readonly code: ErrorCode = 'store_closed';
  constructor(location: string) {
    super('store_closed', `session store ${location} is closed`, { location });
  }
}

/** Another process held the database's write lock for longer than the store waits. */
export class StoreBusyError extends CtxkitError {
  static override readonly code: ErrorCode = 'store_busy';
  constructor(location: string, waitedMs: number) {
    super(
      'store_busy',
      `session store ${location} stayed locked by another writer for more than ${waitedMs} ms`,
      { location, waitedMs },
    );
  }
}

/**
 * A row or file read back from a durable store (the trace, the memory index, a daily memory file) that is
 * not what ctxkit wrote: names where it was found and why it was refused, never a crash later.
 */
export class StoredDataInvalidError extends CtxkitError {
  static override readonly code: ErrorCode = 'stored_data_invalid';
  constructor(where: string, reason: string) {
    super('stored_data_invalid', `${where}: not valid as stored: ${reason}`, { where, reason });
  }
}
