import { type RankTable, utf8ByteString } from './bpe-rank-table.ts';
import {
  countAroundRun,
  countRepeatedRun,
  RUN_BLOCK_REPEATS,
  RUN_BLOCK_TRIES,
} from './count-repeated-run.ts';
import { countByHeap, countByScan, SCAN_MERGE_MAX_BYTES } from './merge-byte-pairs.ts';
import { ownCopy } from './own-copy.ts';

/**
 * Counts the tokens of a text the way gpt-tokenizer's `countTokens` does with special tokens treated as
 * plain text — split with the encoding's own pre-tokenizer regex, then each piece is one token when it
 * is one, else byte-pair merged — but in time linear in the text (up to a log factor) whatever its
 * shape. Equality with gpt-tokenizer is what `count-bpe-tokens.test.ts` checks.
 *
 * A single piece over `MAX_EXACT_PIECE_BYTES` is not merged whole (the heap costs 24 to 32 bytes of
 * memory per byte, see `merge-byte-pairs.ts`): one code point repeated is counted exactly by blocks (see
 * `count-repeated-run.ts`), and so is a piece made of a long run of one code point with text before or
 * after it (base64 of a mostly empty buffer: `AAAA…AAAQ`), the text merged with the run's first or last
 * block, when that text is itself within the limit.
 *
 * Two shapes get a proven upper bound instead of the exact count, the piece's UTF-8 bytes (every token
 * covers at least one byte, so no count can exceed it):
 * - a single piece over `MAX_EXACT_PIECE_BYTES` that is neither of those (megabytes of letters with no
 *   digit, space or punctuation, and no long run of one letter): no realistic output;
 * - the rest of a text after the regex engine gives up (V8 throws a RangeError on single matches of
 *   several million characters of some classes, e.g. a letter with combining accents repeated).
 */
export const MAX_EXACT_PIECE_BYTES = 4 * 1024 * 1024;
/**
 * Pieces of at most this many UTF-16 units have their counts remembered: words, numbers, and the rules
 * and indentation that output repeats (a line of 80 `=` is one piece, byte-pair merged at some cost).
 */
export const PIECE_CACHE_MAX_CHARS = 1024;
/** Counts remembered at once; the memory is cleared when full (a cache of ordinary words refills fast). */
export const PIECE_CACHE_SIZE = 50_000;
/** UTF-16 units the remembered pieces may hold (8 MB at most); past it, the memory is cleared too. */
export const PIECE_CACHE_TOTAL_CHARS = 4 * 1024 * 1024;
/** Slots of the table of short ASCII pieces (a power of two): one piece each, a newer one taking an older's place. */
export const ASCII_PIECE_SLOTS = 1 << 15;
/**
 * ASCII pieces of at most this many characters (nearly every word, number and run of punctuation) are
 * kept in the table itself, packed into a slot of four 32-bit words with their length and count.
 */
export const ASCII_PIECE_INLINE_MAX_CHARS = 14;
const ASCII_SLOT_WORDS = 4;
/** In a slot's last word: its two characters in bits 0–13, the count in 20–23, the length in 28–31. */
const ASCII_SLOT_COUNT_SHIFT = 20;
const ASCII_SLOT_COUNT_MASK = 0xf << ASCII_SLOT_COUNT_SHIFT;
const ASCII_SLOT_LENGTH_SHIFT = 28;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Pieces at least this long are checked for being one code point repeated. */
const RUN_CHECK_MIN_CHARS = 4096;

export interface BpeTokenCounterOptions {
  /** The encoding's pre-tokenizer (gpt-tokenizer's `*_TOKEN_SPLIT_REGEX`); copied, never mutated. */
  splitRegex: RegExp;
  ranks: RankTable;
  /** For tests: merge every piece through the heap, or every piece by scanning. */
  merge?: 'auto' | 'heap' | 'scan';
  /**
   * The same pre-tokenizer written out for ASCII (`o200k-ascii-pieces.ts`): the end of the piece at a
   * position, or a negative number where the regex must decide.
   */
  asciiPieceEnd?: (text: string, start: number) => number;
  /**
   * The pre-tokenizer takes an ASCII word as o200k's does (`o200k-ascii-pieces.ts`, alternatives 1 and 2):
   * an optional leading character, one of those this table marks 1 (`O200K_WORD_LEAD`), then capitals,
   * then small letters. Such a word is then found and keyed in one read of its characters, here; one
   * that a contraction or a character at or above U+0080 follows is left to `asciiPieceEnd`.
   */
  asciiWordLead?: Uint8Array;
}

