/**
 * Counting a text by parts, with the counts of parts remembered: a text is often counted again inside a
 * larger one (a summary prompt holding transcript blocks just counted one by one; a clipped result
 * keeping the head and tail of one counted before; a summary's items counted one by one, then the
 * summary). The whole-text memo (`exact-counter.ts`) cannot see that; this sees the lines they share.
 *
 * Why the sum of the parts is the whole's count, for o200k: its pre-tokenizer (`O200K_TOKEN_SPLIT_REGEX`)
 * puts a line break only in a piece of whitespace (`\s*[\r\n]+`, `\s+`) or at the end of a run of
 * punctuation (`[\r\n/]*`); no piece goes on from a line break into anything but whitespace or `/`, and
 * none goes on from a letter or a digit into a line break. So a piece always ends right after a line
 * break followed by a character that is neither whitespace nor `/`, and right before a line break that
 * follows an ASCII letter or digit, whatever comes before or after. Every piece is counted on its own
 * (byte-pair merges never cross pieces), so the text's count is the sum of its parts' counts when it is
 * cut only there. Not for cl100k: its `\s+$` makes the end of the text itself matter.
 *
 * The cuts depend on the characters around them only, so the same lines inside two different texts are
 * cut the same way and their parts are found again.
 */

import { ownCopy } from './own-copy.ts';

/** Parts shorter than this are counted, not remembered. */
export const LINE_PART_MEMO_MIN_CHARS = 16;
/** Texts longer than this are counted whole (the count of a multi-megabyte piece may be a bound). */
export const COUNT_BY_LINES_MAX_CHARS = 1 << 20;
/** UTF-16 units of remembered parts (4 MB at most) and how many parts; the oldest go first. */
const MEMO_MAX_CHARS = 2 * 1024 * 1024;
const MEMO_MAX_PARTS = 65_536;

export function createLineCounter(countText: (text: string) => number): (text: string) => number {
  // Keyed by a hash of the part's characters, computed in place: a part found again costs one pass over
  // it and a comparison, where a string key cost a copy of the part as well (only a copy may be kept, or
  // a slice would keep the text it was cut from alive) and V8's own hash of it. Two parts with one key:
  // the newer replaces the older.
  const memo = new Map<number, { text: string; tokens: number }>();
  let memoChars = 0;
  const countPart = (text: string, start: number, end: number): number => {
    const length = end - start;
    // A line break on its own (a line ending in a letter or digit is cut before its break, so every such
    // line leaves one): one ASCII character is one byte, and every byte is a token of a byte-level BPE.
    if (length === 1 && text.charCodeAt(start) < 0x80) return 1;
    const part = length === text.length ? text : text.slice(start, end);
    if (length < LINE_PART_MEMO_MIN_CHARS) return countText(part);
    const key = hashOfRange(text, start, end);
    const known = memo.get(key);
    if (known !== undefined) {
      if (known.text.length === length && known.text === part) return known.tokens;
      memo.delete(key);
      memoChars -= known.text.length;
    }
    const copy = ownCopy(part);
    const tokens = countText(copy);
    memo.set(key, { text: copy, tokens });
    memoChars += length;
    if (memoChars <= MEMO_MAX_CHARS && memo.size <= MEMO_MAX_PARTS) return tokens;
    for (const [oldestKey, oldest] of memo) {
      if (memoChars <= MEMO_MAX_CHARS && memo.size <= MEMO_MAX_PARTS) break;
      memo.delete(oldestKey);
      memoChars -= oldest.text.length;
    }
    return tokens;
  };
  return (text) => {
    if (text.length > COUNT_BY_LINES_MAX_CHARS) return countText(text);
    let tokens = 0;
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', newline + 1)) {
      // Before the break, when a letter or digit ends the line: no piece goes on from one into a break.
      if (newline > start && isAsciiWordChar(text.charCodeAt(newline - 1))) {
        tokens += countPart(text, start, newline);
        start = newline;
      }
      const cut = newline + 1;
      if (cut >= text.length || !isCutPoint(text, cut)) continue;
      tokens += countPart(text, start, cut);
      start = cut;
    }
    return tokens + (start < text.length ? countPart(text, start, text.length) : 0);
  };
}

/** MurmurHash3's 32-bit mix over the UTF-16 units of `text[start, end)`, two units a round. */
function hashOfRange(text: string, start: number, end: number): number {
  let hash = (end - start) ^ 0x9747b28c;
  let at = start;
  for (; at + 1 < end; at += 2) {
    hash ^= mixUnits(text.charCodeAt(at) | (text.charCodeAt(at + 1) << 16));
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  if (at < end) hash ^= mixUnits(text.charCodeAt(at));
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

function mixUnits(units: number): number {
  const mixed = Math.imul(units, 0xcc9e2d51);
  return Math.imul((mixed << 15) | (mixed >>> 17), 0x1b873593);
}

/** After the line break at `cut - 1`: a printable ASCII character other than `/` (never whitespace). */
function isCutPoint(text: string, cut: number): boolean {
  const next = text.charCodeAt(cut);
  return next > 0x20 && next < 0x7f && next !== 0x2f;
}

function isAsciiWordChar(unit: number): boolean {
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
}
