import { codeUnitsOf } from './code-units.ts';
import { COMMON_WORDS } from './common-words.ts';
import { countDenseBytesOfCodes } from './token-floor.ts';

/**
 * Token units: what a text would cost under a generic modern BPE tokenizer, estimated without one. The
 * calibrated counter learns a single tokens-per-unit multiplier per model on top of it.
 *
 * Why not characters: a chars-per-token ratio depends on what the text is. Prose runs ~4.5 characters per
 * token, code and tool output ~3.5, JSON with ids ~3, so a ratio learned on a session's first requests
 * (system prompt, a question) is 20–30% off for the tool output that follows. Tokenizers are not
 * character-linear; they are close to piece-linear: modern BPE tokenizers (o200k, cl100k, Llama 3, Qwen
 * and their kin) first cut text with a regular expression into pieces (a word with the space or
 * punctuation before it, a group of up to three digits, a run of punctuation, a run of whitespace), then
 * merge bytes within each piece. A piece is one token unless it is a word the vocabulary does not hold
 * whole. So the unit counts pieces the way o200k's pattern cuts them and weighs only words:
 *
 *   - whitespace run, newline run, digit group (≤ 3):                             1
 *   - punctuation run: 1; past its third character, ⅜ per character (⅝ past the twelfth), a character
 *     repeating the one before ½, or 1/16 for separators (`-=_#*.~…`, non-ASCII symbols); a further
 *     non-ASCII symbol 1, a control character 1, an emoji or other astral symbol 2
 *   - a common word (see `COMMON_WORDS`), any length, lowercase or Capitalized:   1
 *   - an ALL-CAPS word (acronym, constant):                                       1, +¼ per letter past 3
 *                                                                                 (+½ glued to punct.)
 *   - any other word after a space (prose):                                       1, +⅛ per letter past 12
 *   - any other word not after a space (identifier part, hash or base64 chunk):   1 + ⅛ per letter
 *                                                                                 (+½ glued to punctuation)
 *   - CJK (Han, kana, Hangul):                                                    1¼ per character
 *   - other non-ASCII words (accented Latin, Cyrillic, Greek…):                   1 + ¼ per letter
 *   - a long run of ASCII letters (past 16 capitals, past 24 letters otherwise):  9/16 per letter past it
 *
 * The weights are round numbers read off held-out text (npm docs and sources, the Python standard
 * library, C headers, man pages, logs, shell output), checked against o200k and cl100k, never against the
 * corpus the accuracy benchmark measures: on that text, tokens per unit stays within a few percent from
 * prose to code to JSON, where tokens per character moves by ±25%. Every weight is a multiple of 1/16, so
 * sums are exact in floating point and running totals can add and subtract them in any order.
 *
 * Runs are weighed by what tokenizers do with text no vocabulary holds: o200k, cl100k and Claude's
 * published tokenizer cover 1.75–2 letters per token in a random or one-letter run of letters (`QQQQ…`:
 * 2; `aaaa…`, which vocabularies hold in eights, is the rare exception), 1.5 characters per token in random
 * punctuation, one per control character, and 1–3 tokens per emoji. A word past the long-run length is
 * no word any language writes (o200k: 0.25 tokens per letter on real 20-letter identifiers), so its
 * letters are taken as such a run.
 *
 * Limits: text unlike the held-out kinds drifts. Base64 and random alphanumerics cost ~20–25% more than
 * counted; random letters of other scripts (Cyrillic, CJK, astral) two to three times more, which only a
 * vocabulary could tell from real words: no count of them goes below the byte floor of `token-floor.ts`,
 * and after an overflow the provider's own figures take over (`guard-retry.ts`). Tokenizers that cut
 * digits and whitespace differently, like GPT-3's p50k, spread more between prose and code; the
 * multiplier absorbs a session's average, not its mix.
 *
 * Speed: one native copy of the text's UTF-16 code units into a reused buffer, then one pass over them
 * with a table lookup per ASCII unit; the common-word test hashes letters as they are scanned.
 */
export function countTokenUnits(text: string): number {
  return unitsOfCodes(codeUnitsOf(text));
}

/** A text's token units and its dense bytes (`token-floor.ts`), from one copy of its code units. */
export function measureTokenUnits(text: string): { units: number; denseBytes: number } {
  const codes = codeUnitsOf(text);
  return { units: unitsOfCodes(codes), denseBytes: countDenseBytesOfCodes(codes) };
}

