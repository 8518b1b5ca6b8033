import fc from 'fast-check';

/** Whitespace as text brings it: spaces alone and doubled, tabs, line breaks, and the Unicode spaces `\s` matches. */
export const WHITESPACE_PIECES: readonly string[] = [
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
];

/** Texts made of `pieces` in any order, or any string at all: for checking a rewrite against its definition. */
export function textFrom(pieces: readonly string[], maxPieces = 30): fc.Arbitrary<string> {
  return fc.oneof(
    fc.array(fc.constantFrom(...pieces), { maxLength: maxPieces }).map((parts) => parts.join('')),
    fc.string(),
  );
}
