import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../layers/normalize-tool-output/measure-text.ts';
import { countRunes } from './count-runes.ts';

// Any UTF-16 units, lone surrogates included, often next to each other so pairs form too.
const anyUnits = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff })), {
    maxLength: 60,
  })
  .map((units) => String.fromCharCode(...units));

describe('text measures', () => {
  it('counts runes as code points, a lone surrogate as one', () => {
    expect(countRunes('plain ascii')).toBe(11);
    expect(countRunes('emoji 🎉🎉')).toBe(8);
    expect(countRunes('lone \uD800 and \uDC00')).toBe(12);
    fc.assert(
      fc.property(anyUnits, (text) => {
        expect(countRunes(text)).toBe([...text].length);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it('counts UTF-8 bytes as the encoder writes them, a lone surrogate as U+FFFD', () => {
    expect(utf8Length('\uD800')).toBe(3);
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(anyUnits, (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 500, seed: 4 },
    );
  });
});