export function createBpeTokenCounter(options: BpeTokenCounterOptions): (text: string) => number {
  const { ranks, merge = 'auto' } = options;
  const splitter = new RegExp(
    options.splitRegex.source,
    options.splitRegex.flags.includes('g') ? options.splitRegex.flags : `${options.splitRegex.flags}g`,
  );
  const cache = new Map<string, number>();
  let cachedChars = 0;

  const countLongPiece = (piece: string): number => {
    if (piece.length >= RUN_CHECK_MIN_CHARS) {
      const unit = repeatedCodePoint(piece);
      if (unit !== undefined) {
        const tokens = countRepeatedRun(utf8ByteString(unit), piece.length / unit.length, ranks);
        if (tokens !== undefined) return tokens;
      }
      const bytes = utf8Length(piece);
      if (bytes > MAX_EXACT_PIECE_BYTES) return countAroundLongestRun(piece, ranks) ?? bytes;
    }
    return countByHeap(utf8ByteString(piece), ranks);
  };

  const countPiece = (piece: string): number => {
    const known = cache.get(piece);
    if (known !== undefined) return known;
    let tokens: number;
    if (piece.length >= RUN_CHECK_MIN_CHARS) tokens = countLongPiece(piece);
    else {
      const bytes = utf8ByteString(piece);
      // gpt-tokenizer looks a whole piece up by its text, which a lone surrogate keeps out of the table.
      if (ranks.has(bytes) && (bytes === piece || !LONE_SURROGATE.test(piece))) tokens = 1;
      else if (merge === 'heap') tokens = countByHeap(bytes, ranks);
      else if (merge === 'scan' || bytes.length <= SCAN_MERGE_MAX_BYTES) tokens = countByScan(bytes, ranks);
      else tokens = countByHeap(bytes, ranks);
    }
    if (piece.length <= PIECE_CACHE_MAX_CHARS) {
      if (cache.size >= PIECE_CACHE_SIZE || cachedChars + piece.length > PIECE_CACHE_TOTAL_CHARS) {
        cache.clear();
        cachedChars = 0;
      }
      // A slice of 13 or more characters points into the text it came from: copied, the text can go.
      cache.set(ownCopy(piece), tokens);
      cachedChars += piece.length;
    }
    return tokens;
  };

  // Short ASCII pieces are looked up where they lie in the text, without a slice: a direct-mapped table
  // keyed by the piece itself, packed seven bits a character into four 32-bit words (four characters a
  // word; the last holds two, the length in its high bits and the count beside it). One read of the
  // characters makes the key, and a lookup compares four numbers in one cache line. A table of string
  // keys read three (the key's slot, the string, the count), and between two texts the rest of an
  // agent's work evicts them.
  const asciiSlots = new Int32Array(ASCII_PIECE_SLOTS * ASCII_SLOT_WORDS);
  const countAsciiPiece = (text: string, start: number, end: number): number => {
    const length = end - start;
    if (length > ASCII_PIECE_INLINE_MAX_CHARS) return countPiece(text.slice(start, end));
    let w0 = 0;
    let w1 = 0;
    let w2 = 0;
    let w3 = 0;
    let index = start;
    for (const stop = Math.min(end, start + 4); index < stop; index++)
      w0 = (w0 << 7) | text.charCodeAt(index);
    for (const stop = Math.min(end, start + 8); index < stop; index++)
      w1 = (w1 << 7) | text.charCodeAt(index);
    for (const stop = Math.min(end, start + 12); index < stop; index++)
      w2 = (w2 << 7) | text.charCodeAt(index);
    for (; index < end; index++) w3 = (w3 << 7) | text.charCodeAt(index);
    return countKeyedPiece(text, start, end, w0, w1, w2, w3 | (length << ASCII_SLOT_LENGTH_SHIFT));
  };

  /** The count of the piece `text[start, end)` keyed `w0`–`w3` (the length in `w3`): its slot's, or counted into it. */
  const countKeyedPiece = (
    text: string,
    start: number,
    end: number,
    w0: number,
    w1: number,
    w2: number,
    w3: number,
  ): number => {
    let hash = Math.imul(w0, 0x9e3779b1) ^ Math.imul(w1 ^ w3, 0x85ebca77) ^ Math.imul(w2, 0xc2b2ae3d);
    hash ^= hash >>> 15;
    const at = (hash & (ASCII_PIECE_SLOTS - 1)) * ASCII_SLOT_WORDS;
    const last = asciiSlots[at + 3] as number;
    if (
      (last & ~ASCII_SLOT_COUNT_MASK) === w3 &&
      asciiSlots[at] === w0 &&
      asciiSlots[at + 1] === w1 &&
      asciiSlots[at + 2] === w2
    )
      return (last & ASCII_SLOT_COUNT_MASK) >>> ASCII_SLOT_COUNT_SHIFT;
    const tokens = countPiece(text.slice(start, end));
    asciiSlots[at] = w0;
    asciiSlots[at + 1] = w1;
    asciiSlots[at + 2] = w2;
    // At most one token a byte: a count of up to 14 fits its four bits.
    asciiSlots[at + 3] = w3 | (tokens << ASCII_SLOT_COUNT_SHIFT);
    return tokens;
  };

  const { asciiPieceEnd } = options;
  const wordLead = asciiPieceEnd !== undefined ? options.asciiWordLead : undefined;
  return (text: string): number => {
    let tokens = 0;
    let done = 0;
    const length = text.length;
    try {
      while (done < length) {
        if (wordLead !== undefined) {
          // A word, keyed as it is read, with explicit bounds (reading past the end gives NaN, and the
          // loops ran slower for it). Written out here, letter tests too, rather than called: the scan is
          // most of the count, and this function is past what V8 inlines into it.
          let at = done;
          let unit = text.charCodeAt(at);
          let w0 = 0;
          let w1 = 0;
          let w2 = 0;
          let w3 = 0;
          let keyed = 0;
          if (unit < 0x80 && wordLead[unit] === 1 && at + 1 < length) {
            const next = text.charCodeAt(at + 1) | 0x20;
            if (next >= 0x61 && next <= 0x7a) {
              w0 = unit;
              keyed = 1;
              unit = text.charCodeAt(++at);
            }
          }
          if ((unit | 0x20) >= 0x61 && (unit | 0x20) <= 0x7a) {
            // Capitals, then small letters: a capital after a small letter starts the next piece.
            for (let small = false; ; ) {
              if (unit >= 0x61 && unit <= 0x7a) small = true;
              else if (small || unit < 0x41 || unit > 0x5a) break;
              if (keyed < 4) w0 = (w0 << 7) | unit;
              else if (keyed < 8) w1 = (w1 << 7) | unit;
              else if (keyed < 12) w2 = (w2 << 7) | unit;
              else if (keyed < ASCII_PIECE_INLINE_MAX_CHARS) w3 = (w3 << 7) | unit;
              keyed++;
              unit = ++at < length ? text.charCodeAt(at) : -1;
            }
            if (unit < 0x80 && unit !== 0x27) {
              const pieceLength = at - done;
              tokens +=
                pieceLength === 1
                  ? 1
                  : pieceLength > ASCII_PIECE_INLINE_MAX_CHARS
                    ? countPiece(text.slice(done, at))
                    : countKeyedPiece(
                        text,
                        done,
                        at,
                        w0,
                        w1,
                        w2,
                        w3 | (pieceLength << ASCII_SLOT_LENGTH_SHIFT),
                      );
              done = at;
              continue;
            }
          }
        }
        const end = asciiPieceEnd ? asciiPieceEnd(text, done) : -1;
        if (end > done) {
          // One ASCII character is one byte, and every byte is a token of a byte-level BPE.
          tokens += end === done + 1 ? 1 : countAsciiPiece(text, done, end);
          done = end;
          continue;
        }
        // Every character starts a piece of the pre-tokenizer, so a match is found right at `done`.
        splitter.lastIndex = done;
        const match = splitter.exec(text);
        if (match === null) break;
        tokens += countPiece(match[0]);
        done = splitter.lastIndex;
      }
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      tokens += utf8Length(text.slice(done));
    }
    return tokens;
  };
}

