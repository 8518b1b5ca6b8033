import { isDeepStrictEqual } from 'node:util';
import type { Edit } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message } from '../core/message.ts';
import type { PolicyOverride } from '../core/policy/policy-schema.ts';
import { assertValidSessionId } from '../core/session-id.ts';
import { MessageTokenCache } from '../core/tokens/message-token-cache.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { CounterChooser } from './call-context.ts';
import { readLastRequest } from './last-request-record.ts';
import { restoreEdits } from './restore-session.ts';
import type { SessionPolicy } from './session-policy.ts';
import { SessionRuntime } from './session-runtime.ts';

/**
 * A session's token cache holds one entry per message it has shown, so its size is the session's: any
 * count bound would be smaller than some session, and a view larger than its cache misses on every entry
 * (each recount tokenized the whole view again, and evicted one entry at a time, which takes time in
 * proportion to the bound: a 200,000-message session spent minutes there).
 */
const SESSION_TOKEN_CACHE_ENTRIES = Number.MAX_SAFE_INTEGER;

export interface SessionResidencyOptions {
  store: SessionStore;
  counters: CounterChooser;
  tokenCache: { messageOverheadTokens: number; mediaTokens: number; countToolCallType: boolean };
  /** The session's policy from its stored override (refused when it no longer fits). */
  storedPolicy: (sessionId: string, override: PolicyOverride | undefined) => SessionPolicy;
  clock: () => number;
  newId: () => string;
  emit: (events: ContextEvent[]) => void;
  /** See `ContextManagerOptions.sharedStore`. */
  sharedStore: boolean;
  /**
   * When the manager started. With a shared store, a session last written before it is resumed after a
   * restart (the policy's restore applies); one written since was live, here or in another process.
   */
  startedAt: number;
}

/**
 * The sessions a manager holds in memory: each loaded (resumed or restored) from the store on first use,
 * held until it is unloaded or found stale, and worked on one call at a time. Its edits are committed
 * here, to the store and then the runtime; a failed write forgets the runtime, so it is read again.
 */
