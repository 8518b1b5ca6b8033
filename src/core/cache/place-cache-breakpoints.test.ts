import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CacheBlock, placeCacheBreakpoints } from './place-cache-breakpoints.ts';
import {
  CACHE_LOOKBACK_BLOCKS,
  DEFAULT_MIN_CACHEABLE_TOKENS,
  MAX_CACHE_BREAKPOINTS,
  minCacheableTokensFor,
} from './prompt-cache-rules.ts';

const blocks = (tokens: number[], uncacheable: number[] = []): CacheBlock[] =>
  tokens.map((count, at) => ({ tokens: count, cacheable: !uncacheable.includes(at) }));

describe('placeCacheBreakpoints', () => {
  it('marks the end of the tools and system and the end of the request on a first call', () => {
    // 2 tools, 1 system block (1,100 tokens so far), then 5 message blocks.
    const request = blocks([300, 300, 500, 50, 50, 50, 50, 50]);
    expect(placeCacheBreakpoints({ blocks: request, fixedBlocks: 3, minTokens: 1024 })).toEqual([2, 7]);
  });

  it('skips the tools and system when they are under the minimum', () => {
    const request = blocks([100, 100, 2000, 50]);
    expect(placeCacheBreakpoints({ blocks: request, fixedBlocks: 2, minTokens: 1024 })).toEqual([3]);
  });

  it('marks nothing on a request under the minimum', () => {
    expect(
      placeCacheBreakpoints({ blocks: blocks([100, 200, 300]), fixedBlocks: 1, minTokens: 1024 }),
    ).toEqual([]);
  });

  it('reads where the previous call wrote, however many blocks came since', () => {
    // The previous request had 30 blocks and marked 0 (system) and 29 (its end); 40 blocks came since.
    const request = blocks(Array.from({ length: 70 }, (_, at) => (at === 0 ? 2000 : 100)));
    const marks = placeCacheBreakpoints({
      blocks: request,
      fixedBlocks: 1,
      minTokens: 1024,
      sharedWithPrevious: 30,
      previousBreakpoints: [0, 29],
    });
    expect(marks).toEqual([0, 29, 69]);
  });

  it('after an edit inside the shared prefix, reads the last entry the previous call wrote before it', () => {
    // Previous marks at 0, 25 and 59; an edit changed block 40, so only 40 blocks are shared.
    const request = blocks(Array.from({ length: 65 }, (_, at) => (at === 0 ? 2000 : 100)));
    const marks = placeCacheBreakpoints({
      blocks: request,
      fixedBlocks: 1,
      minTokens: 1024,
      sharedWithPrevious: 40,
      previousBreakpoints: [0, 25, 59],
    });
    // 25 (the read), 0 (tools and system), 39 (the end of what is shared: written for a later edit), 64.
    expect(marks).toEqual([0, 25, 39, 64]);
  });

  it('reads the last live entry any earlier call wrote before an edit, not only the previous call’s', () => {
    // The previous call marked 0, 25 and 59; an older call's end at 36 is still alive; block 40 changed.
    const request = blocks(Array.from({ length: 65 }, (_, at) => (at === 0 ? 2000 : 100)));
    const marks = placeCacheBreakpoints({
      blocks: request,
      fixedBlocks: 1,
      minTokens: 1024,
      sharedWithPrevious: 40,
      previousBreakpoints: [0, 25, 59],
      writtenPositions: [0, 25, 36],
    });
    expect(marks).toEqual([0, 36, 39, 64]);
  });

  it('marks the block before the largest one added since the previous call', () => {
    // 10 blocks shared; of the 6 added, block 13 (a large result) is the largest.
    const sizes = Array.from({ length: 16 }, (_, at) => (at === 0 ? 2000 : at === 13 ? 5000 : 100));
    const marks = placeCacheBreakpoints({
      blocks: blocks(sizes),
      fixedBlocks: 1,
      minTokens: 1024,
      sharedWithPrevious: 10,
      previousBreakpoints: [0, 9],
    });
    expect(marks).toEqual([0, 9, 12, 15]);
  });

  it('with the previous call unknown, marks back from the end every 20 blocks', () => {
    const request = blocks(Array.from({ length: 100 }, (_, at) => (at === 0 ? 2000 : 100)));
    expect(placeCacheBreakpoints({ blocks: request, fixedBlocks: 1, minTokens: 1024 })).toEqual([
      0,
      99 - 2 * CACHE_LOOKBACK_BLOCKS,
      99 - CACHE_LOOKBACK_BLOCKS,
      99,
    ]);
  });

  it('never marks a block that cannot carry a mark: it takes the one before', () => {
    // The last block is thinking (uncacheable), so the end mark goes on the block before it.
    const request = blocks([2000, 100, 100, 100], [3]);
    expect(placeCacheBreakpoints({ blocks: request, fixedBlocks: 1, minTokens: 1024 })).toEqual([0, 2]);
  });

  it('marks the prefix the next edit leaves alone when it is known', () => {
    const request = blocks(Array.from({ length: 12 }, (_, at) => (at === 0 ? 2000 : 100)));
    const marks = placeCacheBreakpoints({
      blocks: request,
      fixedBlocks: 1,
      minTokens: 1024,
      sharedWithPrevious: 8,
      previousBreakpoints: [0, 7],
      stableBlocks: 5,
    });
    expect(marks).toEqual([0, 4, 7, 11]);
  });

  it('property: at most four marks, each on a cacheable block whose prefix reaches the minimum', () => {
    const arbitrary = fc.record({
      blocks: fc.array(fc.record({ tokens: fc.integer({ min: 0, max: 3000 }), cacheable: fc.boolean() }), {
        maxLength: 120,
      }),
      fixedBlocks: fc.integer({ min: 0, max: 10 }),
      minTokens: fc.constantFrom(512, 1024, 2048, 4096),
      shared: fc.option(fc.integer({ min: 0, max: 130 }), { nil: undefined }),
      previous: fc.array(fc.integer({ min: 0, max: 130 }), { maxLength: 4 }),
      written: fc.array(fc.integer({ min: -5, max: 130 }), { maxLength: 8 }),
      stable: fc.option(fc.integer({ min: 0, max: 130 }), { nil: undefined }),
      max: fc.integer({ min: 0, max: 6 }),
    });
    fc.assert(
      fc.property(arbitrary, (input) => {
        const marks = placeCacheBreakpoints({
          blocks: input.blocks,
          fixedBlocks: input.fixedBlocks,
          minTokens: input.minTokens,
          sharedWithPrevious: input.shared,
          previousBreakpoints: input.previous,
          writtenPositions: input.written,
          stableBlocks: input.stable,
          maxBreakpoints: input.max,
        });
        expect(marks.length).toBeLessThanOrEqual(Math.min(MAX_CACHE_BREAKPOINTS, input.max));
        expect(new Set(marks).size).toBe(marks.length);
        expect([...marks].sort((a, b) => a - b)).toEqual(marks);
        let reached = 0;
        const prefix = input.blocks.map((block) => (reached += block.tokens));
        for (const at of marks) {
          expect(input.blocks[at]?.cacheable).toBe(true);
          expect(prefix[at]).toBeGreaterThanOrEqual(input.minTokens);
        }
        // The end of the request is always marked when any block can be.
        const last = input.blocks.findLastIndex(
          (block, at) => block.cacheable && (prefix[at] ?? 0) >= input.minTokens,
        );
        if (last >= 0 && input.max > 0) expect(marks).toContain(last);
      }),
    );
  });
});

describe('minCacheableTokensFor', () => {
  it('knows the families the guide lists and gives unknown models the lowest minimum', () => {
    expect(minCacheableTokensFor('claude-opus-4-6')).toBe(4096);
    expect(minCacheableTokensFor('claude-haiku-4-5-20251001')).toBe(4096);
    expect(minCacheableTokensFor('claude-sonnet-4-6')).toBe(2048);
    expect(minCacheableTokensFor('claude-3-5-haiku-20241022')).toBe(2048);
    expect(minCacheableTokensFor('claude-sonnet-4-5')).toBe(1024);
    expect(minCacheableTokensFor('claude-opus-4-8')).toBe(1024);
    expect(minCacheableTokensFor('some-local-model')).toBe(DEFAULT_MIN_CACHEABLE_TOKENS);
    expect(minCacheableTokensFor(undefined)).toBe(DEFAULT_MIN_CACHEABLE_TOKENS);
  });
});
