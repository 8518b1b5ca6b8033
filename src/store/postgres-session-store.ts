/**
 * Sessions in PostgreSQL (the `postgres` client), for several ctxkit instances sharing sessions. Same
 * tables as the SQLite store (`ctxkit_sessions`, `ctxkit_messages`, `ctxkit_edits`), same migrations.
 *
 * An append is one statement, so one transaction: an UPDATE of the session row that moves its positions
 * on only if they are still the ones the writer expected, and INSERTs of the rows that run only if that
 * UPDATE matched. The UPDATE takes the session row's lock; a concurrent writer on the same session waits
 * for it, re-checks the positions against the committed row (READ COMMITTED re-evaluates the WHERE), finds
 * them moved, writes nothing and gets a `SequenceConflictError`. The (session, seq) primary keys are the
 * backstop: a unique violation (23505), or a serialization failure (40001) under a stricter isolation
 * level, is reported as the conflict it is.
 */

import postgres from 'postgres';
import { z } from 'zod';
import {
  CorruptSessionError,
  CtxkitError,
  SchemaTooNewError,
  StoreClosedError,
} from '../core/errors/index.ts';
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
  assembleStoredSession,
  decodeEditRows,
  decodeMessageKeys,
  encodeWriteRows,
  mergeEditRows,
  toListing,
  type WriteRows,
} from './session-store-rows.ts';
import { decodeLastRequest, encodeLastRequest, type StoredLastRequest } from './stored-last-request.ts';
import { decodePolicyOverride, encodePolicyOverride } from './stored-policy-override.ts';

/** Connections in the pool a store opens from a URL. */
export const DEFAULT_POSTGRES_POOL_SIZE = 10;
/** `pg_advisory_xact_lock` key that serializes migrations between instances opening at once ("ctxk"). */
export const MIGRATION_LOCK_KEY = 0x6374_786b;
/** How often a write retries when the session row appeared or moved between its statements. */
const WRITE_ATTEMPTS = 5;

export interface PostgresSessionStoreOptions {
  /** `postgres://user:password@host:port/database`; the store opens (and on close, ends) its own pool. */
  url?: string;
  /**
   * A client the caller owns (left open on close). Tables are created in its `search_path`. It must not
   * transform values; column-name transforms are harmless (rows are read positionally).
   */
  sql?: postgres.Sql;
  /** Pool size when opening from `url`. */
  max?: number;
}

const T = TABLE_PREFIX;
type Sql = postgres.Sql | postgres.TransactionSql;
const versionRowSchema = z.tuple([z.int().nullable()]);
const positionsRowSchema = z.tuple([z.int().nonnegative(), z.int().nonnegative()]);
const countRowSchema = z.tuple([z.union([z.number(), z.string()]).transform(Number)]);

export async function createPostgresSessionStore(
  options: PostgresSessionStoreOptions,
): Promise<SessionStore> {
  const owned = options.sql === undefined;
  let sql: postgres.Sql;
  if (options.sql) sql = options.sql;
  else if (options.url) {
    sql = postgres(options.url, { max: options.max ?? DEFAULT_POSTGRES_POOL_SIZE, onnotice: () => {} });
  } else {
    throw new CtxkitError('invalid_store_options', 'createPostgresSessionStore needs a url or an sql client');
  }
  const location = describeLocation(sql);
  try {
    await migrate(sql, location);
  } catch (error) {
    if (owned) await sql.end({ timeout: 5 });
    throw error;
  }
  return openStore(sql, location, owned);
}

function describeLocation(sql: postgres.Sql): string {
  const { host, port, database } = sql.options;
  return `postgres://${host.map((name, index) => `${name}:${port[index] ?? port[0] ?? 5432}`).join(',')}/${database}`;
}

async function migrate(sql: postgres.Sql, location: string): Promise<void> {
  await sql.begin(async (tx) => {
    // Instances opening at once take turns; the first applies what is pending, the others find it done.
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    const [exists] = await tx`SELECT to_regclass(${MIGRATIONS_TABLE}) IS NOT NULL`.values();
    if (exists?.[0] !== true) await tx.unsafe(CREATE_MIGRATIONS_TABLE);
    const [row] = await tx.unsafe(`SELECT MAX(version) FROM ${MIGRATIONS_TABLE}`).values();
    const [version] = versionRowSchema.parse(row);
    const current = version ?? 0;
    if (current > SESSION_STORE_SCHEMA_VERSION) {
      throw new SchemaTooNewError(location, current, SESSION_STORE_SCHEMA_VERSION);
    }
    for (const migration of pendingMigrations(current)) {
      for (const statement of statementsFor(migration, 'postgres')) await tx.unsafe(statement);
      await tx.unsafe(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        Date.now(),
      ]);
    }
  });
}

