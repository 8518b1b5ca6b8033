import { describe, expect, it } from 'vitest';
import { firstSnipLimit, SNIP_MIN_LIMIT } from './fit-proactively.ts';

describe('firstSnipLimit', () => {
  it('starts where halving starts when clipping at that limit could be enough', () => {
    // Clipped to 1,000, each 3,000-token result keeps at least 500: 3 × 500 + 200 fits 2,000.
    expect(firstSnipLimit([3_000, 3_000, 3_000, 200], 2_000, 1_000)).toBe(1_000);
  });

  it('passes over the limits at which the entries stay over even if every clipped one kept only half', () => {
    // Forty 640-token results in a 3,000-token budget: at 320 they keep at least 160 each (6,400),
    // at 160 at least 80 (3,200), at 80 at least 40 (1,600): halving starts at 80.
    const entries = Array.from({ length: 40 }, () => 640);
    expect(firstSnipLimit(entries, 3_000, 2_560)).toBe(80);
  });

  it('never goes below the smallest limit', () => {
    expect(firstSnipLimit([10_000, 10_000], 10, 4_096)).toBeGreaterThanOrEqual(SNIP_MIN_LIMIT);
  });
});
