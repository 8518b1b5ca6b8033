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
  const memo = new Map<string, number>();
  let memoChars = 0;
  const countPart = (part: string): number => {
    // A line break on its own (a line ending in a letter or digit is cut before its break, so every such
    // line leaves one): one ASCII character is one byte, and every byte is a token of a byte-level BPE.
    if (part.length === 1 && part.charCodeAt(0) < 0x80) return 1;
    if (part.length < LINE_PART_MEMO_MIN_CHARS) return countText(part);
    // Copied before the lookup: V8 keeps a string's hash in the string, so the copy is hashed once for
    // both the lookup and the insert (a slice looked up, then copied, was hashed twice on every miss).
    const key = ownCopy(part);
    const known = memo.get(key);
    if (known !== undefined) return known;
    const tokens = countText(key);
    memo.set(key, tokens);
    memoChars += part.length;
    if (memoChars <= MEMO_MAX_CHARS && memo.size <= MEMO_MAX_PARTS) return tokens;
    for (const oldest of memo.keys()) {
      if (memoChars <= MEMO_MAX_CHARS && memo.size <= MEMO_MAX_PARTS) break;
      memo.delete(oldest);
      memoChars -= oldest.length;
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
        tokens += countPart(text.slice(start, newline));
        start = newline;
      }
      const cut = newline + 1;
      if (cut >= text.length || !isCutPoint(text, cut)) continue;
      tokens += countPart(text.slice(start, cut));
      start = cut;
    }
    return tokens + (start < text.length ? countPart(start === 0 ? text : text.slice(start)) : 0);
  };
}

/** After the line break at `cut - 1`: a printable ASCII character other than `/` (never whitespace). */
function isCutPoint(text: string, cut: number): boolean {
  const next = text.charCodeAt(cut);
  return next > 0x20 && next < 0x7f && next !== 0x2f;
}

function isAsciiWordChar(unit: number): boolean {
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
}
