/**
 * o200k's pre-tokenizer (gpt-tokenizer's `O200K_TOKEN_SPLIT_REGEX`) by hand, for ASCII. The regex, with
 * its Unicode property classes, is most of the time an exact count takes (about 20 of 28 ms for 700 KB
 * of tool output); this scan finds the same pieces several times faster. It decides a piece only from
 * ASCII characters: where a character at or above U+0080 could change the piece (a letter that would
 * extend a word, a Unicode space or digit), it gives up and the regex takes that piece.
 *
 * The regex's alternatives, tried in order at each position (ASCII reading):
 * 1. an optional non-letter, non-digit, non-line-break character, then uppercase* lowercase+, then an
 *    optional contraction ('s 't 'm 'd 'll 've 're, either case);
 * 2. the same optional character, then uppercase+ lowercase*, then the optional contraction;
 * 3. one to three digits;
 * 4. an optional space, then one or more characters neither whitespace, letter nor digit, then any
 *    line breaks and slashes;
 * 5. whitespace ending with its last line break;
 * 6. whitespace not followed by a non-whitespace character (a run before one gives its last character up);
 * 7. whitespace.
 */

/** The piece starting at `start` cannot be decided from ASCII alone: the regex takes it. */
export const UNDECIDED = -1;

const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const SPACE = 8;
const BREAK = 16;
const OTHER = 32;
const END = 64;
const NON_ASCII = 128;
const LETTER = UPPER | LOWER;

/** Class of every ASCII unit; `\s` in ASCII is tab, line feed, vertical tab, form feed, return, space. */
const CLASS = new Uint8Array(128);
for (let unit = 0; unit < 128; unit++) {
  if (unit >= 0x41 && unit <= 0x5a) CLASS[unit] = UPPER;
  else if (unit >= 0x61 && unit <= 0x7a) CLASS[unit] = LOWER;
  else if (unit >= 0x30 && unit <= 0x39) CLASS[unit] = DIGIT;
  else if (unit === 0x0a || unit === 0x0d) CLASS[unit] = SPACE | BREAK;
  else if (unit === 0x09 || unit === 0x0b || unit === 0x0c || unit === 0x20) CLASS[unit] = SPACE;
  else CLASS[unit] = OTHER;
}

/**
 * 1 for the ASCII characters that may lead a word (alternatives 1 and 2): neither a line break, a letter
 * nor a digit. The counter that reads words in its own loop (`asciiWordLead` in `count-bpe-tokens.ts`) takes
 * it from here.
 */
export const O200K_WORD_LEAD = Uint8Array.from(CLASS, (at) => (at === OTHER || at === SPACE ? 1 : 0));

function classAt(text: string, index: number): number {
  if (index >= text.length) return END;
  const unit = text.charCodeAt(index);
  return unit < 0x80 ? (CLASS[unit] as number) : NON_ASCII;
}

/**
 * End of the word at `from`, a letter (alternatives 1 and 2), or UNDECIDED. In ASCII the two agree on
 * where a word ends: uppercase* lowercase+ takes the capitals and the small letters after them, and
 * where no small letter follows, uppercase+ lowercase* takes the same capitals. Then the contraction.
 */
function wordEnd(text: string, from: number): number {
  const length = text.length;
  let index = from;
  let unit = text.charCodeAt(index);
  while (unit >= 0x41 && unit <= 0x5a && ++index < length) unit = text.charCodeAt(index);
  while (unit >= 0x61 && unit <= 0x7a && ++index < length) unit = text.charCodeAt(index);
  if (index === length) return index;
  if (unit >= 0x80) return UNDECIDED;
  return unit === 0x27 ? contractionEnd(text, index) : index;
}

function contractionEnd(text: string, index: number): number {
  const first = text.charCodeAt(index + 1) | 0x20;
  if (first === 0x73 || first === 0x64 || first === 0x6d || first === 0x74) return index + 2; // s d m t
  const second = text.charCodeAt(index + 2) | 0x20;
  if (first === 0x6c && second === 0x6c) return index + 3; // ll
  if ((first === 0x76 || first === 0x72) && second === 0x65) return index + 3; // ve re
  return index;
}

/**
 * Where the piece o200k's pre-tokenizer starts at `start` ends (exclusive), or `UNDECIDED` when a
 * character at or above U+0080 could change it. `start` is below `text.length`.
 */
export function o200kAsciiPieceEnd(text: string, start: number): number {
  const unit = text.charCodeAt(start);
  if (unit >= 0x80) return UNDECIDED;
  const at = CLASS[unit] as number;
  // 1 and 2, the word starting here.
  if ((at & LETTER) !== 0) return wordEnd(text, start);
  // 1 and 2 after one leading character that is neither a line break, a letter nor a digit.
  if (O200K_WORD_LEAD[unit] === 1 && start + 1 < text.length) {
    const next = text.charCodeAt(start + 1);
    if (next >= 0x80) return UNDECIDED;
    if (((CLASS[next] as number) & LETTER) !== 0) return wordEnd(text, start + 1);
  }
  if (at === DIGIT) {
    let index = start + 1;
    while (index < start + 3 && classAt(text, index) === DIGIT) index++;
    return index < start + 3 && classAt(text, index) === NON_ASCII ? UNDECIDED : index;
  }
  // 4: an optional space, then a run of punctuation, then line breaks and slashes.
  const punctuationFrom = text.charCodeAt(start) === 0x20 ? start + 1 : start;
  const first = classAt(text, punctuationFrom);
  if (first === NON_ASCII) return UNDECIDED;
  if (first === OTHER) {
    let index = punctuationFrom + 1;
    let next = classAt(text, index);
    while (next === OTHER) next = classAt(text, ++index);
    if (next === NON_ASCII) return UNDECIDED;
    for (;;) {
      const unit = text.charCodeAt(index);
      if (unit !== 0x0a && unit !== 0x0d && unit !== 0x2f) return index;
      index++;
    }
  }
  // 5, 6 and 7: a run of whitespace.
  let index = start;
  let lastBreak = -1;
  let next = at;
  while ((next & SPACE) !== 0) {
    if ((next & BREAK) !== 0) lastBreak = index;
    next = classAt(text, ++index);
  }
  if (next === NON_ASCII) return UNDECIDED;
  if (lastBreak >= 0) return lastBreak + 1;
  if (next === END) return index;
  return index - start >= 2 ? index - 1 : index;
}