function unitsOfCodes(codes: Uint16Array): number {
  const n = codes.length;
  let units = 0;
  let i = 0;
  while (i < n) {
    units += pieceAt(codes, i);
    i = scanEnd;
  }
  return units;
}

/**
 * The units of `codes` and marks on the way: piece boundaries at least `spacing` code units apart, each
 * with the units of the pieces before it (`positions[k]`, `units[k]`). The scan's pieces depend only on
 * what follows a boundary (at most 3 code units past a piece's end decide where it ends), so from a
 * boundary on, any text that goes on with the same code units is cut into the same pieces.
 */
export function unitsWithMarks(codes: Uint16Array, spacing: number): UnitMarks {
  const n = codes.length;
  const positions: number[] = [];
  const before: number[] = [];
  let units = 0;
  let i = 0;
  let next = spacing;
  while (i < n) {
    if (i >= next) {
      positions.push(i);
      before.push(units);
      next = i + spacing;
    }
    units += pieceAt(codes, i);
    i = scanEnd;
  }
  return { total: units, positions, units: before };
}

export interface UnitMarks {
  total: number;
  positions: number[];
  units: number[];
}

/**
 * Scans `codes` from a piece boundary until a piece starts at one of `stops` (ascending positions), and
 * says which one (`stop`) and the units before it; `stop` is -1 when no piece started at any of them.
 */
export function unitsUntilStop(
  codes: Uint16Array,
  stops: readonly number[],
): { units: number; stop: number } {
  const n = codes.length;
  let units = 0;
  let i = 0;
  let k = 0;
  while (i < n && k < stops.length) {
    while (k < stops.length && (stops[k] as number) < i) k++;
    if (k < stops.length && stops[k] === i) return { units, stop: k };
    units += pieceAt(codes, i);
    i = scanEnd;
  }
  return { units, stop: -1 };
}

/** The cost of the piece that starts at `i`, a piece boundary; where it ends is left in `scanEnd`. */
function pieceAt(codes: Uint16Array, i: number): number {
  const n = codes.length;
  const c = codes[i] as number;
  // The commonest pieces of prose and code, a word alone or after one space, go to the word scanner
  // without the flags below (one space before a letter is a whitespace run that adds nothing to it).
  if (c >= 97 && c <= 122) return scanWord(codes, i, NO_PREFIX);
  if (c === 32 && i + 1 < n) {
    const next = codes[i + 1] as number;
    if ((next >= 97 && next <= 122) || (next >= 65 && next <= 90))
      return scanWord(codes, i + 1, SPACE_PREFIX);
  }
  const f = c < 128 ? (ASCII_FLAGS[c] ?? 0) : nonAsciiFlags(codes, i, c);
  if (f & LETTER) return scanWord(codes, i, NO_PREFIX);
  if (f & DIGIT) {
    let digits = 0;
    let j = i;
    while (j < n) {
      const g = flagsAt(codes, j);
      if (!(g & DIGIT)) break;
      digits++;
      j += g & WIDE ? 2 : 1;
    }
    scanEnd = j;
    return Math.ceil(digits / 3);
  }
  if (f & SPACE) return scanWhitespace(codes, i);
  const width = f & WIDE ? 2 : 1;
  if (i + width < n && flagsAt(codes, i + width) & LETTER)
    return scanWord(codes, i + width, PUNCTUATION_PREFIX);
  return scanPunctuation(codes, i);
}

/** Weights, in units; all multiples of 1/16 (see `countTokenUnits`). */
export const TOKEN_UNIT_WEIGHTS = {
  /** Per letter of a word not after a space and not common. */
  identifierLetter: 1 / 8,
  /** Letters a word after a space may have before it starts costing more. */
  proseWordLetters: 12,
  /** Per letter past `proseWordLetters`. */
  proseLongLetter: 1 / 8,
  /** Punctuation glued to the front of an uncommon or all-caps word usually stays a token of its own. */
  gluedPunctuation: 1 / 2,
  /** `'s`, `'t`, `'re`… : one token with the word in o200k, a second one in cl100k. */
  contraction: 1 / 2,
  cjkCharacter: 5 / 4,
  otherScriptLetter: 1 / 4,
  /** Capitals an ALL-CAPS word may have before each costs more (`JSON`: one token; `WARRANTY`: two). */
  capsFreeLetters: 3,
  /** Per capital past `capsFreeLetters`. */
  capsLetter: 1 / 4,
  /** Capitals, and letters of any other word, past which the word is a run no vocabulary holds. */
  capsRunLetters: 16,
  runLetters: 24,
  /** Per letter of such a run, past its length: tokenizers cover 1.75–2 letters per token there. */
  runLetter: 9 / 16,
  /** Characters of a punctuation run its one unit covers (`));`, `-->`, `?>`). */
  punctuationFreeChars: 3,
  /** Per further character that differs from the one before it, up to `punctuationShortChars`… */
  punctuationChar: 3 / 8,
  punctuationShortChars: 12,
  /** …and past it (random punctuation: ~0.66 tokens per character). */
  punctuationLongChar: 5 / 8,
  /** A character repeating the one before it: separators merge by the dozen, others by pairs. */
  separatorRepeat: 1 / 16,
  punctuationRepeat: 1 / 2,
  /** A control character (C0, DEL, C1): no vocabulary merges them. */
  controlCharacter: 1,
  /** A non-ASCII symbol after another character of the run (`…”`, `→•`): two or three bytes, rarely merged. */
  otherSymbol: 1,
  /** An emoji or other astral symbol: 1–3 tokens each. */
  astralSymbol: 2,
} as const;

