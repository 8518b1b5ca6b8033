import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStoredTokenCount, storedTokenCountSchema } from './stored-token-count.ts';

const figure = fc.oneof(
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    Number.MAX_VALUE,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
  fc.constantFrom('1', null, undefined, true, [], {}),
);
const breakdown = fc.record(
  {
    text: figure,
    reasoning: figure,
    toolCalls: figure,
    toolResults: figure,
    media: figure,
    overhead: figure,
    total: figure,
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const candidate = fc.oneof(
  fc.record(
    { key: fc.oneof(fc.string(), fc.anything()), breakdown: fc.oneof(breakdown, fc.anything()) },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

describe('isStoredTokenCount', () => {
  it('gives the schema’s answer for any value', () => {
    fc.assert(
      fc.property(candidate, (value) => {
        expect(isStoredTokenCount(value)).toBe(storedTokenCountSchema.safeParse(value).success);
      }),
      { numRuns: 5_000 },
    );
  });

  it('takes a count as the engine writes it, and turns down each way of breaking it', () => {
    const valid = {
      key: 'o200k_base@',
      breakdown: {
        text: 3,
        reasoning: 0,
        toolCalls: 0,
        toolResults: 12.5,
        media: 0,
        overhead: 4,
        total: 19.5,
      },
    };
    expect(isStoredTokenCount(valid)).toBe(true);
    expect(isStoredTokenCount({ ...valid, key: '' })).toBe(false);
    expect(isStoredTokenCount({ ...valid, breakdown: [] })).toBe(false);
    expect(isStoredTokenCount({ ...valid, breakdown: { ...valid.breakdown, total: -1 } })).toBe(false);
    expect(isStoredTokenCount({ ...valid, breakdown: { ...valid.breakdown, media: Number.NaN } })).toBe(
      false,
    );
    const { overhead: _overhead, ...missing } = valid.breakdown;
    expect(isStoredTokenCount({ ...valid, breakdown: missing })).toBe(false);
    expect(isStoredTokenCount([valid])).toBe(false);
    // An array is no record, even one carrying the fields.
    expect(isStoredTokenCount(Object.assign([], valid))).toBe(false);
    expect(isStoredTokenCount({ ...valid, breakdown: Object.assign([], valid.breakdown) })).toBe(false);
    expect(isStoredTokenCount(null)).toBe(false);
  });
});
