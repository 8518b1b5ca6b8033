/**
 * The stored conversation indexes' schema, as versions applied on open (the session store's scheme,
 * `store/session-store-migrations.ts`, with a version table of its own, since the tables can share a
 * database with the session store). Never edit a released migration, only append one; each runs in the
 * transaction that records it.
 */
import type { SessionStoreMigration } from '../../store/session-store-migrations.ts';
import {
  PREFIXES_TABLE,
  RECORDINGS_SEQUENCE,
  SESSIONS_HEAD_INDEX,
  SESSIONS_TABLE,
} from './stored-conversation-index.ts';

/** version → when applied: the index's own, apart from the session store's `ctxkit_schema_migrations`. */
export const CONVERSATION_MIGRATIONS_TABLE = 'ctxkit_conversation_schema_migrations';

export const CREATE_CONVERSATION_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS ${CONVERSATION_MIGRATIONS_TABLE} (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at DOUBLE PRECISION NOT NULL
)`;

export const CONVERSATION_INDEX_MIGRATIONS: readonly SessionStoreMigration[] = [
  {
    version: 1,
    name: 'prefixes and heads',
    // IF NOT EXISTS: databases from before this table of versions have these tables, and no version.
    sqlite: [
      // WITHOUT ROWID: rows live in the primary key's b-tree: a probe is one lookup, and no rowid is kept.
      `CREATE TABLE IF NOT EXISTS ${PREFIXES_TABLE} (
        owner TEXT NOT NULL,
        hash TEXT NOT NULL,
        session_id TEXT NOT NULL,
        PRIMARY KEY (owner, hash)
      ) WITHOUT ROWID`,
      // recorded_at is for pruning old sessions later, without a migration.
      `CREATE TABLE IF NOT EXISTS ${SESSIONS_TABLE} (
        owner TEXT NOT NULL,
        session_id TEXT NOT NULL,
        head INTEGER NOT NULL,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (owner, session_id)
      ) WITHOUT ROWID`,
    ],
    // COLLATE "C": keys are opaque, so byte order is all they need, and it is cheaper than the locale's.
    postgres: [
      `CREATE TABLE IF NOT EXISTS ${PREFIXES_TABLE} (
        owner TEXT COLLATE "C" NOT NULL,
        hash TEXT COLLATE "C" NOT NULL,
        session_id TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (owner, hash)
      )`,
      `CREATE TABLE IF NOT EXISTS ${SESSIONS_TABLE} (
        owner TEXT COLLATE "C" NOT NULL,
        session_id TEXT COLLATE "C" NOT NULL,
        head INTEGER NOT NULL,
        recorded_at BIGINT NOT NULL,
        PRIMARY KEY (owner, session_id)
      )`,
    ],
  },
  {
    version: 2,
    name: 'head hashes',
    // A head is a count, and a session recorded again with another conversation keeps the prefixes it
    // claimed: its head hash tells whether a request holds its conversation now. Sessions recorded before
    // get '' (never a computed hash): their next request starts a new session rather than guess.
    sqlite: [`ALTER TABLE ${SESSIONS_TABLE} ADD COLUMN head_hash TEXT NOT NULL DEFAULT ''`],
    postgres: [`ALTER TABLE ${SESSIONS_TABLE} ADD COLUMN head_hash TEXT COLLATE "C" NOT NULL DEFAULT ''`],
  },
  {
    version: 3,
    name: 'heads by hash, in recording order',
    // A request continues the sessions whose head hash is one of its prefix hashes: looked up by
    // (owner, head_hash). The same conversation sent again makes several such sessions; the one
    // recorded last is continued, and recorded_at (milliseconds) ties within a tick, so recorded_seq
    // orders records strictly. Existing sessions are numbered in their recorded_at order.
    sqlite: [
      `ALTER TABLE ${SESSIONS_TABLE} ADD COLUMN recorded_seq INTEGER NOT NULL DEFAULT 0`,
      `UPDATE ${SESSIONS_TABLE} SET recorded_seq = ranked.seq
       FROM (SELECT owner, session_id, row_number() OVER (ORDER BY recorded_at, owner, session_id) AS seq
             FROM ${SESSIONS_TABLE}) AS ranked
       WHERE ${SESSIONS_TABLE}.owner = ranked.owner AND ${SESSIONS_TABLE}.session_id = ranked.session_id`,
      `CREATE INDEX ${SESSIONS_HEAD_INDEX} ON ${SESSIONS_TABLE} (owner, head_hash)`,
      // A record takes the greatest recorded_seq plus one (under the write lock): one index lookup.
      `CREATE INDEX ${SESSIONS_TABLE}_recorded_seq ON ${SESSIONS_TABLE} (recorded_seq)`,
    ],
    // A sequence: records on several instances at once each take their own number without a lock.
    postgres: [
      `ALTER TABLE ${SESSIONS_TABLE} ADD COLUMN recorded_seq BIGINT NOT NULL DEFAULT 0`,
      `UPDATE ${SESSIONS_TABLE} SET recorded_seq = ranked.seq
       FROM (SELECT owner, session_id, row_number() OVER (ORDER BY recorded_at, owner, session_id) AS seq
             FROM ${SESSIONS_TABLE}) AS ranked
       WHERE ${SESSIONS_TABLE}.owner = ranked.owner AND ${SESSIONS_TABLE}.session_id = ranked.session_id`,
      `CREATE SEQUENCE ${RECORDINGS_SEQUENCE}`,
      `SELECT setval('${RECORDINGS_SEQUENCE}', COALESCE(MAX(recorded_seq), 0) + 1, false) FROM ${SESSIONS_TABLE}`,
      `CREATE INDEX ${SESSIONS_HEAD_INDEX} ON ${SESSIONS_TABLE} (owner, head_hash)`,
    ],
  },
];

export const CONVERSATION_INDEX_SCHEMA_VERSION: number = CONVERSATION_INDEX_MIGRATIONS.length;
