/**
 * One holder per session at a time, across everything that may change it: a model call through the
 * proxy (sync, prepare, the exchange, a recovery) and a REST call. In one process an in-memory queue is
 * enough; several `ctxkit serve` instances on one database share PostgreSQL advisory locks
 * (`postgres-session-locks.ts`), so no two instances compact, or append to, the same session at once.
 */

/** Frees the lock; calling it again does nothing. */
export type ReleaseLock = () => Promise<void>;

export interface SessionLocks {
  /** Resolves once the caller holds the session, in arrival order among this process's callers. */
  acquire(sessionId: string): Promise<ReleaseLock>;
  /**
   * For a model request on a recognized conversation: undefined at once when another model request
   * claims the session (then the request is another conversation, not this one's continuation); else the
   * claim is held and the session waited for (a REST call may hold it a moment), as `acquire` waits.
   */
  claim(sessionId: string): Promise<ReleaseLock | undefined>;
  /**
   * Whether other processes may hold sessions too (they share the store): then a session's state in this
   * process may be stale whenever the lock is taken, and is read from the store again.
   */
  readonly shared: boolean;
  close(): Promise<void>;
}

/** Locks for one process: a queue per session, nothing held once every holder has released. */
export function createMemorySessionLocks(): SessionLocks {
  const sessions = new KeyedQueue();
  const claims = new KeyedQueue();
  return {
    shared: false,
    acquire: (sessionId) => sessions.acquire(sessionId),
    claim: (sessionId) => withHeld(claims.tryAcquire(sessionId), () => sessions.acquire(sessionId)),
    close: async () => {},
  };
}

/**
 * With `outer` held (undefined: not held, so nothing is taken), takes the inner lock; one release frees
 * both, the inner first. When the inner is not taken (undefined, or an error), `outer` is freed at once.
 */
export async function withHeld(
  outer: ReleaseLock | undefined,
  take: () => Promise<ReleaseLock | undefined>,
): Promise<ReleaseLock | undefined> {
  if (!outer) return undefined;
  let inner: ReleaseLock | undefined;
  try {
    inner = await take();
  } finally {
    if (!inner) await outer();
  }
  if (!inner) return undefined;
  const held = inner;
  return async () => {
    try {
      await held();
    } finally {
      await outer();
    }
  };
}

/** Runs holders of one key one after another, in arrival order. */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** Resolves when the key is free for the caller; call the returned function to free it. */
  async acquire(key: string): Promise<ReleaseLock> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const release = this.#enqueue(key, previous);
    await previous;
    return release;
  }

  /** Holds the key when nobody holds or waits for it, else undefined. */
  tryAcquire(key: string): ReleaseLock | undefined {
    if (this.#tails.has(key)) return undefined;
    return this.#enqueue(key, Promise.resolve());
  }

  #enqueue(key: string, previous: Promise<void>): ReleaseLock {
    let free = () => {};
    const held = new Promise<void>((resolve) => {
      free = resolve;
    });
    const tail = previous.then(() => held);
    this.#tails.set(key, tail);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      free();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
    return release;
  }
}
