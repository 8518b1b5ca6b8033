/**
 * The conversation index in SQLite, so a restarted proxy still knows its conversations. Its tables can
 * share a file with the session store. A record is one `BEGIN IMMEDIATE` transaction (all prefixes and
 * the head, or nothing after a crash); it takes the write lock up front, so another process's writer is
 * waited for (busy_timeout) rather than failing mid-transaction.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { SchemaTooNewError, StoredDataInvalidError } from '../../core/errors/index.ts';
import { pendingMigrations, statementsFor } from '../../store/session-store-migrations.ts';
import { openSqlite, type SqliteSource } from '../../store/sqlite-source.ts';
import type { ConversationHead } from './conversation-index.ts';
import {
  CONVERSATION_INDEX_MIGRATIONS,
  CONVERSATION_INDEX_SCHEMA_VERSION,
  CONVERSATION_MIGRATIONS_TABLE,
  CREATE_CONVERSATION_MIGRATIONS_TABLE,
} from './conversation-index-migrations.ts';
import {
  findByProbes,
  PREFIXES_TABLE,
  type PrefixOwner,
  SESSIONS_HEAD_INDEX,
  SESSIONS_TABLE,
  type StoredConversationIndex,
} from './stored-conversation-index.ts';

const ownerRowSchema = z.object({
  session_id: z.string(),
  head: z.int().nonnegative(),
  head_hash: z.string(),
});
const headRowSchema = z.object({
  session_id: z.string(),
  head: z.int().nonnegative(),
  head_hash: z.string(),
  recorded_seq: z.int(),
});
const versionRowSchema = z.object({ version: z.int().nullable() });

export function createSqliteConversationIndex(source: SqliteSource): StoredConversationIndex {
  const connection = openSqlite(source);
  const { db } = connection;
  const location = `${'database' in source ? db.name : source.filename} (${PREFIXES_TABLE})`;
  try {
    migrate(db, location);
  } catch (error) {
    connection.close();
    throw error;
  }

  const probe = db.prepare(
    `SELECT p.session_id, s.head, s.head_hash FROM ${PREFIXES_TABLE} p
     JOIN ${SESSIONS_TABLE} s ON s.owner = p.owner AND s.session_id = p.session_id
     WHERE p.owner = ? AND p.hash = ?`,
  );
  const claim = db.prepare(
    `INSERT OR IGNORE INTO ${PREFIXES_TABLE} (owner, hash, session_id) VALUES (?, ?, ?)`,
  );
  // The record's place in the order is the greatest so far plus one: records hold the write lock, so
  // no two take the same.
  const setHead = db.prepare(
    `INSERT INTO ${SESSIONS_TABLE} (owner, session_id, head, head_hash, recorded_at, recorded_seq)
     VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(recorded_seq), 0) + 1 FROM ${SESSIONS_TABLE}))
     ON CONFLICT (owner, session_id) DO UPDATE
       SET head = excluded.head, head_hash = excluded.head_hash, recorded_at = excluded.recorded_at,
           recorded_seq = excluded.recorded_seq`,
  );
  const recordAll = db.transaction((owner: string, sessionId: string, hashes: readonly string[]) => {
    for (const hash of hashes) claim.run(owner, hash, sessionId);
    setHead.run(owner, sessionId, hashes.length, hashes.at(-1) ?? '', Date.now());
  });
  // The hashes go as one JSON array, so a request's thousands of them are one statement, with no
  // bound on variables; each is a lookup on (owner, head_hash). INDEXED BY, since without statistics
  // the planner may rather scan all the owner's sessions by the primary key.
  const headsIn = db.prepare(
    `SELECT session_id, head, head_hash, recorded_seq FROM ${SESSIONS_TABLE} INDEXED BY ${SESSIONS_HEAD_INDEX}
     WHERE owner = ? AND head_hash IN (SELECT value FROM json_each(?))`,
  );

  const ownerOf = (owner: string, hash: string): PrefixOwner | undefined => {
    const row = probe.get(owner, hash);
    if (row === undefined) return undefined;
    const parsed = ownerRowSchema.safeParse(row);
    if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
    return { sessionId: parsed.data.session_id, head: parsed.data.head, headHash: parsed.data.head_hash };
  };

  return {
    find: (owner, hashes) => findByProbes(hashes, (hash) => ownerOf(owner, hash)),
    async heads(owner, hashes) {
      if (hashes.length === 0) return [];
      return headsIn.all(owner, JSON.stringify(hashes)).map((row): ConversationHead => {
        const parsed = headRowSchema.safeParse(row);
        if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
        const { session_id, head, head_hash, recorded_seq } = parsed.data;
        return { sessionId: session_id, head, headHash: head_hash, recordedAt: recorded_seq };
      });
    },
    async record(owner, sessionId, hashes) {
      recordAll.immediate(owner, sessionId, hashes);
    },
    async close() {
      connection.close();
    },
  };
}

/**
 * Brings the tables to the current schema in one immediate transaction, so processes opening the same
 * file at once take turns: the first applies what is pending, the others find it done.
 */
function migrate(db: Database.Database, location: string): void {
  db.transaction(() => {
    db.exec(CREATE_CONVERSATION_MIGRATIONS_TABLE);
    const { version } = versionRowSchema.parse(
      db.prepare(`SELECT MAX(version) AS version FROM ${CONVERSATION_MIGRATIONS_TABLE}`).get(),
    );
    const current = version ?? 0;
    if (current > CONVERSATION_INDEX_SCHEMA_VERSION) {
      throw new SchemaTooNewError(location, current, CONVERSATION_INDEX_SCHEMA_VERSION);
    }
    const applied = db.prepare(
      `INSERT INTO ${CONVERSATION_MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`,
    );
    for (const migration of pendingMigrations(current, CONVERSATION_INDEX_MIGRATIONS)) {
      for (const statement of statementsFor(migration, 'sqlite')) db.exec(statement);
      applied.run(migration.version, migration.name, Date.now());
    }
  }).immediate();
}
