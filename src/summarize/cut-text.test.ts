import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textFrom, WHITESPACE_PIECES } from '../testing/text-arbitraries.ts';
import { oneLine } from './cut-text.ts';

const texts = textFrom([...WHITESPACE_PIECES, 'word', 'é', '.']);

describe('oneLine', () => {
  it('puts a text on one line with single spaces', () => {
    expect(oneLine('  first line\n\n  second\tline  ')).toBe('first line second line');
    expect(oneLine('already one line')).toBe('already one line');
  });

  it('equals collapsing every whitespace run to one space, then trimming, for any text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(oneLine(text)).toBe(text.replace(/\s+/g, ' ').trim());
      }),
      { numRuns: 3_000 },
    );
  });
});
