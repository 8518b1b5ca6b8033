import { countRunes } from '../../core/tokens/count-runes.ts';
import { joinSplice } from '../../core/tokens/spliced-units.ts';
import type { Splice } from '../../core/tokens/token-counter.ts';
import {
  endOfFirstBytes,
  endOfFirstLines,
  endOfFirstRunes,
  snapHeadEnd,
  snapTailStart,
  startOfLastBytes,
  startOfLastLines,
  startOfLastRunes,
} from './cut-points.ts';
import { countLines, measureText, type TextMeasure, utf8Length } from './measure-text.ts';
import type { TruncateMode } from './options.ts';

export interface OutputLimits {
  maxLines: number;
  maxChars: number;
  maxBytes: number;
  truncateMode: TruncateMode;
}

export type LimitName = 'lines' | 'chars' | 'bytes';

/** The smallest line limit that gets a head_tail marker (tiancai: "when enabled and limit >= 4"). */
export const MIN_LINES_FOR_MARKER = 4;

export interface LimitedOutput {
  /** What is kept: head, the omission marker, tail. Equal to the input when nothing was cut. */
  body: string;
  /** `body` as a splice of the input (`spliced-units.ts`): countable around its cuts. */
  splice: Splice;
  /** Which limits cut, in the order they were applied. Empty when the input fit. */
  cutBy: LimitName[];
  /** Which part survived: derived from the cut, not the mode (a small head_tail limit keeps the head). */
  kept: 'all' | 'head' | 'tail' | 'head_tail';
  /** Size of the kept text, the marker not included. */
  keptSize: TextMeasure;
  total: TextMeasure;
}

/**
 * tiancai's truncation, in its order: lines, then runes, then bytes. All three steps move the same two
 * cut points inward — the head ends at `headEnd`, the tail starts at `tailStart` — so at most one marker
 * says what is missing, and every later step only shrinks what the earlier ones kept. The marker counts
 * against the limits, so the body always fits them.
 */
export function applyOutputLimits(
  text: string,
  limits: OutputLimits,
  total = measureText(text),
): LimitedOutput {
  const cut = new CutState(text);
  const cutBy: LimitName[] = [];

  if (total.lines > limits.maxLines) {
    cutByLines(cut, limits.maxLines, limits.truncateMode);
    cutBy.push('lines');
  }
  const markerRoom = maxMarkerLength(total);
  // A byte cut can add a marker to text that fitted the rune limit without one, so runes are checked
  // again until both hold; every pass keeps strictly less, so this ends (in two passes at most, in practice).
  for (let again = true; again; ) {
    again = false;
    for (const [name, limit, unit] of [
      ['chars', limits.maxChars, RUNES],
      ['bytes', limits.maxBytes, BYTES],
    ] as const) {
      if (!shrink(cut, limit, limits.truncateMode, markerRoom, unit)) continue;
      if (!cutBy.includes(name)) cutBy.push(name);
      again = true;
    }
  }

  if (!cut.isCut)
    return { body: text, splice: [{ from: 0, to: text.length }], cutBy, kept: 'all', keptSize: total, total };
  const head = text.slice(0, cut.headEnd);
  const tail = text.slice(cut.tailStart);
  const headSize = measureText(head);
  const tailSize = measureText(tail);
  // A head and a tail cut from the same line are one line kept, not two.
  const oneLine =
    head !== '' &&
    tail !== '' &&
    !head.endsWith('\n') &&
    !text.slice(cut.headEnd, cut.tailStart).includes('\n');
  const splice: Splice = [
    { from: 0, to: cut.headEnd },
    cut.marker(),
    { from: cut.tailStart, to: text.length },
  ];
  return {
    body: joinSplice(text, splice),
    splice,
    cutBy,
    kept: cut.headEnd > 0 && cut.tailStart < text.length ? 'head_tail' : cut.headEnd > 0 ? 'head' : 'tail',
    keptSize: {
      lines: headSize.lines + tailSize.lines - (oneLine ? 1 : 0),
      chars: headSize.chars + tailSize.chars,
      bytes: headSize.bytes + tailSize.bytes,
    },
    total,
  };
}

class CutState {
  headEnd: number;
  tailStart: number;
  isCut = false;

  constructor(readonly text: string) {
    this.headEnd = text.length;
    this.tailStart = text.length;
  }

  set(headEnd: number, tailStart: number): void {
    this.headEnd = headEnd;
    this.tailStart = Math.max(headEnd, tailStart);
    this.isCut = true;
  }

