import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textFrom, WHITESPACE_PIECES } from '../testing/text-arbitraries.ts';
import { itemKey } from './summary-sections.ts';

/** The definition `itemKey` must keep: lowercase, whitespace runs as one space, no trailing noise, trimmed. */
const reference = (item: string): string =>
  item
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.;:,!…]+$/, '')
    .trim();

const items = textFrom(
  [
    ...WHITESPACE_PIECES,
    ...['a', 'B', 'src/App.tsx', 'İ', 'ß', '.', '…', ';', ':', ',', '!', '?', '-', '(fixed)', 'Error: boom'],
  ],
  24,
);

describe('itemKey', () => {
  it('is the lowercase text with whitespace collapsed and trailing punctuation dropped', () => {
    expect(itemKey('  Fixed the  Parser\tbug ...  ')).toBe('fixed the parser bug');
    expect(itemKey('Ran `npm test`;')).toBe('ran `npm test`');
    expect(itemKey('what?')).toBe('what?');
    expect(itemKey(' . ; ')).toBe('');
  });

  it('equals its definition for any text', () => {
    fc.assert(
      fc.property(items, (item) => {
        expect(itemKey(item)).toBe(reference(item));
      }),
      { numRuns: 3_000 },
    );
  });
});