function openStore(sql: postgres.Sql, location: string, owned: boolean): SessionStore {
  let closed = false;
  const open = (): void => {
    if (closed) throw new StoreClosedError(location);
  };

  const readPositions = async (
    db: Sql,
    sessionId: string,
  ): Promise<{ messages: number; edits: number } | undefined> => {
    const [row] =
      await db`SELECT message_count, edit_count FROM ${db(`${T}sessions`)} WHERE id = ${sessionId}`.values();
    if (row === undefined) return undefined;
    const parsed = positionsRowSchema.safeParse(row);
    if (!parsed.success)
      throw new CorruptSessionError(sessionId, { table: 'sessions' }, 'positions are not counts');
    return { messages: parsed.data[0], edits: parsed.data[1] };
  };

  /** Moves an existing session's positions on and inserts the rows, if the positions are as expected. */
  const appendToExisting = async (
    sessionId: string,
    change: PositionedWrite,
    bodies: WriteRows,
    at: number,
  ): Promise<boolean> => {
    const rows = await sql`
      WITH moved AS (
        UPDATE ${sql(`${T}sessions`)}
        SET message_count = message_count + ${bodies.messages.length},
            edit_count = edit_count + ${bodies.edits.length},
            updated_at = ${at}
        WHERE id = ${sessionId}
          AND (${change.expectedSeq ?? null}::int IS NULL OR message_count = ${change.expectedSeq ?? null}::int)
          AND (${change.expectedEditCount ?? null}::int IS NULL OR edit_count = ${change.expectedEditCount ?? null}::int)
        RETURNING id
      ), messages AS (
        INSERT INTO ${sql(`${T}messages`)} (session_id, seq, body, message_id, content_id, tokens)
        SELECT moved.id, ${change.expectedSeq ?? 0}::int + (row.ordinality - 1)::int, row.body, row.message_id, row.content_id, row.tokens
        FROM moved, unnest(${bodies.messages}::text[], ${bodies.messageIds}::text[], ${bodies.contentIds}::text[], ${bodies.tokens}::text[])
          WITH ORDINALITY AS row (body, message_id, content_id, tokens, ordinality)
      ), edits AS (
        INSERT INTO ${sql(`${T}edits`)} (session_id, position, body, reach)
        SELECT moved.id, ${change.expectedEditCount ?? 0}::int + (row.ordinality - 1)::int, row.body, row.reach
        FROM moved, unnest(${bodies.edits}::text[], ${bodies.editReach}::int[]) WITH ORDINALITY AS row (body, reach, ordinality)
      )
      SELECT count(*) FROM moved`.values();
    return countRowSchema.parse(rows[0])[0] === 1;
  };

  /** Creates the session with its first rows, unless another writer created it first. */
  const createWith = async (sessionId: string, bodies: WriteRows, at: number): Promise<boolean> => {
    const rows = await sql`
      WITH created AS (
        INSERT INTO ${sql(`${T}sessions`)} (id, created_at, updated_at, message_count, edit_count)
        VALUES (${sessionId}, ${at}, ${at}, ${bodies.messages.length}, ${bodies.edits.length})
        ON CONFLICT (id) DO NOTHING
        RETURNING id
      ), messages AS (
        INSERT INTO ${sql(`${T}messages`)} (session_id, seq, body, message_id, content_id, tokens)
        SELECT created.id, (row.ordinality - 1)::int, row.body, row.message_id, row.content_id, row.tokens
        FROM created, unnest(${bodies.messages}::text[], ${bodies.messageIds}::text[], ${bodies.contentIds}::text[], ${bodies.tokens}::text[])
          WITH ORDINALITY AS row (body, message_id, content_id, tokens, ordinality)
      ), edits AS (
        INSERT INTO ${sql(`${T}edits`)} (session_id, position, body, reach)
        SELECT created.id, (row.ordinality - 1)::int, row.body, row.reach
        FROM created, unnest(${bodies.edits}::text[], ${bodies.editReach}::int[]) WITH ORDINALITY AS row (body, reach, ordinality)
      )
      SELECT count(*) FROM created`.values();
    return countRowSchema.parse(rows[0])[0] === 1;
  };

  const write = async (sessionId: string, change: PositionedWrite, at: number): Promise<void> => {
    open();
    assertWritable(sessionId, change, at);
    const bodies = encodeWriteRows(sessionId, change);
    const empty = bodies.messages.length === 0 && bodies.edits.length === 0;
    try {
      for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
        if (!empty && (await appendToExisting(sessionId, change, bodies, at))) return;
        const actual = await readPositions(sql, sessionId);
        // Throws the conflict when the positions moved; returns when they match after all (a race
        // with a writer that created the session or committed in between): try again.
        assertPositions(sessionId, change, actual ?? { messages: 0, edits: 0 });
        if (empty) return;
        if (actual === undefined && (await createWith(sessionId, bodies, at))) return;
      }
    } catch (error) {
      if (isPostgresError(error, '23505') || isPostgresError(error, '40001')) {
        assertPositions(
          sessionId,
          change,
          (await readPositions(sql, sessionId)) ?? { messages: 0, edits: 0 },
        );
      }
      throw error;
    }
    throw new CtxkitError(
      'store_contended',
      `session ${sessionId}: gave up after ${WRITE_ATTEMPTS} attempts`,
      {
        sessionId,
      },
    );
  };

  return {
    async load(sessionId: string): Promise<StoredSession | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      // One snapshot for the three reads, pipelined in one round trip.
      const [sessions, messages, edits] = await sql.begin(
        'isolation level repeatable read read only',
        (tx) => [
          tx`SELECT id, created_at, updated_at, message_count, edit_count FROM ${tx(`${T}sessions`)} WHERE id = ${sessionId}`.values(),
          tx`SELECT seq, body FROM ${tx(`${T}messages`)} WHERE session_id = ${sessionId} ORDER BY seq`.values(),
          tx`SELECT position, body FROM ${tx(`${T}edits`)} WHERE session_id = ${sessionId} ORDER BY position`.values(),
        ],
      );
      const [row] = sessions;
      if (row === undefined) return undefined;
      return assembleStoredSession(sessionId, { row: sessionRowObject(row), messages, edits });
    },
    async loadPositions(sessionId: string): Promise<SessionPositions | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      return readPositions(sql, sessionId);
    },
    async loadRecent(sessionId: string): Promise<RecentSession | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      // One snapshot, two round trips: where the bodies start depends on the edits.
      return sql.begin('isolation level repeatable read read only', async (tx) => {
        const [[row], [keyRow], alwaysRows] = await Promise.all([
          tx`SELECT id, created_at, updated_at, message_count, edit_count FROM ${tx(`${T}sessions`)} WHERE id = ${sessionId}`.values(),
          tx`SELECT count(*)::int, min(seq), max(seq), json_agg(message_id ORDER BY seq)::text, json_agg(content_id ORDER BY seq)::text FROM ${tx(`${T}messages`)} WHERE session_id = ${sessionId}`.values(),
          // Edits every resume needs (cuts, branches; rows from before schema v2 have no reach).
          tx`SELECT position, body FROM ${tx(`${T}edits`)} WHERE session_id = ${sessionId} AND reach IS NULL ORDER BY position`.values(),
        ]);
        if (row === undefined) return undefined;
        const keys = decodeMessageKeys(sessionId, keyRow);
        const always = decodeEditRows(sessionId, alwaysRows);
        const logStart = recentStart(always.edits, keys.messageIds.length);
        const [reachingRows, recent] = await Promise.all([
          tx`SELECT position, body FROM ${tx(`${T}edits`)} WHERE session_id = ${sessionId} AND reach >= ${logStart} ORDER BY position`.values(),
          tx`SELECT seq, body, tokens FROM ${tx(`${T}messages`)} WHERE session_id = ${sessionId} AND seq >= ${logStart} ORDER BY seq`.values(),
        ]);
        const edits = mergeEditRows(always, decodeEditRows(sessionId, reachingRows));
        return assembleRecentSession(sessionId, {
          row: sessionRowObject(row),
          edits,
          keys,
          logStart,
          recent,
        });
      });
    },
    appendMessages: (sessionId, messages, expectedSeq, at) =>
      write(sessionId, messagesWrite(messages, expectedSeq), at),
    appendEdits: (sessionId, edits, expectedEditCount, at) =>
      write(sessionId, editsWrite(edits, expectedEditCount), at),
    append: (sessionId, change, at) => write(sessionId, fullWrite(change), at),
    async list(filter: SessionListFilter = {}): Promise<SessionListing[]> {
      open();
      const before = filter.updatedBefore ?? null;
      const rows = await sql`
        SELECT id, created_at, updated_at, message_count, edit_count FROM ${sql(`${T}sessions`)}
        WHERE ${before}::double precision IS NULL OR updated_at < ${before}::double precision
        ORDER BY updated_at, id COLLATE "C"
        LIMIT ${filter.limit ?? null}::bigint`.values();
      return rows.map((row) => toListing(sessionRowObject(row)));
    },
    async loadPolicyOverride(sessionId: string): Promise<StoredPolicyOverride | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      const [row] =
        await sql`SELECT policy_override, policy_updated_at FROM ${sql(`${T}sessions`)} WHERE id = ${sessionId}`.values();
      return row === undefined ? undefined : decodePolicyOverride(sessionId, row[0], row[1]);
    },
    async setPolicyOverride(sessionId, override, at): Promise<void> {
      open();
      assertSessionId(sessionId);
      assertTimestamp(sessionId, at);
      if (override === null) {
        await sql`
          UPDATE ${sql(`${T}sessions`)}
          SET policy_override = NULL, policy_updated_at = NULL, updated_at = ${at}
          WHERE id = ${sessionId}`;
        return;
      }
      const text = encodePolicyOverride(override);
      // One statement: the row of a session with no message yet is created with the override, and an
      // append racing it finds a row either way (its positions untouched here).
      await sql`
        INSERT INTO ${sql(`${T}sessions`)} (id, created_at, updated_at, message_count, edit_count, policy_override, policy_updated_at)
        VALUES (${sessionId}, ${at}, ${at}, 0, 0, ${text}, ${at})
        ON CONFLICT (id) DO UPDATE SET
          policy_override = EXCLUDED.policy_override,
          policy_updated_at = EXCLUDED.policy_updated_at,
          updated_at = EXCLUDED.updated_at`;
    },
    async loadLastRequest(sessionId: string): Promise<StoredLastRequest | undefined> {
      open();
      if (!isStorableSessionId(sessionId)) return undefined;
      const [row] =
        await sql`SELECT last_request FROM ${sql(`${T}sessions`)} WHERE id = ${sessionId}`.values();
      return row === undefined ? undefined : decodeLastRequest(sessionId, row[0]);
    },
    async setLastRequest(sessionId, request): Promise<boolean> {
      open();
      assertSessionId(sessionId);
      const text = request === null ? null : encodeLastRequest(sessionId, request);
      // Not activity: updated_at stays, and a session with no row gets none.
      const result = await sql`
        UPDATE ${sql(`${T}sessions`)} SET last_request = ${text}::text WHERE id = ${sessionId}`;
      return result.count > 0;
    },
    async delete(sessionId: string): Promise<void> {
      open();
      if (!isStorableSessionId(sessionId)) return;
      await sql.begin((tx) => [
        tx`DELETE FROM ${tx(`${T}messages`)} WHERE session_id = ${sessionId}`,
        tx`DELETE FROM ${tx(`${T}edits`)} WHERE session_id = ${sessionId}`,
        tx`DELETE FROM ${tx(`${T}sessions`)} WHERE id = ${sessionId}`,
      ]);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (owned) await sql.end({ timeout: 5 });
    },
  };
}

const sessionRowObject = (row: readonly unknown[]): Record<string, unknown> => ({
  id: row[0],
  created_at: row[1],
  updated_at: row[2],
  message_count: row[3],
  edit_count: row[4],
});

function isPostgresError(error: unknown, code: string): boolean {
  return error instanceof postgres.PostgresError && error.code === code;
}