  get hasMarker(): boolean {
    return (
      this.isCut && this.headEnd > 0 && this.headEnd < this.tailStart && this.tailStart < this.text.length
    );
  }

  /**
   * Own line ("... [N lines omitted] ...") when both cuts are on line boundaries, as tiancai's
   * head_tail marker; otherwise inline, counting runes, since a partial line was cut.
   */
  marker(): string {
    if (!this.hasMarker) return '';
    const { text, headEnd, tailStart } = this;
    const omitted = text.slice(headEnd, tailStart);
    const headWhole = text.charCodeAt(headEnd - 1) === 10;
    const tailWhole = text.charCodeAt(tailStart - 1) === 10;
    if (headWhole && tailWhole) return lineMarker(countLines(omitted));
    return `${headWhole ? '' : ' '}${runeMarker(countRunes(omitted))}${tailWhole ? '\n' : ' '}`;
  }

  /** The kept text's size in a unit, the marker included. */
  size(unit: Unit): number {
    if (!this.isCut) return unit.measure(this.text);
    return (
      unit.measure(this.text.slice(0, this.headEnd)) +
      unit.measure(this.text.slice(this.tailStart)) +
      this.marker().length // markers are ASCII: one rune and one byte per unit
    );
  }
}

const lineMarker = (lines: number): string =>
  `... [${lines} ${lines === 1 ? 'line' : 'lines'} omitted] ...\n`;
const runeMarker = (chars: number): string => `... [${chars} chars omitted] ...`;

/** The longest marker this text can produce (its counts cannot exceed the text's own totals). */
function maxMarkerLength(total: TextMeasure): number {
  return Math.max(lineMarker(total.lines).length, runeMarker(total.chars).length + 2);
}

function cutByLines(cut: CutState, maxLines: number, mode: TruncateMode): void {
  const { text } = cut;
  if (mode === 'tail') cut.set(0, startOfLastLines(text, maxLines));
  else if (mode === 'head' || maxLines < MIN_LINES_FOR_MARKER)
    cut.set(endOfFirstLines(text, maxLines), text.length);
  else {
    // One line goes to the marker; the head gets the odd one out, since output usually opens with context.
    const headLines = Math.ceil((maxLines - 1) / 2);
    cut.set(endOfFirstLines(text, headLines), startOfLastLines(text, maxLines - 1 - headLines));
  }
}

interface Unit {
  measure(text: string): number;
  endOfFirst(text: string, count: number): number;
  startOfLast(text: string, count: number): number;
}

const RUNES: Unit = { measure: countRunes, endOfFirst: endOfFirstRunes, startOfLast: startOfLastRunes };
const BYTES: Unit = { measure: utf8Length, endOfFirst: endOfFirstBytes, startOfLast: startOfLastBytes };

/** Shrinks what is kept until it fits `limit` in `unit`; says whether it had to. */
function shrink(cut: CutState, limit: number, mode: TruncateMode, markerRoom: number, unit: Unit): boolean {
  if (cut.size(unit) <= limit) return false;
  const { text } = cut;
  const head = text.slice(0, cut.headEnd);
  if (mode === 'tail') {
    const tail = text.slice(cut.isCut ? cut.tailStart : 0);
    cut.set(0, snapTailStart(text, text.length - tail.length + unit.startOfLast(tail, limit)));
    return true;
  }
  const budget = limit - markerRoom;
  // head_tail needs room for the marker and a little of each end; below that it degrades to head.
  if (mode === 'head' || budget < 2) {
    cut.set(snapHeadEnd(text, unit.endOfFirst(head, limit)), text.length);
    return true;
  }
  // Before any cut, head and tail are both the whole text; after one, each shrinks within its own part.
  const tail = cut.isCut ? text.slice(cut.tailStart) : text;
  const headSize = unit.measure(head);
  const tailSize = cut.isCut ? unit.measure(tail) : headSize;
  let headKeep = Math.min(headSize, Math.ceil(budget / 2));
  const tailKeep = Math.min(tailSize, budget - headKeep);
  headKeep = Math.min(headSize, budget - tailKeep);
  const headEnd = snapHeadEnd(text, unit.endOfFirst(head, headKeep));
  const tailStart = snapTailStart(text, text.length - tail.length + unit.startOfLast(tail, tailKeep));
  cut.set(headEnd, tailStart);
  return true;
}
