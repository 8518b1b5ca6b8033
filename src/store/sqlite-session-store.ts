/**
 * Sessions in one SQLite file (better-sqlite3, WAL), `./.ctxkit/ctxkit.db` unless configured.
 *
 * Every write is one `BEGIN IMMEDIATE` transaction: it takes the database's write lock first, then reads
 * the session's positions, checks them against what the writer expected, inserts and moves the positions
 * on. Writers (threads or processes) are serialized by that lock, and `busy_timeout` makes a second
 * process wait for it instead of failing; the (session, seq) primary keys are the backstop. So two
 * writers on one session never lose or duplicate a message: the one that comes second gets a
 * `SequenceConflictError` and can re-read and retry.
 */

import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import {
  CorruptSessionError,
  SchemaTooNewError,
  SequenceConflictError,
  StoreBusyError,
  StoreClosedError,
} from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { yieldToEventLoop } from '../core/work-slices.ts';
import { betterSqlite3 } from './load-better-sqlite3.ts';
import {
  assertPositions,
  assertSessionId,
  assertTimestamp,
  assertWritable,
  editsWrite,
  fullWrite,
  isStorableSessionId,
  messagesWrite,
  type PositionedWrite,
  type RecentSession,
  recentStart,
  type SessionListFilter,
  type SessionListing,
  type SessionPositions,
  type SessionStore,
  type StoredPolicyOverride,
  type StoredSession,
} from './session-store.ts';
import {
  CREATE_MIGRATIONS_TABLE,
  MIGRATIONS_TABLE,
  pendingMigrations,
  SESSION_STORE_SCHEMA_VERSION,
  statementsFor,
  TABLE_PREFIX,
} from './session-store-migrations.ts';
import {
  assembleRecentSession,
  assembleRecentSessionInSlices,
  assembleStoredSession,
  decodeEditRows,
  decodeMessageKeyRange,
  decodeMessageKeys,
  type EditRows,
  encodeWriteRows,
  mergeEditRows,
  toListing,
  type WriteRows,
} from './session-store-rows.ts';
import { DEFAULT_SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './sqlite-source.ts';
import { enableWal } from './sqlite-wal.ts';
import { decodeLastRequest, encodeLastRequest, type StoredLastRequest } from './stored-last-request.ts';
import { decodePolicyOverride, encodePolicyOverride } from './stored-policy-override.ts';

/** Where ctxkit keeps its files when nothing else is configured, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.ctxkit';
export const DEFAULT_SQLITE_FILE = 'ctxkit.db';
/** How long a writer waits for another process's write lock before `StoreBusyError`. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 10_000;
export { DEFAULT_SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './sqlite-source.ts';

export interface SqliteSessionStoreOptions {
  /** The database file (wins over `dataDir`); `:memory:` for a private, unshared database. */
  path?: string;
  /** The directory the database file `ctxkit.db` goes in; created if missing. */
  dataDir?: string;
  busyTimeoutMs?: number;
  synchronous?: SqliteSynchronous;
}

/** The file a store with these options opens (absolute), or `:memory:`. */
export function sqliteSessionStorePath(options: SqliteSessionStoreOptions = {}): string {
  if (options.path === ':memory:') return options.path;
  if (options.path !== undefined) return resolve(options.path);
  return resolve(options.dataDir ?? DEFAULT_DATA_DIR, DEFAULT_SQLITE_FILE);
}

const T = TABLE_PREFIX;
const versionRowSchema = z.object({ version: z.int().nullable() });
const positionsRowSchema = z.object({
  message_count: z.int().nonnegative(),
  edit_count: z.int().nonnegative(),
});

