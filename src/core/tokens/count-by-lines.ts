/**
 * Counting a text by parts, with the counts of long parts remembered: a text is often counted again
 * inside a larger one (a summary prompt holding transcript blocks just counted one by one; a clipped
 * result keeping the head and tail of one counted before). The whole-text memo (`exact-counter.ts`)
 * cannot see that; this sees the lines the two texts share.
 *
 * Why the sum of the parts is the whole's count, for o200k: its pre-tokenizer
 * (`O200K_TOKEN_SPLIT_REGEX`) puts a line break only in a piece of whitespace (`\s*[\r\n]+`, `\s+`) or
 * at the end of a run of punctuation (`[\r\n/]*`), and no piece starts with a line break and goes on
 * into anything else; so right after a line break followed by a character that is neither whitespace nor
 * `/`, a piece always ends, whatever came before or comes after. Every piece is counted on its own
 * (byte-pair merges never cross pieces), so the text's count is the sum of its parts' counts when it is
 * cut only there. Not for cl100k: its `\s+$` makes the end of the text itself matter.
 *
 * Parts end at such cut points chosen by the characters around them only (about one line break in four),
 * so the same lines inside two different texts are cut the same way and their parts are found again.
 */

/** Parts shorter than this are counted, not remembered. */
export const LINE_PART_MEMO_MIN_CHARS = 48;
/** Texts longer than this are counted whole (the count of a multi-megabyte piece may be a bound). */
export const COUNT_BY_LINES_MAX_CHARS = 1 << 20;
/** UTF-16 units of remembered parts (4 MB at most); the oldest go first. */
const MEMO_MAX_CHARS = 2 * 1024 * 1024;

export function createLineCounter(countText: (text: string) => number): (text: string) => number {
  const memo = new Map<string, number>();
  let memoChars = 0;
  const countPart = (part: string): number => {
    if (part.length < LINE_PART_MEMO_MIN_CHARS) return countText(part);
    const known = memo.get(part);
    if (known !== undefined) return known;
    const tokens = countText(part);
    memo.set(part, tokens);
    memoChars += part.length;
    for (const oldest of memo.keys()) {
      if (memoChars <= MEMO_MAX_CHARS) break;
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
      const cut = newline + 1;
      if (cut >= text.length || !isCutPoint(text, cut)) continue;
      tokens += countPart(text.slice(start, cut));
      start = cut;
    }
    return tokens + (start < text.length ? countPart(start === 0 ? text : text.slice(start)) : 0);
  };
}

/**
 * After the line break at `cut - 1`: a printable ASCII character other than `/` (never whitespace), and
 * a mix of the characters around that picks about one such place in four.
 */
function isCutPoint(text: string, cut: number): boolean {
  const next = text.charCodeAt(cut);
  if (next <= 0x20 || next >= 0x7f || next === 0x2f) return false;
  const before = cut >= 2 ? text.charCodeAt(cut - 2) : 0;
  const after = cut + 1 < text.length ? text.charCodeAt(cut + 1) : 0;
  return ((before * 31 + next * 17 + after * 7) & 3) === 0;
}