const LETTER = 1;
/** In o200k's first letter class (`\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}`). */
const UPPERISH = 2;
/** In o200k's second letter class (`\p{Ll}\p{Lm}\p{Lo}\p{M}`); caseless letters are in both. */
const LOWERISH = 4;
const NON_ASCII = 8;
const CJK = 16;
const DIGIT = 32;
/** Whitespace (`\s`); newlines also carry NEWLINE. */
const SPACE = 64;
const NEWLINE = 128;
/** The code point takes two UTF-16 units (a surrogate pair). */
const WIDE = 256;
/** A combining mark (`\p{M}`): a letter inside a word, but punctuation inside a punctuation run. */
const MARK = 512;
/** Flags computed (BMP cache only). */
const KNOWN = 1024;

const NO_PREFIX = 0;
const SPACE_PREFIX = 1;
const PUNCTUATION_PREFIX = 2;

const ASCII_FLAGS = new Uint16Array(128);
for (let c = 0; c < 128; c++) {
  let f = 0;
  if (c >= 97 && c <= 122) f = LETTER | LOWERISH;
  else if (c >= 65 && c <= 90) f = LETTER | UPPERISH;
  else if (c >= 48 && c <= 57) f = DIGIT;
  else if (c === 10 || c === 13) f = SPACE | NEWLINE;
  else if (c === 32 || (c >= 9 && c <= 12)) f = SPACE;
  ASCII_FLAGS[c] = f;
}

/** Flags of BMP code units, filled on first sight: a text uses few distinct non-ASCII characters. */
const BMP_FLAGS = new Uint16Array(0x10000);
const ASTRAL_FLAGS = new Map<number, number>();

const IS_LETTER = /^[\p{L}\p{M}]$/u;
const IS_MARK = /^\p{M}$/u;
const IS_UPPERISH = /^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$/u;
const IS_LOWERISH = /^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$/u;
const IS_CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const IS_DIGIT = /^\p{N}$/u;
const IS_SPACE = /^\s$/u;

function classify(char: string): number {
  if (IS_LETTER.test(char)) {
    let f = LETTER | NON_ASCII;
    if (IS_UPPERISH.test(char)) f |= UPPERISH;
    if (IS_LOWERISH.test(char)) f |= LOWERISH;
    if (IS_CJK.test(char)) f |= CJK;
    if (IS_MARK.test(char)) f |= MARK;
    return f;
  }
  if (IS_DIGIT.test(char)) return DIGIT | NON_ASCII;
  if (IS_SPACE.test(char)) return SPACE | NON_ASCII;
  return NON_ASCII;
}

function nonAsciiFlags(codes: Uint16Array, i: number, c: number): number {
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < codes.length) {
    const next = codes[i + 1] as number;
    if (next >= 0xdc00 && next <= 0xdfff) {
      const codePoint = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
      let f = ASTRAL_FLAGS.get(codePoint);
      if (f === undefined) {
        f = classify(String.fromCodePoint(codePoint)) | WIDE;
        ASTRAL_FLAGS.set(codePoint, f);
      }
      return f;
    }
  }
  const cached = BMP_FLAGS[c] ?? 0;
  if (cached & KNOWN) return cached & ~KNOWN;
  // A lone surrogate is not a character: punctuation, as the tokenizer's byte fallback would treat it.
  const f = c >= 0xd800 && c <= 0xdfff ? NON_ASCII : classify(String.fromCharCode(c));
  BMP_FLAGS[c] = f | KNOWN;
  return f;
}