export class SessionResidency {
  readonly #options: SessionResidencyOptions;
  readonly #runtimes = new Map<string, SessionRuntime>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(options: SessionResidencyOptions) {
    this.#options = options;
  }

  /** The session's runtime when it is loaded. */
  loaded(sessionId: string): SessionRuntime | undefined {
    return this.#runtimes.get(sessionId);
  }

  /** Drops the in-memory state of a session (it reloads from the store on next use). */
  unload(sessionId: string): void {
    this.#runtimes.delete(sessionId);
  }

  /** Work on the session, loaded, under its lock (see `serialized`). */
  exclusive<T>(sessionId: string, work: (runtime: SessionRuntime) => Promise<T>): Promise<T> {
    return this.serialized(sessionId, async () => work(await this.load(sessionId)));
  }

  /**
   * Calls on one session run one at a time, in order; different sessions run concurrently. Setting an
   * override takes the lock without loading the session: one that no longer fits can still be replaced.
   */
  serialized<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    try {
      // Refused before anything is read or written: see `MAX_SESSION_ID_LENGTH`.
      assertValidSessionId(sessionId);
    } catch (error) {
      return Promise.reject(error);
    }
    const previous = this.#locks.get(sessionId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.#locks.set(sessionId, settled);
    void settled.then(() => {
      if (this.#locks.get(sessionId) === settled) this.#locks.delete(sessionId);
    });
    return next;
  }

  /**
   * Forgets the loaded session when another process changed it in the store since this manager last read
   * or wrote it (its log or its edits grew, its policy override or its last request changed). True when
   * it will be read again. Run under the session's lock.
   */
  async forgetIfStale(sessionId: string): Promise<boolean> {
    const runtime = this.#runtimes.get(sessionId);
    // Not loaded: read from the store when first used anyway.
    if (!runtime) return false;
    const { store } = this.#options;
    // Three one-row reads: no message or edit is read unless the session changed.
    const [positions, policy, lastRequest] = await Promise.all([
      store.loadPositions(sessionId),
      store.loadPolicyOverride(sessionId),
      readLastRequest(store, sessionId),
    ]);
    const stale =
      (positions?.messages ?? 0) !== runtime.nextSeq ||
      (positions?.edits ?? 0) !== runtime.editCount ||
      !isDeepStrictEqual(policy?.override ?? {}, runtime.policyOverride) ||
      lastRequest.stored !== runtime.lastRequest.stored;
    if (stale && this.#runtimes.get(sessionId) === runtime) this.#runtimes.delete(sessionId);
    return stale;
  }

  /**
   * Resolves once the session's work in this manager is over: calls queued on it, and a summary a turn
   * scheduled in the background (applied or not).
   */
  settle(sessionId: string): Promise<void> {
    return this.serialized(sessionId, async () => {
      const pending = this.#runtimes.get(sessionId)?.progress.summaries.pending;
      if (pending && !pending.settled) await pending.promise.catch(() => undefined);
    });
  }

  /** A resumed session reads its older messages and edits from the store the first time something needs them. */
  async whole(runtime: SessionRuntime): Promise<{ log: readonly Message[]; edits: readonly Edit[] }> {
    const held = runtime.whole();
    if (held) return held;
    runtime.loadOlder((await this.#options.store.load(runtime.id)) ?? { log: [], edits: [] });
    return runtime.whole() ?? { log: [], edits: [] };
  }

  /** Stores the edits, then applies them to the runtime (patched in place when they allow it). */
  async commitEdits(runtime: SessionRuntime, edits: Edit[]): Promise<void> {
    if (edits.length === 0) return;
    try {
      await this.#options.store.appendEdits(runtime.id, edits, runtime.editCount, this.#options.clock());
    } catch (error) {
      // A conflict, or a failure after writing: re-read the store next time.
      this.#runtimes.delete(runtime.id);
      throw error;
    }
    runtime.addEdits(edits);
    // Content-only edits of messages in view are patched in place, a new prefix cut taken off the front;
    // anything else re-projects.
    if (!runtime.patchInPlace(edits) && !runtime.cutInPlace(edits)) await runtime.rebuild();
  }

  /**
   * The session's runtime, loaded from the store when it is not held (a `session-restored` event when the
   * store had it). Called under the session's lock (`serialized`).
   */
  async load(sessionId: string): Promise<SessionRuntime> {
    const existing = this.#runtimes.get(sessionId);
    if (existing) return existing;
    const { store, clock } = this.#options;
    // The override and the last request are read with the session, every time it is loaded: another
    // process may have set them.
    const [override, lastRequest] = await Promise.all([
      store.loadPolicyOverride(sessionId),
      readLastRequest(store, sessionId),
    ]);
    const policy = this.#options.storedPolicy(sessionId, override?.override);
    const counter = this.#options.counters.counterFor(policy.policy.model);
    const cache = new MessageTokenCache({
      ...this.#options.tokenCache,
      maxEntries: SESSION_TOKEN_CACHE_ENTRIES,
    });
    const runtime = new SessionRuntime(sessionId, counter, cache, policy);
    runtime.seedLastRequest(lastRequest);
    const restored = await this.#readStored(runtime);
    if (restored) {
      // The policy's restore (cowagent's recent turns as text, digitorn's snapshot) is for a session
      // resumed after a restart. With the store shared, one written since this manager started was live
      // in another process (or here, before it was unloaded) and goes on as it is.
      const resumed = !this.#options.sharedStore || restored.updatedAt <= this.#options.startedAt;
      const edits = resumed ? restoreEdits(runtime, runtime.policy, clock(), this.#options.newId) : [];
      if (edits.length > 0) {
        this.#runtimes.set(sessionId, runtime);
        await this.commitEdits(runtime, edits);
      }
      this.#options.emit([
        {
          type: 'session-restored',
          sessionId,
          at: clock(),
          messages: runtime.nextSeq,
          edits: restored.edits,
        },
      ]);
    }
    this.#runtimes.set(sessionId, runtime);
    return runtime;
  }

  /**
   * Fills a new runtime from the store: the recent part of the log when the store kept every message's
   * content id, else the whole log. Undefined when the store has nothing for the session.
   */
  async #readStored(runtime: SessionRuntime): Promise<{ edits: number; updatedAt: number } | undefined> {
    const { store } = this.#options;
    const recent = await store.loadRecent(runtime.id);
    if (!recent || (recent.messageIds.length === 0 && recent.editCount === 0)) return undefined;
    if (await runtime.resume(recent)) return { edits: recent.editCount, updatedAt: recent.updatedAt };
    const stored = await store.load(runtime.id);
    if (!stored) return undefined;
    await runtime.restore(stored.log, stored.edits);
    return { edits: stored.edits.length, updatedAt: stored.updatedAt };
  }
}
