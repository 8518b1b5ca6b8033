import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  REMEMBERED_UNITS_MAX_CHARS,
  REMEMBERED_UNITS_MIN_CHARS,
  rememberedTokenUnits,
} from './remembered-token-units.ts';
import { countTokenUnits } from './token-units.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const PIECES = ['word ', 'Identifier', '  ', '\n', '{"k":1}', '12345', '日本語', '🙂', '-->', 'x'];

describe('rememberedTokenUnits', () => {
  it('counts what countTokenUnits counts, asked once or again, short or long', () => {
    const text = fc
      .array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 1_200 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (texts) => {
        for (const sample of [...texts, ...texts])
          expect(rememberedTokenUnits(sample)).toBe(countTokenUnits(sample));
      }),
      { numRuns: 60 },
    );
  });

  it('tells apart long texts of the same length that differ in one character', () => {
    // Past 16,383 characters V8 hashes a string by its length: such texts share a bucket.
    const length = 40_000;
    const words = 'lorem '.repeat(length / 6);
    const other = `${words.slice(0, 20_000)}{}{}{}${words.slice(20_006)}`;
    expect(words.length).toBe(other.length);
    expect(rememberedTokenUnits(words)).toBe(countTokenUnits(words));
    expect(rememberedTokenUnits(other)).toBe(countTokenUnits(other));
    expect(rememberedTokenUnits(other)).not.toBe(rememberedTokenUnits(words));
  });

  it('holds at most its bound of characters, and copies, not the strings they were cut from', () => {
    expect(REMEMBERED_UNITS_MIN_CHARS).toBeLessThan(100_000);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let sum = 0;
    for (let index = 0; index < 60; index++) {
      // Each slice is new text (its index in front), cut from a 2.1 MB string.
      const parent = `${index}:${'ab '.repeat(700_000)}`;
      sum += rememberedTokenUnits(parent.slice(0, 300_000));
    }
    collectGarbage();
    const retained = process.memoryUsage().heapUsed - before;
    expect(sum).toBeGreaterThan(0);
    // 60 parents are 126 MB and the 60 slices 18 MB; the bound is 2 M one-byte characters.
    expect(retained).toBeLessThan(REMEMBERED_UNITS_MAX_CHARS + 6_000_000);
  });
});
