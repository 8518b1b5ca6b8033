/**
 * Long work done in slices, the event loop getting a turn between two of them: a server working through
 * one request of a million messages still answers the others (a health check, a short call) meanwhile.
 *
 * The loop asks `due()` after each step and, when it is, awaits `next()`. An `await` alone would not do:
 * a resolved promise continues in the same microtask checkpoint, before any I/O is looked at, while
 * `setImmediate` runs after the I/O that is waiting.
 *
 * This reads a clock, which core otherwise never does: it decides only when other work may run, never
 * what anything computes. Tests pass their own.
 */

/** How long one slice runs before the event loop gets a turn, in milliseconds. */
export const DEFAULT_SLICE_MS = 8;

export class WorkSlices {
  readonly sliceMs: number;
  readonly #now: () => number;
  #sliceStart: number;

  constructor(sliceMs = DEFAULT_SLICE_MS, now: () => number = () => performance.now()) {
    this.sliceMs = sliceMs;
    this.#now = now;
    this.#sliceStart = now();
  }

  /** The slice has run its length: the caller should `await next()` before its next step. */
  due(): boolean {
    return this.#now() - this.#sliceStart >= this.sliceMs;
  }

  /** Gives the event loop a turn (after the I/O waiting), then starts a new slice. */
  async next(): Promise<void> {
    await yieldToEventLoop();
    this.#sliceStart = this.#now();
  }

  /** A turn when the slice is due, nothing otherwise (for steps taken seldom enough to await each). */
  async pause(): Promise<void> {
    if (this.due()) await this.next();
  }
}

/** Resolves after the I/O callbacks already waiting have run. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `map` over a long array, in slices. */
export async function mapInSlices<T, U>(
  items: readonly T[],
  map: (item: T, index: number) => U,
  slices: WorkSlices = new WorkSlices(),
): Promise<U[]> {
  const out: U[] = [];
  for (let index = 0; index < items.length; index++) {
    out.push(map(items[index] as T, index));
    if (slices.due()) await slices.next();
  }
  return out;
}

/** `forEach` over a long array, in slices. */
export async function forEachInSlices<T>(
  items: readonly T[],
  visit: (item: T, index: number) => void,
  slices: WorkSlices = new WorkSlices(),
): Promise<void> {
  for (let index = 0; index < items.length; index++) {
    visit(items[index] as T, index);
    if (slices.due()) await slices.next();
  }
}