/**
 * Exact tokens of a piece around its longest run of one code point (`countAroundRun`), or `undefined`
 * when the run is too short for blocks or the text before or after it is too long to merge.
 */
function countAroundLongestRun(piece: string, ranks: RankTable): number | undefined {
  const run = longestRun(piece);
  if (run === undefined || run.repeats < 2 * RUN_BLOCK_REPEATS) return undefined;
  const unit = utf8ByteString(run.unit);
  // The text beside the run is merged with up to two blocks of it (a block grows by a repeat a try).
  const beside = MAX_EXACT_PIECE_BYTES - 2 * unit.length * (RUN_BLOCK_REPEATS + RUN_BLOCK_TRIES);
  const head = piece.slice(0, run.start);
  const tail = piece.slice(run.start + run.repeats * run.unit.length);
  if (utf8Length(head) > beside || utf8Length(tail) > beside) return undefined;
  return countAroundRun(utf8ByteString(head), unit, run.repeats, utf8ByteString(tail), ranks);
}

/**
 * The longest run of one code point in `text`: where it starts, the code point (one or two UTF-16
 * units; a lone surrogate is one) and how many times it repeats. Runs never split a surrogate pair.
 */
export function longestRun(text: string): { start: number; unit: string; repeats: number } | undefined {
  let best: { start: number; unit: string; repeats: number } | undefined;
  let index = 0;
  while (index < text.length) {
    const first = text.charCodeAt(index);
    const second = text.charCodeAt(index + 1);
    const pair = first >= 0xd800 && first <= 0xdbff && second >= 0xdc00 && second <= 0xdfff;
    let end = index + (pair ? 2 : 1);
    if (pair) {
      while (text.charCodeAt(end) === first && text.charCodeAt(end + 1) === second) end += 2;
    } else if (first >= 0xd800 && first <= 0xdbff) {
      // A lone high surrogate: the next equal unit is one too unless a low surrogate follows it.
      while (text.charCodeAt(end) === first && !isLowSurrogate(text.charCodeAt(end + 1))) end++;
    } else {
      while (text.charCodeAt(end) === first) end++;
    }
    const width = pair ? 2 : 1;
    const repeats = (end - index) / width;
    if (best === undefined || repeats > best.repeats)
      best = { start: index, unit: text.slice(index, index + width), repeats };
    index = end;
  }
  return best;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The code point `text` repeats (as a string of one or two UTF-16 units), if it is one repeated. */
export function repeatedCodePoint(text: string): string | undefined {
  const first = text.charCodeAt(0);
  const width = first >= 0xd800 && first <= 0xdbff && text.length > 1 ? 2 : 1;
  if (text.length % width !== 0) return undefined;
  const unit = text.slice(0, width);
  // Doubling comparisons: each compares a prefix with the next stretch, so the whole check is linear.
  for (let length = width; length < text.length; length *= 2) {
    const stretch = Math.min(length, text.length - length);
    if (text.slice(length, length + stretch) !== text.slice(0, stretch)) return undefined;
  }
  if (width === 2) {
    const second = text.charCodeAt(1);
    if (second < 0xdc00 || second > 0xdfff) return undefined;
  }
  return unit;
}

/** UTF-8 length of a text, a lone surrogate counting three bytes (as U+FFFD replaces it). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        bytes += 2; // four bytes for two units
        index++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}