export async function createSqliteSessionStore(
  options: SqliteSessionStoreOptions = {},
): Promise<SessionStore> {
  const location = sqliteSessionStorePath(options);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
  if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
  const db = new (betterSqlite3())(location, { timeout: busyTimeoutMs });
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    enableWal(db, busyTimeoutMs);
    db.pragma(`synchronous = ${options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS}`);
    db.pragma('foreign_keys = ON');
    guard(location, busyTimeoutMs, () => migrate(db, location));
    return openStore(db, location, busyTimeoutMs);
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrate(db: Database.Database, location: string): void {
  db.transaction(() => {
    db.exec(CREATE_MIGRATIONS_TABLE);
    const { version } = versionRowSchema.parse(
      db.prepare(`SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`).get(),
    );
    const current = version ?? 0;
    if (current > SESSION_STORE_SCHEMA_VERSION) {
      throw new SchemaTooNewError(location, current, SESSION_STORE_SCHEMA_VERSION);
    }
    const record = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`);
    for (const migration of pendingMigrations(current)) {
      for (const statement of statementsFor(migration, 'sqlite')) db.exec(statement);
      record.run(migration.version, migration.name, Date.now());
    }
  }).immediate();
}

function openStore(db: Database.Database, location: string, busyTimeoutMs: number): SessionStore {
  const statements = {
    positions: db.prepare(`SELECT message_count, edit_count FROM ${T}sessions WHERE id = ?`),
    // The row's positions and times only: the JSON columns (the last request: a system prompt and tool
    // schemas) are read by their own statements, when asked for.
    session: db.prepare(
      `SELECT id, created_at, updated_at, message_count, edit_count FROM ${T}sessions WHERE id = ?`,
    ),
    insertSession: db.prepare(
      `INSERT INTO ${T}sessions (id, created_at, updated_at, message_count, edit_count) VALUES (?, ?, ?, ?, ?)`,
    ),
    updateSession: db.prepare(
      `UPDATE ${T}sessions SET message_count = ?, edit_count = ?, updated_at = ? WHERE id = ?`,
    ),
    insertMessage: db.prepare(
      `INSERT INTO ${T}messages (session_id, seq, body, message_id, content_id, tokens) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    insertEdit: db.prepare(`INSERT INTO ${T}edits (session_id, position, body, reach) VALUES (?, ?, ?, ?)`),
    // Every read stops at the session's counts: rows past them are a large write's pieces, not yet (or
    // never, when it failed) part of the session (see `writeInPieces`).
    messages: db
      .prepare(`SELECT seq, body FROM ${T}messages WHERE session_id = ? AND seq < ? ORDER BY seq`)
      .raw(),
    messagesFrom: db
      .prepare(
        `SELECT seq, body, tokens FROM ${T}messages WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq`,
      )
      .raw(),
    edits: db
      .prepare(`SELECT position, body FROM ${T}edits WHERE session_id = ? AND position < ? ORDER BY position`)
      .raw(),
    // One row (and one JSON.parse) for thousands of ids, from the covering index.
    messageKeys: db
      .prepare(
        `SELECT count(*), min(seq), max(seq), json_group_array(message_id ORDER BY seq), json_group_array(content_id ORDER BY seq) FROM ${T}messages WHERE session_id = ? AND seq < ?`,
      )
      .raw(),
    // Edits a resume needs whatever it starts at (cuts, branches), then those reaching its messages.
    // (Rows written before schema v2 have no reach and are read as needed always.)
    alwaysNeededEdits: db
      .prepare(
        `SELECT position, body FROM ${T}edits WHERE session_id = ? AND position < ? AND reach IS NULL ORDER BY position`,
      )
      .raw(),
    editsReaching: db
      .prepare(
        `SELECT position, body FROM ${T}edits WHERE session_id = ? AND position < ? AND reach >= ? ORDER BY position`,
      )
      .raw(),
    // What a write finds past the session's counts is what a large write left when it failed: dropped.
    dropMessagesFrom: db.prepare(`DELETE FROM ${T}messages WHERE session_id = ? AND seq >= ?`),
    dropEditsFrom: db.prepare(`DELETE FROM ${T}edits WHERE session_id = ? AND position >= ?`),
    messagesFromCount: db
      .prepare(`SELECT count(*) FROM ${T}messages WHERE session_id = ? AND seq >= ?`)
      .pluck(),
    editsFromCount: db
      .prepare(`SELECT count(*) FROM ${T}edits WHERE session_id = ? AND position >= ?`)
      .pluck(),
    // A resume of a long session reads its ids and bodies a range at a time.
    messageKeysBetween: db
      .prepare(
        `SELECT count(*), min(seq), max(seq), json_group_array(message_id ORDER BY seq), json_group_array(content_id ORDER BY seq) FROM ${T}messages WHERE session_id = ? AND seq >= ? AND seq < ?`,
      )
      .raw(),
    messagesBetween: db
      .prepare(
        `SELECT seq, body, tokens FROM ${T}messages WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq`,
      )
      .raw(),
    messageIdAt: db.prepare(`SELECT message_id FROM ${T}messages WHERE session_id = ? AND seq = ?`).pluck(),
    list: db.prepare(
      `SELECT id, created_at, updated_at, message_count, edit_count FROM ${T}sessions WHERE updated_at < ? ORDER BY updated_at, id LIMIT ?`,
    ),
    deleteMessages: db.prepare(`DELETE FROM ${T}messages WHERE session_id = ?`),
    deleteEdits: db.prepare(`DELETE FROM ${T}edits WHERE session_id = ?`),
    deleteSession: db.prepare(`DELETE FROM ${T}sessions WHERE id = ?`),
    policyOverride: db
      .prepare(`SELECT policy_override, policy_updated_at FROM ${T}sessions WHERE id = ?`)
      .raw(),
    updatePolicyOverride: db.prepare(
      `UPDATE ${T}sessions SET policy_override = ?, policy_updated_at = ?, updated_at = ? WHERE id = ?`,
    ),
    insertWithPolicyOverride: db.prepare(
      `INSERT INTO ${T}sessions (id, created_at, updated_at, message_count, edit_count, policy_override, policy_updated_at) VALUES (?, ?, ?, 0, 0, ?, ?)`,
    ),
    lastRequest: db.prepare(`SELECT last_request FROM ${T}sessions WHERE id = ?`).raw(),
    // Not activity: updated_at stays, and a session with no row gets none.
    updateLastRequest: db.prepare(`UPDATE ${T}sessions SET last_request = ? WHERE id = ?`),
  };

  const readPositions = (sessionId: string): { messages: number; edits: number } | undefined => {
    const row = statements.positions.get(sessionId);
    if (row === undefined) return undefined;
    const parsed = positionsRowSchema.safeParse(row);
    if (!parsed.success)
      throw new CorruptSessionError(sessionId, { table: 'sessions' }, parsed.error.message);
    return { messages: parsed.data.message_count, edits: parsed.data.edit_count };
  };

  /** Inserts rows, the messages from seq `from.messages` on, the edits from position `from.edits` on. */
  const insertRows = (sessionId: string, rows: WriteRows, from: SessionPositions): void => {
    rows.messages.forEach((body, offset) => {
      statements.insertMessage.run(
        sessionId,
        from.messages + offset,
        body,
        rows.messageIds[offset],
        rows.contentIds[offset],
        rows.tokens[offset],
      );
    });
    rows.edits.forEach((body, offset) => {
      statements.insertEdit.run(sessionId, from.edits + offset, body, rows.editReach[offset]);
    });
  };

  /** Drops what a large write that failed left past the session's counts, where this write goes. */
  const dropLeftovers = (sessionId: string, change: PositionedWrite, actual: SessionPositions): void => {
    if (change.messages.length > 0) statements.dropMessagesFrom.run(sessionId, actual.messages);
    if (change.edits.length > 0) statements.dropEditsFrom.run(sessionId, actual.edits);
  };

  const writeRows = db.transaction(
    (sessionId: string, change: PositionedWrite, rows: WriteRows, at: number) => {
      const existing = readPositions(sessionId);
      const actual = existing ?? { messages: 0, edits: 0 };
      assertPositions(sessionId, change, actual);
      if (rows.messages.length === 0 && rows.edits.length === 0) return;
      const next = {
        messages: actual.messages + rows.messages.length,
        edits: actual.edits + rows.edits.length,
      };
      if (existing) statements.updateSession.run(next.messages, next.edits, at, sessionId);
      else statements.insertSession.run(sessionId, at, at, next.messages, next.edits);
      dropLeftovers(sessionId, change, actual);
      insertRows(sessionId, rows, actual);
    },
  );

  /**
   * The first piece of a write in pieces: the positions checked, what a failed write left dropped, the
   * session's row made (empty) when it has none, the piece inserted past the counts. Returns the
   * positions the write goes to.
   */
  const beginPieces = db.transaction(
    (sessionId: string, change: PositionedWrite, rows: WriteRows, at: number): SessionPositions => {
      const existing = readPositions(sessionId);
      const actual = existing ?? { messages: 0, edits: 0 };
      assertPositions(sessionId, change, actual);
      if (!existing) statements.insertSession.run(sessionId, at, at, 0, 0);
      dropLeftovers(sessionId, change, actual);
      insertRows(sessionId, rows, actual);
      return actual;
    },
  );

  /** Another piece, while the counts it writes past have not moved (else another writer came first). */
  const continuePieces = db.transaction(
    (
      sessionId: string,
      change: PositionedWrite,
      start: SessionPositions,
      rows: WriteRows,
      from: SessionPositions,
    ) => {
      assertUnmoved(sessionId, change, start, readPositions(sessionId));
      insertRows(sessionId, rows, from);
    },
  );

  /**
   * The last piece, then the counts moved on, which makes every piece part of the session at once. The
   * rows past the counts must be exactly this write's: another writer that dropped its pieces as
   * leftovers and wrote its own in their place is a conflict, not a mixture.
   */
  const finishPieces = db.transaction(
    (
      sessionId: string,
      change: PositionedWrite,
      start: SessionPositions,
      rows: WriteRows,
      from: SessionPositions,
      firstIds: ReadonlyMap<number, string>,
      at: number,
    ) => {
      const actual = readPositions(sessionId);
      assertUnmoved(sessionId, change, start, actual);
      insertRows(sessionId, rows, from);
      const messages = statements.messagesFromCount.get(sessionId, start.messages) as number;
      const edits = statements.editsFromCount.get(sessionId, start.edits) as number;
      let ours =
        messages === change.messages.length && (change.edits.length === 0 || edits === change.edits.length);
      for (const [seq, id] of firstIds) if (statements.messageIdAt.get(sessionId, seq) !== id) ours = false;
      if (!ours)
        throw new SequenceConflictError(sessionId, 'messages', start.messages, start.messages + messages);
      const current = actual ?? start;
      statements.updateSession.run(
        current.messages + change.messages.length,
        current.edits + change.edits.length,
        at,
        sessionId,
      );
    },
  );

  const readSession = db.transaction((sessionId: string) => {
    const row = statements.session.get(sessionId);
    if (row === undefined) return undefined;
    const counts = countsOf(row);
    return {
      row,
      messages: statements.messages.all(sessionId, counts.messages) as unknown[][],
      edits: statements.edits.all(sessionId, counts.edits) as unknown[][],
    };
  });

  const readRecent = db.transaction((sessionId: string) => {
    const row = statements.session.get(sessionId);
    if (row === undefined) return undefined;
    const counts = countsOf(row);
    const keys = decodeMessageKeys(
      sessionId,
      statements.messageKeys.get(sessionId, counts.messages) as unknown[] | undefined,
    );
    const always = decodeEditRows(
      sessionId,
      statements.alwaysNeededEdits.all(sessionId, counts.edits) as unknown[][],
    );
    // The bodies' start comes from the cuts just read, inside the same snapshot.
    const logStart = recentStart(always.edits, keys.messageIds.length);
    const reaching = decodeEditRows(
      sessionId,
      statements.editsReaching.all(sessionId, counts.edits, logStart) as unknown[][],
    );
    return {
      row,
      edits: mergeEditRows(always, reaching),
      keys,
      logStart,
      recent: statements.messagesFrom.all(sessionId, logStart, counts.messages) as unknown[][],
    };
  });

  /** What a resume in ranges reads in one snapshot first: the row, its counts, the edits it needs. */
  const readRecentHead = db.transaction((sessionId: string) => {
    const row = statements.session.get(sessionId);
    if (row === undefined) return undefined;
    const counts = countsOf(row);
    const always = decodeEditRows(
      sessionId,
      statements.alwaysNeededEdits.all(sessionId, counts.edits) as unknown[][],
    );
    const logStart = recentStart(always.edits, counts.messages);
    const reaching = decodeEditRows(
      sessionId,
      statements.editsReaching.all(sessionId, counts.edits, logStart) as unknown[][],
    );
    return { row, counts, edits: mergeEditRows(always, reaching), logStart };
  });

  /**
   * A resume of a session of more than `SQLITE_READ_ROWS` messages: the ids a range at a time, then the
   * bodies since the newest cut, the event loop getting a turn between two reads (in one transaction,
   * 400,000 messages held the thread a second). The rows below the counts read first never change (the
   * log and the edits only grow), so the ranges read apart are the snapshot still; a range that comes back
   * short means the session was deleted meanwhile (or its table is damaged, which the checks report).
   */
  const readRecentInRanges = async (
    sessionId: string,
    head: { row: unknown; counts: SessionPositions; edits: EditRows; logStart: number },
  ): Promise<RecentSession | undefined> => {
    const total = head.counts.messages;
    const messageIds: string[] = [];
    const contentIds: (string | null)[] = [];
    const gone = (): boolean => readPositions(sessionId) === undefined;
    for (let from = 0; from < total; from += SQLITE_KEYS_PER_READ) {
      await yieldToEventLoop();
      const to = Math.min(total, from + SQLITE_KEYS_PER_READ);
      const aggregate = guard(location, busyTimeoutMs, () =>
        statements.messageKeysBetween.get(sessionId, from, to),
      ) as unknown[] | undefined;
      if (Number(aggregate?.[0] ?? 0) !== to - from && gone()) return undefined;
      const keys = decodeMessageKeyRange(sessionId, aggregate, from, to);
      for (const id of keys.messageIds) messageIds.push(id);
      for (const id of keys.contentIds) contentIds.push(id);
    }
    const recent: unknown[][] = [];
    for (let from = head.logStart; from < total; from += SQLITE_PIECE_ROWS) {
      await yieldToEventLoop();
      const to = Math.min(total, from + SQLITE_PIECE_ROWS);
      const rows = guard(location, busyTimeoutMs, () =>
        statements.messagesBetween.all(sessionId, from, to),
      ) as unknown[][];
      if (rows.length !== to - from && gone()) return undefined;
      for (const row of rows) recent.push(row);
    }
    return assembleRecentSessionInSlices(sessionId, {
      row: head.row,
      edits: head.edits,
      keys: { messageIds, contentIds },
      logStart: head.logStart,
      recent,
    });
  };

  const writePolicyOverride = db.transaction((sessionId: string, text: string | null, at: number) => {
    const policyAt = text === null ? null : at;
    if (readPositions(sessionId) !== undefined)
      statements.updatePolicyOverride.run(text, policyAt, at, sessionId);
    else if (text !== null) statements.insertWithPolicyOverride.run(sessionId, at, at, text, at);
  });

  const removeSession = db.transaction((sessionId: string) => {
    statements.deleteMessages.run(sessionId);
    statements.deleteEdits.run(sessionId);
    statements.deleteSession.run(sessionId);
  });

  let closed = false;
  const open = (): void => {
    if (closed) throw new StoreClosedError(location);
  };

  const write = async (sessionId: string, change: PositionedWrite, at: number): Promise<void> => {
    open();
    assertWritable(sessionId, change, at);
    const pieces = writePieces(change);
    if (pieces.length > 1) return writeInPieces(sessionId, change, pieces, at);
    // Serialize and check before taking the lock: the transaction only compares and inserts.
    const rows = encodeWriteRows(sessionId, change);
    guard(location, busyTimeoutMs, () => {
      try {
        writeRows.immediate(sessionId, change, rows, at);
      } catch (error) {
        // The primary keys caught what the position check should have: report it as the conflict it is.
        if (isSqliteError(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
          assertPositions(sessionId, change, readPositions(sessionId) ?? { messages: 0, edits: 0 });
        }
        throw error;
      }
    });
  };

  /**
   * A large write (a client's history of hundreds of thousands of messages) in transactions of a few
   * milliseconds each, the event loop getting a turn between them: as one, it would hold the write lock
   * and the thread for seconds, and every other session's write and request would wait. The pieces go
   * past the session's counts, where no read looks (every read stops at the counts), and the last
   * transaction moves the counts on: the write is still whole or absent. A write that fails on the way
   * leaves rows past the counts, which the next write there drops.
   */
  const writeInPieces = async (
    sessionId: string,
    change: PositionedWrite,
    pieces: readonly WritePiece[],
    at: number,
  ): Promise<void> => {
    // Every piece is serialized (and so checked) before the first is written: a malformed message
    // stores nothing, as in one transaction.
    const encoded: WriteRows[] = [];
    for (const piece of pieces) {
      encoded.push(encodeWriteRows(sessionId, pieceOf(change, piece)));
      await yieldToEventLoop();
    }
    let start: SessionPositions | undefined;
    const firstIds = new Map<number, string>();
    for (const [index, piece] of pieces.entries()) {
      const rows = encoded[index] as WriteRows;
      if (index === 0) {
        start = guard(location, busyTimeoutMs, () =>
          conflictOnKeys(sessionId, change, () => beginPieces.immediate(sessionId, change, rows, at)),
        );
      } else {
        await yieldToEventLoop();
        const from = {
          messages: (start as SessionPositions).messages + piece.messages[0],
          edits: (start as SessionPositions).edits + piece.edits[0],
        };
        const last = index === pieces.length - 1;
        guard(location, busyTimeoutMs, () =>
          conflictOnKeys(sessionId, change, () =>
            last
              ? finishPieces.immediate(sessionId, change, start as SessionPositions, rows, from, firstIds, at)
              : continuePieces.immediate(sessionId, change, start as SessionPositions, rows, from),
          ),
        );
      }
      const first = change.messages[piece.messages[0]];
      if (first && piece.messages[1] > piece.messages[0]) firstIds.set(first.seq, first.id);
      // Dropped as soon as written: the pieces are not held twice.
      encoded[index] = EMPTY_ROWS;
    }
  };

  /** Another writer's rows where this one inserts: the conflict it is. */
  const conflictOnKeys = <T>(sessionId: string, change: PositionedWrite, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (isSqliteError(error, 'SQLITE_CONSTRAINT_PRIMARYKEY'))
        throw new SequenceConflictError(sessionId, 'messages', change.expectedSeq ?? 0, -1);
      throw error;
    }
  };

  return {
    async load(sessionId: string): Promise<StoredSession | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      const read = guard(location, busyTimeoutMs, () => readSession(sessionId));
      return read === undefined ? undefined : assembleStoredSession(sessionId, read);
    },
    async loadPositions(sessionId: string): Promise<SessionPositions | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      return guard(location, busyTimeoutMs, () => readPositions(sessionId));
    },
    async loadRecent(sessionId: string): Promise<RecentSession | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      const head = guard(location, busyTimeoutMs, () => readRecentHead(sessionId));
      if (head === undefined) return undefined;
      // A long session (with counts that are numbers: a damaged row goes the way that reports it) is
      // read in ranges.
      if (head.counts.messages > SQLITE_READ_ROWS && head.counts.messages < Number.MAX_SAFE_INTEGER)
        return readRecentInRanges(sessionId, head);
      const read = guard(location, busyTimeoutMs, () => readRecent(sessionId));
      return read === undefined ? undefined : assembleRecentSession(sessionId, read);
    },
    appendMessages: (sessionId, messages, expectedSeq, at) =>
      write(sessionId, messagesWrite(messages, expectedSeq), at),
    appendEdits: (sessionId, edits, expectedEditCount, at) =>
      write(sessionId, editsWrite(edits, expectedEditCount), at),
    append: (sessionId, change, at) => write(sessionId, fullWrite(change), at),
    async list(filter: SessionListFilter = {}): Promise<SessionListing[]> {
      open();
      const rows = guard(location, busyTimeoutMs, () =>
        statements.list.all(filter.updatedBefore ?? Number.POSITIVE_INFINITY, filter.limit ?? -1),
      );
      return rows.map((row) => toListing(row));
    },
    async loadPolicyOverride(sessionId: string): Promise<StoredPolicyOverride | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      const row = guard(location, busyTimeoutMs, () => statements.policyOverride.get(sessionId)) as
        | unknown[]
        | undefined;
      return row === undefined ? undefined : decodePolicyOverride(sessionId, row[0], row[1]);
    },
    async setPolicyOverride(sessionId, override, at): Promise<void> {
      open();
      assertSessionId(sessionId);
      assertTimestamp(sessionId, at);
      const text = override === null ? null : encodePolicyOverride(override);
      guard(location, busyTimeoutMs, () => writePolicyOverride.immediate(sessionId, text, at));
    },
    async loadLastRequest(sessionId: string): Promise<StoredLastRequest | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      const row = guard(location, busyTimeoutMs, () => statements.lastRequest.get(sessionId)) as
        | unknown[]
        | undefined;
      return row === undefined ? undefined : decodeLastRequest(sessionId, row[0]);
    },
    async setLastRequest(sessionId, request): Promise<boolean> {
      open();
      assertSessionId(sessionId);
      const text = request === null ? null : encodeLastRequest(sessionId, request);
      const { changes } = guard(location, busyTimeoutMs, () =>
        statements.updateLastRequest.run(text, sessionId),
      );
      return changes > 0;
    },
    async delete(sessionId: string): Promise<void> {
      open();
      if (!isStorableSessionId(sessionId)) return;
      guard(location, busyTimeoutMs, () => removeSession.immediate(sessionId));
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/**
 * A session row's counts, where its reads stop. A row without them reads every row: the checks after
 * the read say what is wrong with it.
 */
function countsOf(row: unknown): SessionPositions {
  const { message_count: messages, edit_count: edits } = row as {
    message_count?: unknown;
    edit_count?: unknown;
  };
  return {
    messages: typeof messages === 'number' ? messages : Number.MAX_SAFE_INTEGER,
    edits: typeof edits === 'number' ? edits : Number.MAX_SAFE_INTEGER,
  };
}

/** A resume reads a session longer than this in ranges: of ids, and of bodies (`SQLITE_PIECE_ROWS`). */
export const SQLITE_READ_ROWS = 20_000;
const SQLITE_KEYS_PER_READ = 20_000;

/** Rows a write puts in one transaction at most, and bytes (of bodies). */
export const SQLITE_PIECE_ROWS = 2_000;
export const SQLITE_PIECE_BYTES = 1 << 20;

/** One transaction's share of a write: message offsets [from, to) and edit offsets [from, to). */
interface WritePiece {
  messages: [number, number];
  edits: [number, number];
}

/**
 * A write cut into pieces of at most `SQLITE_PIECE_ROWS` rows and about `SQLITE_PIECE_BYTES` of text
 * (messages first, then edits); one piece for any ordinary write. Sizes are estimated from the text the
 * messages hold, before they are serialized.
 */
function writePieces(change: PositionedWrite): WritePiece[] {
  const total = change.messages.length + change.edits.length;
  if (
    total <= SQLITE_PIECE_ROWS &&
    textSize(change.messages, 0, change.messages.length) <= SQLITE_PIECE_BYTES
  )
    return [{ messages: [0, change.messages.length], edits: [0, change.edits.length] }];
  const pieces: WritePiece[] = [];
  let rows = 0;
  let bytes = 0;
  let piece: WritePiece = { messages: [0, 0], edits: [0, 0] };
  const close = (): void => {
    pieces.push(piece);
    piece = { messages: [piece.messages[1], piece.messages[1]], edits: [piece.edits[1], piece.edits[1]] };
    rows = 0;
    bytes = 0;
  };
  for (let offset = 0; offset < change.messages.length; offset++) {
    if (rows >= SQLITE_PIECE_ROWS || bytes >= SQLITE_PIECE_BYTES) close();
    piece.messages[1] = offset + 1;
    rows++;
    bytes += textSize(change.messages, offset, offset + 1);
  }
  for (let offset = 0; offset < change.edits.length; offset++) {
    if (rows >= SQLITE_PIECE_ROWS) close();
    piece.edits[1] = offset + 1;
    rows++;
  }
  if (rows > 0 || pieces.length === 0) pieces.push(piece);
  return pieces;
}

/**
 * UTF-16 units of the text `messages[from, to)` hold: their size, roughly and cheaply. Messages are not
 * checked yet (encoding them does that): anything unexpected counts as little.
 */
function textSize(messages: readonly Message[], from: number, to: number): number {
  let size = 0;
  for (let index = from; index < to; index++) {
    const parts: unknown = messages[index]?.parts;
    if (!Array.isArray(parts)) continue;
    for (const part of parts as Record<string, unknown>[]) {
      size += PART_OVERHEAD;
      for (const field of SIZED_FIELDS) {
        const value = part?.[field];
        if (typeof value === 'string') size += value.length;
      }
    }
  }
  return size;
}

/** What a part adds beside its text, roughly: its type and ids, as JSON. */
const PART_OVERHEAD = 32;
/** The part fields that hold the bulk of a message. */
const SIZED_FIELDS = ['text', 'args', 'content'] as const;

const EMPTY_ROWS: WriteRows = {
  messages: [],
  messageIds: [],
  contentIds: [],
  tokens: [],
  edits: [],
  editReach: [],
};

/** The part of a write one piece holds, numbered where it goes. */
function pieceOf(change: PositionedWrite, piece: WritePiece): PositionedWrite {
  const [from, to] = piece.messages;
  return {
    messages: change.messages.slice(from, to),
    contentIds: change.contentIds?.slice(from, to),
    tokens: change.tokens?.slice(from, to),
    edits: change.edits.slice(piece.edits[0], piece.edits[1]),
    expectedSeq: change.expectedSeq === undefined ? undefined : change.expectedSeq + from,
    expectedEditCount:
      change.expectedEditCount === undefined ? undefined : change.expectedEditCount + piece.edits[0],
  };
}

/** The counts a write in pieces goes past have not moved since its first piece. */
function assertUnmoved(
  sessionId: string,
  change: PositionedWrite,
  start: SessionPositions,
  actual: SessionPositions | undefined,
): void {
  const now = actual ?? { messages: 0, edits: 0 };
  if (!actual || (change.messages.length > 0 && now.messages !== start.messages))
    throw new SequenceConflictError(sessionId, 'messages', start.messages, now.messages);
  if (change.edits.length > 0 && now.edits !== start.edits)
    throw new SequenceConflictError(sessionId, 'edits', start.edits, now.edits);
}

function isSqliteError(error: unknown, code: string): boolean {
  return error instanceof betterSqlite3().SqliteError && error.code === code;
}

/** Runs database work, turning "still locked after busy_timeout" into a typed error. */
function guard<T>(location: string, busyTimeoutMs: number, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof betterSqlite3().SqliteError && error.code.startsWith('SQLITE_BUSY')) {
      throw new StoreBusyError(location, busyTimeoutMs);
    }
    throw error;
  }
}
