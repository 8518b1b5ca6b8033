import type Database from 'better-sqlite3';

/** The first and the longest pause between two tries at switching a database to WAL. */
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 100;

/**
 * Switches a database to WAL, waiting out another process that holds the lock. Two processes opening one
 * new database at once both ask for the switch; SQLite answers the loser SQLITE_BUSY at once, without
 * calling the busy handler, so `busy_timeout` does not cover it: this tries again, with growing pauses,
 * until `timeoutMs` has passed (then the error is thrown as it came).
 */
export function enableWal(db: Database.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      // Opening a store is synchronous work already (better-sqlite3); a short blocking pause keeps it so.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
      pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
    }
  }
}
