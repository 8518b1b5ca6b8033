/**
 * A Map that forgets its oldest entries beyond a size: past it, the oldest sixteenth at once. One at a time
 * would cost time in proportion to the size on every set: a deleted entry leaves a hole at the front of
 * V8's table until it is rebuilt, and finding the oldest entry walks over every hole (a million sets on a
 * 200,000 bound took minutes).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number;

  constructor(max: number) {
    super();
    this.#max = max;
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.#max) {
      let excess = this.size - this.#max + Math.floor(this.#max / EVICTED_FRACTION);
      for (const oldest of this.keys()) {
        super.delete(oldest);
        if (--excess <= 0) break;
      }
    }
    return this;
  }
}

/** Past its bound, a BoundedMap forgets this fraction of it (its oldest entries) at once. */
const EVICTED_FRACTION = 16;
