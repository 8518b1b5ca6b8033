import type Database from 'better-sqlite3';
import { betterSqlite3 } from './load-better-sqlite3.ts';
import { enableWal } from './sqlite-wal.ts';

/** Where an SQLite-backed store gets its database: one it opens (and closes), or one it shares. */
export type SqliteSource = { filename: string } | { database: Database.Database };

export interface SqliteConnection {
  db: Database.Database;
  /** Closes the database if it was opened from a filename; a shared one is left open for its owner. */
  close(): void;
}

/**
 * `normal` in WAL mode: a commit survives the process crashing; the last commits may be lost if the
 * machine loses power. `full` syncs every commit (slower single appends).
 */
export const DEFAULT_SQLITE_SYNCHRONOUS: SqliteSynchronous = 'normal';

export type SqliteSynchronous = 'off' | 'normal' | 'full' | 'extra';

/** How long a writer waits for another process's lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export function openSqlite(source: SqliteSource): SqliteConnection {
  if ('database' in source) return { db: source.database, close: () => {} };
  const db = new (betterSqlite3())(source.filename);
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  if (source.filename !== ':memory:') enableWal(db, SQLITE_BUSY_TIMEOUT_MS);
  // As the session store's connection: SQLite's own default (`full`) syncs the log on every commit, and
  // a trace or index written on every call paid for that on every call.
  db.pragma(`synchronous = ${DEFAULT_SQLITE_SYNCHRONOUS}`);
  return {
    db,
    close: () => {
      if (db.open) db.close();
    },
  };
}
