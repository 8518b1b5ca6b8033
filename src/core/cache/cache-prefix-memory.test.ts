import { describe, expect, it } from 'vitest';
import { createCachePrefixMemory, sharedLength } from './cache-prefix-memory.ts';

const keys = (...names: string[]) => names;

describe('createCachePrefixMemory', () => {
  it('recalls the request sharing the most leading blocks, with its breakpoints', () => {
    const memory = createCachePrefixMemory();
    memory.remember(keys('s', 'a1', 'a2'), [0, 2], 1);
    memory.remember(keys('s', 'b1', 'b2', 'b3'), [0, 3], 1);
    expect(memory.recall(keys('s', 'a1', 'a2', 'a3'))).toEqual({ shared: 3, breakpoints: [0, 2] });
    expect(memory.recall(keys('s', 'b1', 'x'))).toEqual({ shared: 2, breakpoints: [0, 3] });
    expect(memory.recall(keys('t', 'a1'))).toBeUndefined();
  });

  it('keeps one request per conversation: the next one takes the place of the last', () => {
    const memory = createCachePrefixMemory(2);
    memory.remember(keys('s', 'a1'), [1], 1);
    memory.remember(keys('s', 'b1'), [1], 1);
    memory.remember(keys('s', 'a1', 'a2'), [2], 1);
    // a's second request replaced its first; b is still there.
    expect(memory.recall(keys('s', 'b1', 'b2'))).toEqual({ shared: 2, breakpoints: [1] });
    expect(memory.recall(keys('s', 'a1', 'a2', 'a3'))).toEqual({ shared: 3, breakpoints: [2] });
    // A third conversation pushes out the least recent one (b).
    memory.remember(keys('s', 'c1'), [1], 1);
    expect(memory.recall(keys('s', 'b1'))?.shared).toBe(1);
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
