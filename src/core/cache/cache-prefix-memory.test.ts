import { describe, expect, it } from 'vitest';
import { createCachePrefixMemory, sharedLength } from './cache-prefix-memory.ts';
import { CACHE_TTL_5M_MS } from './prompt-cache-rules.ts';

/** Cumulative keys, as anthropicCacheBlocks makes them: each names its whole prefix. */
const keys = (...names: string[]) => names.map((_, at) => names.slice(0, at + 1).join('/'));

describe('createCachePrefixMemory', () => {
  it('recalls the request sharing the most leading blocks, with its breakpoints and live entries', () => {
    const memory = createCachePrefixMemory();
    memory.remember(keys('s', 'a1', 'a2'), [0, 2], 1, 0);
    memory.remember(keys('s', 'b1', 'b2', 'b3'), [0, 3], 1, 0);
    expect(memory.recall(keys('s', 'a1', 'a2', 'a3'), 0)).toEqual({
      shared: 3,
      breakpoints: [0, 2],
      written: [0, 2],
    });
    expect(memory.recall(keys('s', 'b1', 'x'), 0)).toEqual({ shared: 2, breakpoints: [0, 3], written: [0] });
    expect(memory.recall(keys('t', 'a1'), 0)).toBeUndefined();
  });

  it('keeps one request per conversation, carrying on the entries its earlier requests wrote', () => {
    const memory = createCachePrefixMemory(2);
    memory.remember(keys('s', 'a1', 'a2'), [0, 2], 1, 0);
    memory.remember(keys('s', 'b1'), [1], 1, 0);
    memory.remember(keys('s', 'a1', 'a2', 'a3', 'a4'), [0, 2, 4], 1, 1_000);
    // a's later request replaced its first; b is still there.
    expect(memory.recall(keys('s', 'b1', 'b2'), 1_000)).toMatchObject({ shared: 2, breakpoints: [1] });
    // An edit at a4: the entry a's first request wrote at a2 is still there to read.
    expect(memory.recall(keys('s', 'a1', 'a2', 'a3', 'x'), 2_000)).toEqual({
      shared: 4,
      breakpoints: [0, 2, 4],
      written: [0, 2],
    });
    // A third conversation pushes out the least recent one (b).
    memory.remember(keys('s', 'c1'), [1], 1, 2_000);
    expect(memory.recall(keys('s', 'b1'), 2_000)?.shared).toBe(1);
  });

  it('forgets entries 5 minutes after they were last written', () => {
    const memory = createCachePrefixMemory();
    memory.remember(keys('s', 'a1', 'a2'), [0, 2], 1, 0);
    memory.remember(keys('s', 'a1', 'a2', 'a3'), [0, 3], 1, CACHE_TTL_5M_MS);
    // At 5 min + 1 ms, a2 (written at 0) is gone; s was written again at 5 min.
    expect(memory.recall(keys('s', 'a1', 'a2', 'a3'), CACHE_TTL_5M_MS + 1)?.written).toEqual([0, 3]);
  });
});

describe('sharedLength', () => {
  it('counts the equal leading keys of cumulative key lists', () => {
    expect(sharedLength(['a', 'b', 'c'], ['a', 'b', 'x', 'y'])).toBe(2);
    expect(sharedLength(['a', 'b'], ['a', 'b', 'c'])).toBe(2);
    expect(sharedLength(['x'], ['a'])).toBe(0);
    expect(sharedLength([], ['a'])).toBe(0);
  });
});
