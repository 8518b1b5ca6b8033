import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textFrom, WHITESPACE_PIECES } from '../testing/text-arbitraries.ts';
import {
  HOLDS_COLON_DIGIT,
  HOLDS_DIGIT,
  HOLDS_DOT_OR_SLASH,
  HOLDS_LETTER,
  scanTokenPieces,
} from './token-pieces.ts';

describe('scanTokenPieces', () => {
  /** The definition: split at runs of separators, keep the pieces of 4 to `max` code units. */
  const definition = (text: string, max: number) =>
    text.split(/[\s"'`()[\]{}<>,;=|]+/).filter((piece) => piece.length >= 4 && piece.length <= max);
  const holds = (piece: string) =>
    (/:\d/.test(piece) ? HOLDS_COLON_DIGIT : 0) |
    (/[./]/.test(piece) ? HOLDS_DOT_OR_SLASH : 0) |
    (/\d/.test(piece) ? HOLDS_DIGIT : 0) |
    (/[A-Za-z_]/.test(piece) ? HOLDS_LETTER : 0);
  const pieces = [
    ...WHITESPACE_PIECES,
    ...'"\'`()[]{}<>,;=|\v\f\u1680\u2000\u200a\u200b\u202f\u205f\u2029\u0085:./_-'.split(''),
    'src/app.py:41',
    'HAT300',
    'a',
    'abcd',
    'é',
    '٣',
    '😀',
    '\ud800',
    'x'.repeat(204),
    'y'.repeat(205),
  ];

  it('cuts as splitting at the separators does, and says what each piece holds', () => {
    fc.assert(
      fc.property(textFrom(pieces, 60), fc.constantFrom(4, 13, 208), (text, max) => {
        const scanned = scanTokenPieces(text, max);
        expect(scanned.pieces).toEqual(definition(text, max));
        expect(scanned.holds).toEqual(scanned.pieces.map(holds));
      }),
      { numRuns: 3_000 },
    );
  });
});
