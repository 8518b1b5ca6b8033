/**
 * Reading part of a long text by lines: a range, or the lines that match a search with some context.
 * What a read tool answers instead of a whole blob the window cannot take. Each answer is headed by
 * what it holds and where to go on, and its body never exceeds `maxChars`: whole lines, and when the
 * next line alone is longer than the room, its start, with the character offset its rest begins at.
 * Linear in the text.
 */

import { safeCutIndex } from '../core/utf16-boundary.ts';

export interface LineSelection {
  content: string;
  /** Lines in the whole text. */
  totalLines: number;
  /** Lines the answer holds, the one cut short included. */
  shownLines: number;
}

/** A text's lines, each with the character offset it starts at. `\r\n`, `\n` and `\r` all end a line. */
interface Lines {
  texts: string[];
  starts: number[];
}

function linesOf(text: string): Lines {
  const texts: string[] = [];
  const starts: number[] = [];
  const ending = /\r\n|\n|\r/g;
  let start = 0;
  for (let match = ending.exec(text); match; match = ending.exec(text)) {
    texts.push(text.slice(start, match.index));
    starts.push(start);
    start = match.index + match[0].length;
  }
  // A final line ending does not make an empty last line; an empty text has no lines.
  if (start < text.length) {
    texts.push(text.slice(start));
    starts.push(start);
  }
  return { texts, starts };
}

/** The start of `text` up to `end`, never ending inside a surrogate pair. */
const cutAt = (text: string, end: number): string => text.slice(0, safeCutIndex(text, Math.max(0, end)));

interface Taken {
  text: string;
  /** Lines shown whole. */
  whole: number;
  /** A line shown only in part: its index and the offset (in the whole text) where its rest starts. */
  cut?: { index: number; restAt: number };
}

/** Numbered lines while they fit `maxChars`; a line that does not fit ends the answer with its start. */
function takeLines(lines: Lines, indexes: Iterable<number>, maxChars: number): Taken {
  const out: string[] = [];
  let used = 0;
  let previous = -2;
  for (const index of indexes) {
    const gap = previous >= 0 && index > previous + 1 ? '…\n' : '';
    const label = `${gap}${index + 1}: `;
    const body = lines.texts[index] ?? '';
    const separator = out.length > 0 ? 1 : 0;
    if (used + separator + label.length + body.length <= maxChars) {
      out.push(label + body);
      used += separator + label.length + body.length;
      previous = index;
      continue;
    }
    const room = maxChars - used - separator - label.length - 1;
    const shown = cutAt(body, Math.max(0, room));
    // Nothing of it fits: the answer ends before it, and says where to go on.
    if (shown.length === 0 && out.length > 0) return { text: out.join('\n'), whole: out.length };
    out.push(`${label}${shown}…`);
    return {
      text: out.join('\n'),
      whole: out.length - 1,
      cut: { index, restAt: (lines.starts[index] ?? 0) + shown.length },
    };
  }
  return { text: out.join('\n'), whole: out.length };
}

/** Where the rest of a line cut short can be read: by character offset, since its number shows no more. */
const restOf = (cut: NonNullable<Taken['cut']>): string =>
  ` Line ${cut.index + 1} is longer than the room: its rest starts at character offset ${cut.restAt}.`;

/** Lines `startLine` to `endLine` (1-based, inclusive; `endLine` past the end is the end). */
export function selectLineRange(
  text: string,
  range: { startLine: number; endLine?: number | undefined },
  label: string,
  maxChars: number,
): LineSelection | string {
  const lines = linesOf(text);
  const total = lines.texts.length;
  if (total === 0) return { content: `[${label}: empty, no lines.]`, totalLines: 0, shownLines: 0 };
  if (range.startLine > total)
    return `startLine ${range.startLine} is past the end of ${label} (${total} lines)`;
  const last = Math.min(total, range.endLine ?? total);
  if (last < range.startLine) return `endLine ${range.endLine} is before startLine ${range.startLine}`;
  const indexes = (function* () {
    for (let index = range.startLine - 1; index < last; index++) yield index;
  })();
  const taken = takeLines(lines, indexes, maxChars);
  const shownEnd = range.startLine - 1 + taken.whole + (taken.cut ? 1 : 0);
  const nextWhole = range.startLine + taken.whole;
  let more: string;
  if (taken.cut) more = `${restOf(taken.cut)} The lines after it start at startLine ${nextWhole + 1}.`;
  else if (nextWhole <= last)
    more = ` Shown up to line ${nextWhole - 1} to fit the context: go on with startLine ${nextWhole}.`;
  else if (last < total) more = ` ${total - last} more lines after.`;
  else more = ' This is the end.';
  return {
    content: `[${label}: lines ${range.startLine}–${Math.max(range.startLine, shownEnd)} of ${total}.${more}]\n${taken.text}`,
    totalLines: total,
    shownLines: taken.whole + (taken.cut ? 1 : 0),
  };
}

/**
 * The lines holding `query` (case-insensitive, taken literally) from line `fromLine` on, each with
 * `context` lines around it, overlapping stretches merged, in order, as many as fit. When some do not
 * fit, the header names the `startLine` to search on from.
 */
export function searchLines(
  text: string,
  query: string,
  context: number,
  label: string,
  maxChars: number,
  fromLine = 1,
): LineSelection {
  const lines = linesOf(text);
  const total = lines.texts.length;
  const needle = query.toLowerCase();
  const matches: number[] = [];
  for (let index = Math.max(0, fromLine - 1); index < total; index++)
    if (lines.texts[index]?.toLowerCase().includes(needle)) matches.push(index);
  const shown = new Set<number>();
  for (const match of matches)
    for (let index = Math.max(0, match - context); index <= Math.min(total - 1, match + context); index++)
      shown.add(index);
  const ordered = [...shown].sort((a, b) => a - b);
  const taken = takeLines(lines, ordered, maxChars);
  // Matches shown whole; a cut match counts as shown (its rest is named by offset).
  const lastShown = taken.cut ? taken.cut.index : (ordered[taken.whole - 1] ?? -1);
  const shownMatches = matches.filter((match) => match <= lastShown).length;
  const where = fromLine > 1 ? ` from line ${fromLine}` : '';
  const quoted = JSON.stringify(query);
  let header: string;
  if (matches.length === 0) header = `[${label}: no line${where} holds ${quoted} (${total} lines).]`;
  else {
    const nextMatch = matches[shownMatches];
    const rest =
      nextMatch === undefined
        ? ''
        : ` Shown: the first ${shownMatches} matches, to fit the context; search on with startLine ${nextMatch + 1}.`;
    header = `[${label}: ${matches.length} of ${total} lines${where} hold ${quoted}; shown with ${context} lines of context.${rest}${taken.cut ? restOf(taken.cut) : ''}]`;
  }
  return {
    content: taken.text ? `${header}\n${taken.text}` : header,
    totalLines: total,
    shownLines: taken.whole + (taken.cut ? 1 : 0),
  };
}
