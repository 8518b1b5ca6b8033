/**
 * Counts the turns the event loop gets while work runs: work done in slices gives it many, work that
 * holds the thread none. Start it before the work, `stop()` it after.
 */
export class EventLoopTurns {
  #turns = 0;
  #counting = true;

  constructor() {
    const tick = (): void => {
      this.#turns++;
      if (this.#counting) setImmediate(tick);
    };
    setImmediate(tick);
  }

  /** The turns so far. */
  get count(): number {
    return this.#turns;
  }

  stop(): void {
    this.#counting = false;
  }
}
