/**
 * Keeps a bounded number of sessions in the manager's memory: a proxy serves conversations without end,
 * and each one it has seen would otherwise stay loaded. The least recently used idle sessions are
 * unloaded past a count of sessions, and the largest idle ones past a count of the messages they hold
 * together (one client's history of 400,000 messages kept a gigabyte resident after its request); they
 * reload from the store when their conversation comes back.
 */
import type { ContextManager } from '../engine/context-manager.ts';
import { MemoryRelease } from './release-memory.ts';

/** Sessions kept loaded beyond those with a request in flight. */
export const DEFAULT_MAX_LOADED_SESSIONS = 256;
/**
 * Messages the idle loaded sessions may hold together (a session holds every message's ids, and the
 * bodies since its newest cut): about 100 MB. A session larger alone is unloaded once its request ends.
 */
export const DEFAULT_MAX_LOADED_MESSAGES = 100_000;

/** What LoadedSessions needs of the manager: `loadedMessages` to bound by size (else only by count). */
export type LoadedSessionsManager = Pick<ContextManager, 'unload'> &
  Partial<Pick<ContextManager, 'loadedMessages'>>;

export class LoadedSessions {
  readonly #manager: LoadedSessionsManager;
  readonly #max: number;
  readonly #maxMessages: number;
  /** Session id → requests in flight; Map order is least recently used first. */
  readonly #sessions = new Map<string, number>();
  /** Per loaded session, the messages it held when its last call ended; their sum. */
  readonly #held = new Map<string, number>();
  #heldMessages = 0;
  readonly #onUnload: (sessionId: string) => void;
  readonly #release: Pick<MemoryRelease, 'request'> | undefined;

  /**
   * `release`: what gives the memory of huge sessions back once they are unloaded (by default V8's
   * collection, when the proxy is idle: see `MemoryRelease`); null for none.
   */
  constructor(
    manager: LoadedSessionsManager,
    max = DEFAULT_MAX_LOADED_SESSIONS,
    onUnload: (sessionId: string) => void = () => {},
    maxMessages = DEFAULT_MAX_LOADED_MESSAGES,
    release?: Pick<MemoryRelease, 'request'> | null,
  ) {
    this.#manager = manager;
    this.#max = max;
    this.#onUnload = onUnload;
    this.#maxMessages = maxMessages;
    this.#release =
      release === undefined ? new MemoryRelease({ busy: () => this.#anyBusy() }) : (release ?? undefined);
  }

  #anyBusy(): boolean {
    for (const busy of this.#sessions.values()) if (busy > 0) return true;
    return false;
  }

  /** A request starts on the session. */
  enter(sessionId: string): void {
    const busy = this.#sessions.get(sessionId) ?? 0;
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, busy + 1);
  }

  /** A request on the session ended: the session is now the most recently used. */
  leave(sessionId: string): void {
    const busy = this.#sessions.get(sessionId) ?? 1;
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, busy - 1);
    this.#evict(sessionId);
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** `left`: the session whose call just ended. */
  #evict(left?: string): void {
    for (const [sessionId, busy] of this.#sessions) {
      if (this.#sessions.size <= this.#max) break;
      if (busy === 0) this.#unload(sessionId);
    }
    const loadedMessages = this.#manager.loadedMessages;
    if (!loadedMessages) return;
    // The messages each session held when its last call here ended: a session grows only by its calls
    // (a write through the REST API shows at its next call). Within the bound (nearly every call), nothing
    // is asked of the manager; past it, every idle session is counted anew.
    if (left !== undefined) {
      const held = loadedMessages.call(this.#manager, left);
      this.#heldMessages += held - (this.#held.get(left) ?? 0);
      this.#held.set(left, held);
    }
    if (this.#heldMessages <= this.#maxMessages) return;
    let messages = 0;
    const idle: { sessionId: string; messages: number }[] = [];
    for (const [sessionId, busy] of this.#sessions) {
      if (busy > 0) continue;
      const held = loadedMessages.call(this.#manager, sessionId);
      idle.push({ sessionId, messages: held });
      messages += held;
    }
    // Past the messages' bound, the largest go first: one huge session, not every small one.
    idle.sort((a, b) => b.messages - a.messages);
    let unloaded = 0;
    for (const session of idle) {
      if (messages <= this.#maxMessages) break;
      messages -= session.messages;
      unloaded += session.messages;
      this.#unload(session.sessionId);
    }
    // As many messages as the bound went at once: their memory (and their requests') is worth giving back.
    if (unloaded >= this.#maxMessages) this.#release?.request();
  }

  #unload(sessionId: string): void {
    this.#sessions.delete(sessionId);
    this.#heldMessages -= this.#held.get(sessionId) ?? 0;
    this.#held.delete(sessionId);
    this.#manager.unload(sessionId);
    this.#onUnload(sessionId);
  }
}

/** Sessions whose last reply's usage is remembered until the client sends the reply back. */
export const MAX_PENDING_REPLIES = 100_000;
