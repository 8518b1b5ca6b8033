import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine } from './cut-text.ts';

const pieces = fc.constantFrom(
  'word',
  'é',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  ' \n ',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  '.',
);

describe('oneLine', () => {
  it('puts a text on one line with single spaces', () => {
    expect(oneLine('  first line\n\n  second\tline  ')).toBe('first line second line');
    expect(oneLine('already one line')).toBe('already one line');
  });

  it('equals collapsing every whitespace run to one space, then trimming, for any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join('')),
          fc.string(),
        ),
        (text) => {
          expect(oneLine(text)).toBe(text.replace(/\s+/g, ' ').trim());
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
