import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.ts';

describe('BoundedMap', () => {
  it('never holds more than its bound, and forgets the oldest first', () => {
    const map = new BoundedMap<number, number>(100);
    for (let key = 0; key < 1000; key++) {
      map.set(key, key);
      expect(map.size).toBeLessThanOrEqual(100);
    }
    expect(map.has(999)).toBe(true);
    expect(map.has(0)).toBe(false);
    // Past the bound a sixteenth goes at once: what stays is the newest.
    const kept = [...map.keys()];
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => 1000 - kept.length + index));
    expect(kept.length).toBeGreaterThanOrEqual(100 - 100 / 16);
  });

  it('counts a set of a key it holds as its newest use', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    map.set('c', 4);
    expect([...map.entries()]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });

  it('costs time in proportion to the sets past its bound, whatever the bound', () => {
    // Forgetting one entry per set walked V8's holes at the table's front: each set cost time in
    // proportion to the bound, so 8x the bound (and 8x the sets) took 64x the time. In proportion, it
    // takes 8x, about 13x on this machine (a larger table misses the cache more): the bound sits between.
    // Rounds alternate the two sizes, so both see the machine in the same state, and each keeps its best.
    const once = (bound: number): number => {
      const keys = Array.from({ length: bound * 4 }, (_, index) => `k${index}`);
      const map = new BoundedMap<string, number>(bound);
      const started = performance.now();
      for (const [index, key] of keys.entries()) map.set(key, index);
      return performance.now() - started;
    };
    let small = Number.POSITIVE_INFINITY;
    let large = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round++) {
      small = Math.min(small, once(6_250));
      large = Math.min(large, once(50_000));
    }
    expect(large / Math.max(small, 0.5)).toBeLessThan(32);
  });
});
