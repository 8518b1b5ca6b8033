/**
 * Session locks shared by every `ctxkit serve` instance on one PostgreSQL database: a transaction-scoped
 * advisory lock per session, held by an open transaction on a connection of this pool for as long as
 * the caller holds the session. Ending the transaction (commit, rollback, or the connection dying with
 * its process) frees the lock, so an instance that crashes never leaves a session locked, and there is
 * no unlock statement that could fail and leave it held.
 *
 * Callers in this process queue here first (`KeyedQueue`, in arrival order), so at most one connection
 * per session waits in PostgreSQL and a busy session never takes the connections other sessions need.
 * The pool is the locks' own, never the store's: a holder waits on its upstream with a connection taken,
 * and its work needs store connections, which a shared pool full of holders would never give it.
 * `maxHeld` bounds the sessions this instance holds at once (more callers wait for a connection).
 *
 * A held lock's connection can die (a database restart, an administrator's `pg_terminate_backend`): the
 * lock is gone then, and `onLost` says so. Nothing is sent on that connection again (postgres.js 3.4
 * crashes the process writing to a closed connection inside a transaction); the store's own check of
 * every write (the expected message and edit counts) keeps a second holder from overwriting the first.
 */
import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { KeyedQueue, type ReleaseLock, type SessionLocks, withHeld } from './session-locks.ts';

/** The advisory lock space of ctxkit's sessions ("ctxs"): the two-key form, apart from one-key locks. */
export const SESSION_LOCK_CLASS = 0x63747873;
/** The space of model requests' claims on recognized conversations ("ctxc"). */
export const SESSION_CLAIM_CLASS = 0x63747863;
/** Sessions one instance holds at once by default: each held session keeps one connection open. */
export const DEFAULT_MAX_HELD_SESSIONS = 32;

export interface PostgresSessionLockOptions {
  url: string;
  maxHeld?: number;
  /** Called when a held lock's connection died: the session was no longer held from then on. */
  onLost?: (sessionId: string, error: unknown) => void;
}

/**
 * A session's key in a lock space: 32 bits of its id's sha256. Two sessions with one key are held one at
 * a time (and a claim on one refuses the other's, which then gets a session of its own): one pair in
 * four billion.
 */
export function sessionLockKey(sessionId: string): number {
  return createHash('sha256').update(sessionId, 'utf8').digest().readInt32BE(0);
}

export function createPostgresSessionLocks(options: PostgresSessionLockOptions): SessionLocks {
  const sql = postgres(options.url, {
    max: options.maxHeld ?? DEFAULT_MAX_HELD_SESSIONS,
    onnotice: () => {},
    idle_timeout: 60,
    // A held lock is an open transaction left idle on purpose: no server timeout may end it.
    connection: { idle_in_transaction_session_timeout: 0, statement_timeout: 0, lock_timeout: 0 },
  });
  const local = new KeyedQueue();
  const claims = new KeyedQueue();

  /**
   * Runs a transaction that takes the session's lock, first its claim when `claim` (only if free), and
   * holds them until released: one connection for both.
   */
  const hold = (sessionId: string, claim: boolean): Promise<ReleaseLock | undefined> =>
    new Promise((resolve, reject) => {
      const key = sessionLockKey(sessionId);
      let free = () => {};
      const held = new Promise<void>((resolveHeld) => {
        free = resolveHeld;
      });
      let acquired = false;
      let lost = false;
      let releasedByHolder = false;
      const transaction = sql.begin(async (tx) => {
        if (claim) {
          const [row] = await tx`
            select pg_try_advisory_xact_lock(${SESSION_CLAIM_CLASS}::int4, ${key}::int4) as taken`;
          if (row?.taken !== true) {
            resolve(undefined);
            return;
          }
        }
        await tx`select pg_advisory_xact_lock(${SESSION_LOCK_CLASS}::int4, ${key}::int4)`;
        acquired = true;
        let released = false;
        resolve(async () => {
          if (released) return;
          released = true;
          // A dead connection is never written to again: its transaction, and the lock, ended with it.
          if (lost) return;
          releasedByHolder = true;
          free();
          // The lock is free once the transaction ends; a failed commit ended it too.
          await transaction.catch(() => undefined);
        });
        await held;
      });
      transaction.catch((error: unknown) => {
        if (!acquired) reject(error);
        // A commit that fails after the holder let go (the connection cut at shutdown) lost nothing.
        else if (!lost && !releasedByHolder) {
          lost = true;
          options.onLost?.(sessionId, error);
        }
      });
    });

  return {
    shared: true,
    acquire: async (sessionId) => {
      // This process's callers queue here: only the first of them waits in PostgreSQL.
      const release = await withHeld(await local.acquire(sessionId), () => hold(sessionId, false));
      if (!release) throw new Error('unreachable: a lock without a claim is always taken');
      return release;
    },
    // A claim this process holds refuses at once, without asking the database.
    claim: (sessionId) =>
      withHeld(claims.tryAcquire(sessionId), async () =>
        withHeld(await local.acquire(sessionId), () => hold(sessionId, true)),
      ),
    close: () => sql.end({ timeout: 5 }),
  };
}