function flagsAt(codes: Uint16Array, i: number): number {
  const c = codes[i] as number;
  return c < 128 ? (ASCII_FLAGS[c] ?? 0) : nonAsciiFlags(codes, i, c);
}

/** Where the last scan stopped: the scanners return a cost and leave their end here (no allocation). */
let scanEnd = 0;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const COMMON_WORD_SLOTS = 8192;
const commonWordTable = new Int32Array(COMMON_WORD_SLOTS);
/** No common word is longer; longer words skip the lookup. */
let longestCommonWord = 0;

/** Hash of a lowercase ASCII word, mixed with its length; never 0 (0 marks an empty slot). */
function finishHash(hash: number, length: number): number {
  return Math.imul(hash ^ length, FNV_PRIME) | 1;
}

for (const word of COMMON_WORDS.split(/\s+/)) {
  if (word.length === 0) continue;
  let hash = FNV_OFFSET;
  for (let k = 0; k < word.length; k++) hash = Math.imul(hash ^ word.charCodeAt(k), FNV_PRIME);
  const key = finishHash(hash, word.length);
  let slot = key & (COMMON_WORD_SLOTS - 1);
  while (commonWordTable[slot] !== 0 && commonWordTable[slot] !== key)
    slot = (slot + 1) & (COMMON_WORD_SLOTS - 1);
  commonWordTable[slot] = key;
  longestCommonWord = Math.max(longestCommonWord, word.length);
}

/**
 * Membership by 32-bit hash: a word outside the list matches by collision with odds of ~2,000 / 2³², and
 * then costs one unit instead of one and a bit.
 */
function isCommonWord(hash: number, length: number): boolean {
  const key = finishHash(hash, length);
  let slot = key & (COMMON_WORD_SLOTS - 1);
  for (;;) {
    const stored = commonWordTable[slot];
    if (stored === key) return true;
    if (stored === 0 || stored === undefined) return false;
    slot = (slot + 1) & (COMMON_WORD_SLOTS - 1);
  }
}

/**
 * A word piece from `start` (its first letter): o200k's `[upper]*[lower]+` or `[upper]+[lower]*` (caseless
 * letters in both), then an optional contraction; `prefix` is what came glued before it.
 */
function scanWord(codes: Uint16Array, start: number, prefix: number): number {
  const n = codes.length;
  // A lowercase or Capitalized ASCII word, the commonest kind, is scanned by a loop of its own.
  const first = codes[start] as number;
  if (first >= 97 && first <= 122) {
    const cost = asciiWord(codes, start, 0, FNV_OFFSET, prefix);
    if (cost > 0) return cost;
  } else if (first >= 65 && first <= 90 && start + 1 < n) {
    const second = codes[start + 1] as number;
    if (second >= 97 && second <= 122) {
      const cost = asciiWord(codes, start + 1, 1, Math.imul(FNV_OFFSET ^ (first | 0x20), FNV_PRIME), prefix);
      if (cost > 0) return cost;
    }
  }
  let j = start;
  let upper = 0;
  let lower = 0;
  let nonAscii = 0;
  let cjk = 0;
  let hash = FNV_OFFSET;
  // Where the last caseless letter of the upper run ended, with the counts there (see below).
  let caselessEnd = -1;
  let caselessUpper = 0;
  let caselessNonAscii = 0;
  let caselessCjk = 0;
  while (j < n) {
    const c = codes[j] as number;
    // Plain ASCII letters first, without the table: the loop stays small however many scripts the
    // process has met (each one met grows the general path below).
    if (c >= 65 && c <= 90) {
      upper++;
      hash = Math.imul(hash ^ (c | 0x20), FNV_PRIME);
      j++;
      continue;
    }
    const f = c < 128 ? (ASCII_FLAGS[c] ?? 0) : nonAsciiFlags(codes, j, c);
    if (!(f & UPPERISH)) break;
    upper++;
    if (f & NON_ASCII) {
      nonAscii++;
      if (f & CJK) cjk++;
    } else hash = Math.imul(hash ^ (c | 0x20), FNV_PRIME);
    j += f & WIDE ? 2 : 1;
    if (f & LOWERISH) {
      caselessEnd = j;
      caselessUpper = upper;
      caselessNonAscii = nonAscii;
      caselessCjk = cjk;
    }
  }
  // No lowercase follows and the run ends in uppercase after a caseless letter (`中文AB `): the pattern's
  // first branch backtracks to end the piece on that caseless letter, leaving `AB` to the next piece.
  const nextCode = j < n ? (codes[j] as number) : -1;
  const nextFlags =
    nextCode < 0 ? 0 : nextCode < 128 ? (ASCII_FLAGS[nextCode] ?? 0) : nonAsciiFlags(codes, j, nextCode);
  if (!(nextFlags & LOWERISH) && caselessEnd > start && caselessEnd < j) {
    scanEnd = caselessEnd;
    return wordCost(caselessUpper, 0, caselessNonAscii, caselessCjk, hash, prefix);
  }
  while (j < n) {
    const c = codes[j] as number;
    if (c >= 97 && c <= 122) {
      lower++;
      hash = Math.imul(hash ^ c, FNV_PRIME);
      j++;
      continue;
    }
    const f = c < 128 ? (ASCII_FLAGS[c] ?? 0) : nonAsciiFlags(codes, j, c);
    if (!(f & LOWERISH)) break;
    lower++;
    if (f & NON_ASCII) {
      nonAscii++;
      if (f & CJK) cjk++;
    } else hash = Math.imul(hash ^ c, FNV_PRIME);
    j += f & WIDE ? 2 : 1;
  }
  let cost = wordCost(upper, lower, nonAscii, cjk, hash, prefix);
  if ((codes[j] as number) === 39) {
    const length = contractionLength(codes, j + 1);
    if (length > 0) {
      j += 1 + length;
      cost += TOKEN_UNIT_WEIGHTS.contraction;
    }
  }
  scanEnd = j;
  return cost;
}

