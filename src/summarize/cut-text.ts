import { countRunes } from '../core/tokens/count-runes.ts';

/**
 * Rune-aware cutting. Limits in the seeds are runes (tiancai: tool results cut to 1,800 runes for the
 * summary input), and a cut must never split a surrogate pair, or the text stops being valid UTF-16.
 */

export const ELLIPSIS = '…';

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** The UTF-16 index just after the first `runes` code points (or the string's end). */
export function indexAfterRunes(text: string, runes: number): number {
  let index = 0;
  for (let seen = 0; seen < runes && index < text.length; seen++) {
    index += isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1;
  }
  return index;
}

/** The UTF-16 index where the last `runes` code points start. */
export function indexBeforeLastRunes(text: string, runes: number): number {
  let index = text.length;
  for (let seen = 0; seen < runes && index > 0; seen++) {
    index -=
      isLowSurrogate(text.charCodeAt(index - 1)) && isHighSurrogate(text.charCodeAt(index - 2)) ? 2 : 1;
  }
  return index;
}

/** Moves a UTF-16 index back off the middle of a surrogate pair. */
function safeIndex(text: string, index: number): number {
  return index > 0 && index < text.length && isLowSurrogate(text.charCodeAt(index)) ? index - 1 : index;
}

/** The first `maxRunes` runes, with an ellipsis in place of the rest (the ellipsis counts as one rune). */
export function cutHead(text: string, maxRunes: number): string {
  if (maxRunes <= 0) return '';
  // Cheap check first: UTF-16 length is an upper bound on runes.
  if (text.length <= maxRunes || countRunes(text) <= maxRunes) return text;
  return `${text.slice(0, indexAfterRunes(text, maxRunes - 1)).trimEnd()}${ELLIPSIS}`;
}

/**
 * Head and tail with a marker between, at most `maxRunes` runes in all. Tool output keeps its verdict at
 * the end (the pytest summary, the traceback's last line, "exit code 1"), so a head-only cut would lose
 * exactly what the summary needs; two thirds head, one third tail.
 */
export function cutHeadTail(text: string, maxRunes: number): string {
  if (text.length <= maxRunes) return text;
  const total = countRunes(text);
  if (total <= maxRunes) return text;
  const marker = `\n[… ${total - maxRunes} chars cut …]\n`;
  const room = maxRunes - countRunes(marker);
  if (room < 8) return cutHead(text, maxRunes);
  const headRunes = Math.ceil((room * 2) / 3);
  const tailRunes = room - headRunes;
  return `${text.slice(0, indexAfterRunes(text, headRunes))}${marker}${text.slice(indexBeforeLastRunes(text, tailRunes))}`;
}

/**
 * The longest prefix of `text` (plus an ellipsis) that costs at most `maxTokens`. Binary search on the
 * length: O(log n) counts, and correct for any counter, additive or not.
 */
export function cutToTokens(text: string, maxTokens: number, countTokens: (text: string) => number): string {
  if (countTokens(text) <= maxTokens) return text;
  let low = 0;
  let high = text.length;
  let best = '';
  while (low <= high) {
    const middle = (low + high) >> 1;
    const candidate = middle === 0 ? '' : `${text.slice(0, safeIndex(text, middle)).trimEnd()}${ELLIPSIS}`;
    if (countTokens(candidate) <= maxTokens) {
      best = candidate;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return best;
}

/**
 * The whitespace runs that are not already one space: a lone space is left where it is, so prose, whose
 * runs are mostly that, is rewritten only at its line breaks and doubled spaces.
 */
export const COLLAPSIBLE_WHITESPACE = /[^\S ]\s*| \s+/g;

/** Whitespace runs (newlines included) collapsed to one space: list items must stay on one line. */
export function oneLine(text: string): string {
  return text.replace(COLLAPSIBLE_WHITESPACE, ' ').trim();
}
