import { CtxkitError } from '../core/errors/index.ts';
/**
 * The session stores' schema, as an ordered list of migrations applied on open. SQLite and PostgreSQL
 * share the statements where they can (plain TEXT, INTEGER and DOUBLE PRECISION columns mean the same
 * to both); a migration that needs dialect-specific SQL gives `sqlite`/`postgres` lists instead.
 *
 * Rules: never edit a released migration, only append one with the next version; each migration runs
 * in the same transaction as the row recording it, so a database is never half-migrated. A database
 * whose recorded version is above `SESSION_STORE_SCHEMA_VERSION` was written by a newer ctxkit and is
 * refused with `SchemaTooNewError`.
 */

export type SqlDialect = 'sqlite' | 'postgres';

export interface SessionStoreMigration {
  version: number;
  name: string;
  /** Run on both dialects, unless the dialect has its own list. */
  statements?: readonly string[];
  sqlite?: readonly string[];
  postgres?: readonly string[];
}

/** Every table name starts with this, so the store can share a PostgreSQL database with anything. */
export const TABLE_PREFIX = 'ctxkit_';
export const MIGRATIONS_TABLE = `${TABLE_PREFIX}schema_migrations`;

export const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at DOUBLE PRECISION NOT NULL
)`;

export const SESSION_STORE_MIGRATIONS: readonly SessionStoreMigration[] = [
  {
    version: 1,
    name: 'sessions, messages and edits',
    statements: [
      // message_count and edit_count are the positions appends check; the rows below are the record.
      `CREATE TABLE ${TABLE_PREFIX}sessions (
        id TEXT PRIMARY KEY,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0,
        edit_count INTEGER NOT NULL DEFAULT 0
      )`,
      `CREATE INDEX ${TABLE_PREFIX}sessions_updated_at ON ${TABLE_PREFIX}sessions (updated_at, id)`,
      // body is the message's JSON text, kept as text (not jsonb) so it comes back byte for byte.
      `CREATE TABLE ${TABLE_PREFIX}messages (
        session_id TEXT NOT NULL REFERENCES ${TABLE_PREFIX}sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE TABLE ${TABLE_PREFIX}edits (
        session_id TEXT NOT NULL REFERENCES ${TABLE_PREFIX}sessions (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      )`,
    ],
  },
  {
    version: 2,
    name: 'what a resume reads, beside the bodies',
    // A resume reads every message's ids but only the recent bodies, reuses their token counts, and
    // reads only the edits that reach them (edits.reach, see editReach; NULL: every resume reads it).
    // Rows written before this version get their id from the body; their content id, count and reach
    // stay NULL, and resuming such a session reads the whole log and every edit once, as before.
    sqlite: [
      `ALTER TABLE ${TABLE_PREFIX}messages ADD COLUMN message_id TEXT`,
      `ALTER TABLE ${TABLE_PREFIX}messages ADD COLUMN content_id TEXT`,
      `ALTER TABLE ${TABLE_PREFIX}messages ADD COLUMN tokens TEXT`,
      `UPDATE ${TABLE_PREFIX}messages SET message_id = json_extract(body, '$.id')`,
      // Reading every id must not walk the bodies (the new columns sit after them in each row).
      `CREATE INDEX ${TABLE_PREFIX}messages_ids ON ${TABLE_PREFIX}messages (session_id, seq, message_id, content_id)`,
      `ALTER TABLE ${TABLE_PREFIX}edits ADD COLUMN reach INTEGER`,
      `CREATE INDEX ${TABLE_PREFIX}edits_reach ON ${TABLE_PREFIX}edits (session_id, reach)`,
    ],
    postgres: [
      `ALTER TABLE ${TABLE_PREFIX}messages ADD COLUMN message_id TEXT, ADD COLUMN content_id TEXT, ADD COLUMN tokens TEXT`,
      `UPDATE ${TABLE_PREFIX}messages SET message_id = (body::json) ->> 'id'`,
      `ALTER TABLE ${TABLE_PREFIX}edits ADD COLUMN reach INTEGER`,
      `CREATE INDEX ${TABLE_PREFIX}edits_reach ON ${TABLE_PREFIX}edits (session_id, reach)`,
    ],
  },
  {
    version: 3,
    name: "a session's policy override",
    // The override is the session's (DESIGN: "its policy overrides"), one value beside its positions, so
    // it lives on the session row and goes with it on delete. JSON text, as the bodies are. Rows from
    // before this version have none (NULL): their sessions run under the manager's policy, as before.
    statements: [
      `ALTER TABLE ${TABLE_PREFIX}sessions ADD COLUMN policy_override TEXT`,
      `ALTER TABLE ${TABLE_PREFIX}sessions ADD COLUMN policy_updated_at DOUBLE PRECISION`,
    ],
  },
  {
    version: 4,
    name: "the shape of a session's last request",
    // What the session's last call gave (system prompt, tools, model, window settings; see
    // stored-last-request.ts), so every process sharing the store measures its next call alike. JSON
    // text on the session row, gone with it on delete. Rows from before this version have none (NULL):
    // their next call says it again, as after a restart before.
    statements: [`ALTER TABLE ${TABLE_PREFIX}sessions ADD COLUMN last_request TEXT`],
  },
];

export const SESSION_STORE_SCHEMA_VERSION: number = latestVersion(SESSION_STORE_MIGRATIONS);

function latestVersion(migrations: readonly SessionStoreMigration[]): number {
  return migrations.reduce((latest, migration) => Math.max(latest, migration.version), 0);
}

export function statementsFor(migration: SessionStoreMigration, dialect: SqlDialect): readonly string[] {
  return migration[dialect] ?? migration.statements ?? [];
}

/** What opening a database at `current` must apply, in order; throws if the list itself is malformed. */
export function pendingMigrations(
  current: number,
  migrations: readonly SessionStoreMigration[] = SESSION_STORE_MIGRATIONS,
): SessionStoreMigration[] {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new CtxkitError(
        'invalid_migrations',
        `session store migration "${migration.name}" has version ${migration.version}, expected ${index + 1}`,
        { version: migration.version, expected: index + 1 },
      );
    }
  });
  return migrations.filter((migration) => migration.version > current);
}
