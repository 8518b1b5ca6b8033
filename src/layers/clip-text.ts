import { countRunes } from '../core/tokens/count-runes.ts';
import { joinSplice, spliceLength } from '../core/tokens/spliced-units.ts';
import type { Splice } from '../core/tokens/token-counter.ts';

/**
 * Head + tail clipping, in runes (the seeds' limits are characters / Go runes, and a cut must never
 * split a surrogate pair). The notice sits between head and tail and says what was left out, so the
 * model knows the content is partial and roughly how much is missing.
 */

/** Share of the room kept from the head when the caller does not say. */
export const DEFAULT_HEAD_FRACTION = 0.5;

export interface ClipOptions {
  /** The clipped text, notice included, is at most this many runes (unless the notice alone is longer). */
  maxChars: number;
  headChars?: number | undefined;
  tailChars?: number | undefined;
  /** Used when head/tail are not both given. */
  headFraction?: number | undefined;
  /** The text put between head and tail: `omitted` and `total` are runes. */
  notice: (omitted: number, total: number) => string;
  /** The text's runes, when the caller knows them (a text clipped to several sizes in turn). */
  totalRunes?: number | undefined;
}

/** Runes in `text`, or a cheap upper-bound shortcut: UTF-16 length never undercounts runes. */
export function runeLength(text: string): number {
  return countRunes(text);
}

/** True when `text` has more than `limit` runes; O(1) for the common short case. */
export function exceedsRunes(text: string, limit: number): boolean {
  return text.length > limit && countRunes(text) > limit;
}

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** UTF-16 index just after the first `runes` runes. */
function indexAfterRunes(text: string, runes: number): number {
  let index = 0;
  for (let seen = 0; seen < runes && index < text.length; seen++) {
    index += isHigh(text.charCodeAt(index)) && isLow(text.charCodeAt(index + 1)) ? 2 : 1;
  }
  return index;
}

/** UTF-16 index where the last `runes` runes start. */
function indexBeforeLastRunes(text: string, runes: number): number {
  let index = text.length;
  for (let seen = 0; seen < runes && index > 0; seen++) {
    index -= isLow(text.charCodeAt(index - 1)) && isHigh(text.charCodeAt(index - 2)) ? 2 : 1;
  }
  return index;
}

/**
 * `text` clipped to head + notice + tail within `maxChars` runes, or undefined when it already fits (or
 * when clipping would not make it shorter: a notice longer than the limit must not re-clip forever).
 */
export function clipHeadTail(text: string, options: ClipOptions): string | undefined {
  const splice = headTailSplice(text, options);
  return splice === undefined ? undefined : joinSplice(text, splice);
}

/** `clipHeadTail` as a splice of `text` (head range, notice, tail range): countable without joining. */
export function headTailSplice(text: string, options: ClipOptions): Splice | undefined {
  if (text.length <= options.maxChars) return undefined;
  const total = options.totalRunes ?? countRunes(text);
  if (total <= options.maxChars) return undefined;
  // The longest notice this text can need: `omitted` has at most as many digits as `total`.
  const reserve = countRunes(options.notice(total, total));
  const room = Math.max(0, options.maxChars - reserve);
  let head = options.headChars ?? Math.ceil(room * (options.headFraction ?? DEFAULT_HEAD_FRACTION));
  let tail = options.tailChars ?? Math.max(0, room - head);
  head = Math.max(0, Math.floor(head));
  tail = Math.max(0, Math.floor(tail));
  if (head + tail > room) {
    // Caller-given sizes that overflow the limit are scaled down: a result left over the limit would
    // be clipped again on every call.
    const scaledHead = head + tail === 0 ? 0 : Math.floor((room * head) / (head + tail));
    tail = room - scaledHead;
    head = scaledHead;
  }
  const omitted = total - head - tail;
  // As many runes as code units: no surrogate pair to step over, a rune count is an index.
  const plain = total === text.length;
  const splice: Splice = [
    { from: 0, to: plain ? head : indexAfterRunes(text, head) },
    options.notice(omitted, total),
    { from: plain ? text.length - tail : indexBeforeLastRunes(text, tail), to: text.length },
  ];
  return spliceLength(splice) < text.length ? splice : undefined;
}

/** One line, clipped to `maxChars` runes with an ellipsis: for digests and reminders. */
export function clipLine(text: string, maxChars: number): string {
  // Only the start can survive the clip: normalize that much, not a megabyte of output.
  const sourceLimit = maxChars * 4 + 16;
  const sourceCut = text.length > sourceLimit;
  const line = (sourceCut ? text.slice(0, indexAfterRunes(text, sourceLimit)) : text)
    .replace(/\s+/g, ' ')
    .trim();
  if (!sourceCut && !exceedsRunes(line, maxChars)) return line;
  return `${line.slice(0, indexAfterRunes(line, Math.max(0, maxChars - 1))).trimEnd()}…`;
}
