/**
 * Pieces of a text between separators: whitespace (`\s`) and ``"'`()[]{}<>,;=|``, the characters no
 * distinctive token spans (`distinctive-tokens.ts`). Tokens are looked for in each piece, so the cost stays
 * linear in the text whatever it holds (a pattern run over one long line retried from every position
 * would not).
 */

const ASCII_SEPARATOR = new Uint8Array(128);
for (const char of '\t\n\v\f\r "\'`()[]{}<>,;=|') ASCII_SEPARATOR[char.charCodeAt(0)] = 1;

/** The code units `\s` matches beyond ASCII, as regular expressions define it. */
function isWideSpace(code: number): boolean {
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** What a piece holds, found as it is scanned: a pattern that needs one of these skips pieces without it. */
export const HOLDS_COLON_DIGIT = 1;
export const HOLDS_DOT_OR_SLASH = 2;
/** An ASCII digit. */
export const HOLDS_DIGIT = 4;
/** An ASCII letter or an underscore. */
export const HOLDS_LETTER = 8;

export interface TokenPieces {
  pieces: string[];
  /** For each piece, the `HOLDS_` flags of what it holds. */
  holds: number[];
}

/** Pieces shorter than this hold no token. */
export const MIN_TOKEN_PIECE_CHARS = 4;

/**
 * The pieces of `text` between separators of 4 to `maxChars` code units, in order, with what each holds:
 * one pass over the code units, and only those pieces are cut out of the text (a tool result is mostly
 * pieces too short to hold a token). The same pieces as splitting at runs of separators and keeping
 * those lengths.
 */
export function scanTokenPieces(text: string, maxChars: number): TokenPieces {
  const pieces: string[] = [];
  const holds: number[] = [];
  const length = text.length;
  let start = 0;
  let flags = 0;
  let previous = -1;
  for (let index = 0; index <= length; index++) {
    const code = index < length ? text.charCodeAt(index) : 32;
    if (code < 128 ? ASCII_SEPARATOR[code] !== 1 : !isWideSpace(code)) {
      if (code >= 48 && code <= 57) flags |= previous === 58 ? HOLDS_DIGIT | HOLDS_COLON_DIGIT : HOLDS_DIGIT;
      else if (code === 46 || code === 47) flags |= HOLDS_DOT_OR_SLASH;
      else if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95)
        flags |= HOLDS_LETTER;
      previous = code;
      continue;
    }
    const size = index - start;
    if (size >= MIN_TOKEN_PIECE_CHARS && size <= maxChars) {
      pieces.push(text.slice(start, index));
      holds.push(flags);
    }
    start = index + 1;
    flags = 0;
    previous = -1;
  }
  return { pieces, holds };
}
