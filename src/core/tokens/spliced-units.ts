import { codeUnitsOf } from './code-units.ts';
import type { Splice, SplicedCount, TokenCounter } from './token-counter.ts';
import { countDenseBytes, countDenseBytesOfCodes, denseBytesBefore } from './token-floor.ts';
import { countTokenUnits, unitsUntilStop, unitsWithMarks } from './token-units.ts';

/** What a spliced text's count needs to know of its source: units and dense bytes before marks. */
export interface SourceMarks {
  units: number;
  denseBytes: number;
  positions: readonly number[];
  unitsBefore: readonly number[];
  denseBytesBefore: readonly number[];
}

/** Code units between marks: a splice scans about this much around each cut instead of the whole range. */
export const SPLICE_MARK_SPACING = 512;
/**
 * Code units past a mark that decide the piece ending there (the scanners look at most 3 past a piece's
 * end), with room to spare: a range must reach this far past the last mark it skips to.
 */
const LOOKAHEAD = 8;
/** Marks a scan tries to meet after a cut before it gives up and scans the range whole. */
const SYNC_MARKS = 8;

/** The units, dense bytes and marks of `source` (see `unitsWithMarks`). */
export function measureWithMarks(source: string, spacing = SPLICE_MARK_SPACING): SourceMarks {
  const codes = codeUnitsOf(source);
  const scanned = unitsWithMarks(codes, spacing);
  const dense = denseBytesBefore(codes, scanned.positions);
  const last = scanned.positions.at(-1) ?? 0;
  return {
    units: scanned.total,
    denseBytes: (dense.at(-1) ?? 0) + countDenseBytesOfCodes(codes, last),
    positions: scanned.positions,
    unitsBefore: scanned.units,
    denseBytesBefore: dense,
  };
}

/** `counter.countSplice`, or the count of the joined text from a counter without it. */
export function countSplice(counter: TokenCounter, source: string, splice: Splice): SplicedCount {
  if (counter.countSplice) return counter.countSplice(source, splice);
  const text = joinSplice(source, splice);
  return { tokens: counter.count(text), text: () => text };
}

/** The spliced text itself. */
export function joinSplice(source: string, splice: Splice): string {
  let text = '';
  for (const segment of splice)
    text += typeof segment === 'string' ? segment : source.slice(segment.from, segment.to);
  return text;
}

/** Code units of the spliced text. */
export function spliceLength(splice: Splice): number {
  let length = 0;
  for (const segment of splice)
    length += typeof segment === 'string' ? segment.length : segment.to - segment.from;
  return length;
}

/**
 * `countTokenUnits` and `countDenseBytes` of the spliced text, equal to measuring `joinSplice(source, splice)`,
 * without scanning the long ranges of the source it keeps. After a cut, the scan goes on until its pieces
 * start where the source's own scan started one (a mark): from there the two are cut alike, so the units
 * up to the last mark the range reaches past are the source's, read off the marks.
 */
export function measureSplice(
  source: string,
  marks: SourceMarks,
  splice: Splice,
): { units: number; denseBytes: number } {
  const { positions } = marks;
  let units = 0;
  let denseBytes = 0;
  // Text still to scan, from a piece boundary of the spliced text.
  let pending = '';
  for (const segment of splice) {
    if (typeof segment === 'string') {
      pending += segment;
      denseBytes += countDenseBytes(segment);
      continue;
    }
    const from = Math.max(0, segment.from);
    const to = Math.min(source.length, segment.to);
    if (to <= from) continue;
    denseBytes += denseBytesOfRange(source, marks, from, to);
    const first = firstMarkAtOrAfter(positions, from);
    const last = lastMarkAtOrBefore(positions, to - LOOKAHEAD);
    if (first < 0 || last <= first) {
      pending += source.slice(from, to);
      continue;
    }
    if (pending === '' && from === 0) {
      // The spliced text starts as the source does: the two scans are one up to the last mark.
      units += marks.unitsBefore[last] as number;
      pending = source.slice(positions[last] as number, to);
      continue;
    }
    const tried = Math.min(last, first + SYNC_MARKS - 1);
    const offset = pending.length - from;
    const scanned = `${pending}${source.slice(from, Math.min(to, (positions[tried] as number) + LOOKAHEAD))}`;
    const stops: number[] = [];
    for (let k = first; k <= tried; k++) stops.push((positions[k] as number) + offset);
    const met = unitsUntilStop(codeUnitsOf(scanned), stops);
    if (met.stop < 0) {
      pending += source.slice(from, to);
      continue;
    }
    const at = first + met.stop;
    units += met.units + ((marks.unitsBefore[last] as number) - (marks.unitsBefore[at] as number));
    pending = source.slice(positions[last] as number, to);
  }
  return { units: units + countTokenUnits(pending), denseBytes };
}

function denseBytesOfRange(source: string, marks: SourceMarks, from: number, to: number): number {
  if (from === 0 && to === source.length) return marks.denseBytes;
  return denseBytesBeforeIndex(source, marks, to) - denseBytesBeforeIndex(source, marks, from);
}

function denseBytesBeforeIndex(source: string, marks: SourceMarks, index: number): number {
  if (index >= source.length) return marks.denseBytes;
  const k = lastMarkAtOrBefore(marks.positions, index);
  const mark = k < 0 ? 0 : (marks.positions[k] as number);
  const before = k < 0 ? 0 : (marks.denseBytesBefore[k] as number);
  return before + countDenseBytes(source.slice(mark, index));
}

/** Index of the first position ≥ `at`, or -1. */
function firstMarkAtOrAfter(positions: readonly number[], at: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((positions[middle] as number) < at) low = middle + 1;
    else high = middle;
  }
  return low < positions.length ? low : -1;
}

/** Index of the last position ≤ `at`, or -1. */
function lastMarkAtOrBefore(positions: readonly number[], at: number): number {
  const after = firstMarkAtOrAfter(positions, at + 1);
  return after < 0 ? positions.length - 1 : after - 1;
}
