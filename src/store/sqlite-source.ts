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

/** How long a writer waits for another process's lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export function openSqlite(source: SqliteSource): SqliteConnection {
  if ('database' in source) return { db: source.database, close: () => {} };
  const db = new (betterSqlite3())(source.filename);
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  if (source.filename !== ':memory:') enableWal(db, SQLITE_BUSY_TIMEOUT_MS);
  return {
    db,
    close: () => {
      if (db.open) db.close();
    },
  };
}
