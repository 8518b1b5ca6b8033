/**
 * Gives the memory of one huge request back to the system once the proxy is idle. A client's history of
 * 400,000 messages grows V8's heap to a gigabyte; collected, its pages stay in V8's pool, resident, and
 * the grown heap limit puts the next full collection far off: the process kept 1.2 GB resident for as
 * long as it ran. Only a memory-reducing collection returns the pool (1.2 GB → 0.35 GB measured). It
 * holds the thread for a few hundred milliseconds, so it runs only when no model call is in flight, a
 * moment after the last one, and at most once a minute; when calls are in flight as it falls due, it
 * waits for a moment between them (asked once, it is not dropped).
 *
 * V8 gives that collection only after a process-wide flag is set: it is set when the first release is
 * asked for, not when a proxy is built, so an application that builds one and never serves a huge
 * request keeps its V8 as it was.
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
  /**
   * The memory-reducing collection; default V8's (`memoryReducingCollection`, looked for at the first
   * request), none when unavailable.
   */
  collect?: (() => void) | undefined;
  delayMs?: number;
  intervalMs?: number;
  now?: () => number;
}

export class MemoryRelease {
  readonly #busy: () => boolean;
  /** Undefined until the first request when it is V8's: looking for it sets a flag of the process. */
  #collect: (() => void) | undefined;
  #collectKnown: boolean;
  readonly #delayMs: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #last = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryReleaseOptions) {
    this.#busy = options.busy;
    this.#collectKnown = 'collect' in options;
    this.#collect = options.collect;
    this.#delayMs = options.delayMs ?? RELEASE_DELAY_MS;
    this.#intervalMs = options.intervalMs ?? RELEASE_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** A huge request's memory is garbage now: collect it once the proxy has been idle a moment. */
  request(): void {
    if (!this.#collectKnown) {
      this.#collectKnown = true;
      this.#collect = memoryReducingCollection();
    }
    if (!this.#collect) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#schedule(Math.max(this.#delayMs, this.#last + this.#intervalMs - this.#now()));
  }

  #schedule(wait: number): void {
    this.#timer = setTimeout(() => this.#run(), wait);
    // Never what keeps a process alive.
    this.#timer.unref();
  }

  #run(): void {
    this.#timer = undefined;
    // A call in flight would wait for the collection: look again a moment later. Under steady traffic
    // nothing else would ask, and the memory would stay resident for as long as the traffic lasts.
    if (this.#busy()) {
      this.#schedule(this.#delayMs);
      return;
    }
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
