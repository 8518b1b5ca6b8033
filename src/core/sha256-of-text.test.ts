import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256OfText } from './sha256-of-text.ts';

const whole = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const SLICE = 1 << 20;

describe('sha256OfText', () => {
  it('equals hashing the whole text, surrogate pairs and lone surrogates across slice boundaries included', () => {
    const around = fc.constantFrom('a', 'é', '🎉', '\ud800', '\udc00', '的', '\n');
    fc.assert(
      fc.property(fc.integer({ min: -3, max: 3 }), fc.array(around, { maxLength: 6 }), (shift, tail) => {
        const text = 'x'.repeat(SLICE - 3 + shift) + tail.join('') + '🎉'.repeat(3);
        expect(sha256OfText(text)).toBe(whole(text));
      }),
      { numRuns: 60 },
    );
  });

  it('equals hashing the whole text when small', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(sha256OfText(text)).toBe(whole(text));
      }),
    );
  });
});
