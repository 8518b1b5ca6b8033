/**
 * Gives the memory of one huge request back to the system once the proxy is idle. A client's history of
 * 400,000 messages grows V8's heap to a gigabyte; collected, its pages stay in V8's pool, resident, and
 * the grown heap limit puts the next full collection far off: the process kept 1.2 GB resident for as
 * long as it ran. Only a memory-reducing collection returns the pool (1.2 GB → 0.35 GB measured). It
 * holds the thread for a few hundred milliseconds, so it runs only when no model call is in flight, a
 * moment after the last one, and at most once a minute.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long the proxy must have been idle before the collection runs. */
export const RELEASE_DELAY_MS = 2_000;
/** The least time between two collections. */
export const RELEASE_INTERVAL_MS = 60_000;

export interface MemoryReleaseOptions {
  /** Whether a model call is in flight now: the collection waits for none to be. */
  busy: () => boolean;
  /** The memory-reducing collection; default V8's (`memoryReducingCollection`), none when unavailable. */
  collect?: (() => void) | undefined;
  delayMs?: number;
  intervalMs?: number;
  now?: () => number;
}

export class MemoryRelease {
  readonly #busy: () => boolean;
  readonly #collect: (() => void) | undefined;
  readonly #delayMs: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #last = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryReleaseOptions) {
    this.#busy = options.busy;
    this.#collect = 'collect' in options ? options.collect : memoryReducingCollection();
    this.#delayMs = options.delayMs ?? RELEASE_DELAY_MS;
    this.#intervalMs = options.intervalMs ?? RELEASE_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** A huge request's memory is garbage now: collect it once the proxy has been idle a moment. */
  request(): void {
    if (!this.#collect) return;
    if (this.#timer) clearTimeout(this.#timer);
    const wait = Math.max(this.#delayMs, this.#last + this.#intervalMs - this.#now());
    this.#timer = setTimeout(() => this.#run(), wait);
    // Never what keeps a process alive.
    this.#timer.unref();
  }

  #run(): void {
    this.#timer = undefined;
    // A call in flight would wait for the collection: the next request to end asks again.
    if (this.#busy()) return;
    this.#last = this.#now();
    this.#collect?.();
  }
}

/**
 * V8's collection of all it can, which also returns its pool of freed pages; undefined when V8 does not
 * give it. Node gives `gc` to a context made after `--expose-gc` is set, whatever the process's flags.
 */
export function memoryReducingCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as ((options?: object) => void) | undefined;
    if (typeof gc !== 'function') return undefined;
    return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    return undefined;
  }
}
