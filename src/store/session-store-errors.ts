import { CtxkitError } from '../core/errors.ts';

/** A row read back from a durable store that is not what ctxkit wrote: names the session and the position. */
export class CorruptSessionError extends CtxkitError {
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
  constructor(location: string) {
    super('store_closed', `session store ${location} is closed`, { location });
  }
}

/** Another process held the database's write lock for longer than the store waits. */
export class StoreBusyError extends CtxkitError {
  constructor(location: string, waitedMs: number) {
    super(
      'store_busy',
      `session store ${location} stayed locked by another writer for more than ${waitedMs} ms`,
      { location, waitedMs },
    );
  }
}