/**
 * `scanWord` for a word whose lowercase ASCII letters start at `from`, after `upper` capitals hashed into
 * `hash`; 0 when what follows may belong to the word (a non-ASCII letter or mark, an apostrophe before a
 * contraction) and the general scan must decide.
 */
function asciiWord(codes: Uint16Array, from: number, upper: number, hash: number, prefix: number): number {
  const n = codes.length;
  let j = from;
  let h = hash;
  while (j < n) {
    const c = codes[j] as number;
    if (c < 97 || c > 122) {
      if (c >= 128 || c === 39) return 0;
      break;
    }
    h = Math.imul(h ^ c, FNV_PRIME);
    j++;
  }
  scanEnd = j;
  return wordCost(upper, j - from, 0, 0, h, prefix);
}

function wordCost(
  upper: number,
  lower: number,
  nonAscii: number,
  cjk: number,
  hash: number,
  prefix: number,
): number {
  const letters = upper + lower;
  const w = TOKEN_UNIT_WEIGHTS;
  if (nonAscii > 0) {
    if (cjk > 0) return Math.max(1, cjk * w.cjkCharacter + (letters - cjk) * w.otherScriptLetter);
    return 1 + letters * w.otherScriptLetter;
  }
  const glued = prefix === PUNCTUATION_PREFIX ? w.gluedPunctuation : 0;
  if (lower === 0 && upper >= 2) {
    const capitals = Math.min(upper, w.capsRunLetters) - w.capsFreeLetters;
    return 1 + glued + (capitals > 0 ? capitals * w.capsLetter : 0) + runCost(upper, w.capsRunLetters);
  }
  if (upper <= 1 && letters <= longestCommonWord && isCommonWord(hash, letters)) return 1;
  const short = Math.min(letters, w.runLetters);
  if (prefix === SPACE_PREFIX) {
    const prose = short > w.proseWordLetters ? 1 + (short - w.proseWordLetters) * w.proseLongLetter : 1;
    return prose + runCost(letters, w.runLetters);
  }
  return 1 + short * w.identifierLetter + glued + runCost(letters, w.runLetters);
}

/** What the letters of a word past `runLength` add: each is weighed as a run no vocabulary holds. */
function runCost(letters: number, runLength: number): number {
  return letters > runLength ? (letters - runLength) * TOKEN_UNIT_WEIGHTS.runLetter : 0;
}

/** Letters of `'s 't 'd 'm 're 've 'll` (any case) at `at`, else 0. */
function contractionLength(codes: Uint16Array, at: number): number {
  const a = (codes[at] as number) | 0x20;
  if (a === 115 || a === 116 || a === 100 || a === 109) return 1;
  const b = (codes[at + 1] as number) | 0x20;
  if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108)) return 2;
  return 0;
}

/**
 * A whitespace run from `start`, cut as o200k cuts it: everything up to its last newline is one piece;
 * after that, the last space joins the word or punctuation that follows, the rest is one piece.
 */
function scanWhitespace(codes: Uint16Array, start: number): number {
  const n = codes.length;
  let j = start;
  let lastNewline = -1;
  while (j < n) {
    const f = flagsAt(codes, j);
    if (!(f & SPACE)) break;
    if (f & NEWLINE) lastNewline = j;
    j++;
  }
  let units = 0;
  let from = start;
  if (lastNewline >= 0) {
    units++;
    from = lastNewline + 1;
  }
  scanEnd = j;
  if (from === j) return units;
  const before = j - from >= 2 ? 1 : 0;
  if (j === n) return units + 1;
  const next = flagsAt(codes, j);
  if (next & LETTER) return units + before + scanWord(codes, j, SPACE_PREFIX);
  if (!(next & DIGIT) && (codes[j - 1] as number) === 32) return units + before + scanPunctuation(codes, j);
  // Before a digit (or after a tab before punctuation) the last whitespace stands alone.
  return units + before + 1;
}

/**
 * A punctuation run from `start` and the newlines or slashes right after it (`?[^\s\p{L}\p{N}]+[\r\n/]*`):
 * one unit for its first few characters, then a weight per character (see `TOKEN_UNIT_WEIGHTS`): short
 * runs (`));`, `-->`) are one token, separator lines a few, random punctuation two characters a token.
 */
function scanPunctuation(codes: Uint16Array, start: number): number {
  const n = codes.length;
  const w = PUNCTUATION_SIXTEENTHS;
  let j = start;
  let chars = 0;
  // In sixteenths of a unit: an integer all along, so optimized code never meets a fraction it did not
  // expect (a cost that turned fractional mid-run sent V8's Maglev tier into a loop of deoptimizations).
  let cost = 0;
  let previous = -1;
  while (j < n) {
    const c = codes[j] as number;
    const f = c < 128 ? (ASCII_FLAGS[c] ?? 0) : nonAsciiFlags(codes, j, c);
    if (f & (LETTER | DIGIT | SPACE) && !(f & MARK)) break;
    if (f & WIDE) {
      cost += w.astralSymbol;
      j += 2;
    } else {
      if (c < 32 || (c >= 127 && c < 160)) cost += w.controlCharacter;
      else if (chars === 0) cost += SIXTEENTHS;
      else if (c === previous) {
        if (chars >= TOKEN_UNIT_WEIGHTS.punctuationFreeChars)
          cost += c >= 128 || SEPARATOR[c] === 1 ? w.separatorRepeat : w.punctuationRepeat;
      } else if (c >= 128) cost += w.otherSymbol;
      else if (chars >= TOKEN_UNIT_WEIGHTS.punctuationFreeChars)
        cost += chars < TOKEN_UNIT_WEIGHTS.punctuationShortChars ? w.punctuationChar : w.punctuationLongChar;
      previous = c;
      j++;
    }
    chars++;
  }
  while (j < n) {
    const c = codes[j] as number;
    if (c !== 10 && c !== 13 && c !== 47) break;
    j++;
  }
  scanEnd = j;
  return Math.max(SIXTEENTHS, cost) / SIXTEENTHS;
}

/** Every weight is a multiple of 1/16 (see `countTokenUnits`). */
const SIXTEENTHS = 16;
/** The punctuation weights of `TOKEN_UNIT_WEIGHTS`, in sixteenths of a unit. */
const PUNCTUATION_SIXTEENTHS = {
  astralSymbol: TOKEN_UNIT_WEIGHTS.astralSymbol * SIXTEENTHS,
  controlCharacter: TOKEN_UNIT_WEIGHTS.controlCharacter * SIXTEENTHS,
  separatorRepeat: TOKEN_UNIT_WEIGHTS.separatorRepeat * SIXTEENTHS,
  punctuationRepeat: TOKEN_UNIT_WEIGHTS.punctuationRepeat * SIXTEENTHS,
  otherSymbol: TOKEN_UNIT_WEIGHTS.otherSymbol * SIXTEENTHS,
  punctuationChar: TOKEN_UNIT_WEIGHTS.punctuationChar * SIXTEENTHS,
  punctuationLongChar: TOKEN_UNIT_WEIGHTS.punctuationLongChar * SIXTEENTHS,
};

/** ASCII punctuation whose runs every measured vocabulary merges by the dozen (`----`, `====`, `....`). */
const SEPARATOR = new Uint8Array(128);
for (const char of '!#%*+-./:=_~') SEPARATOR[char.charCodeAt(0)] = 1;
