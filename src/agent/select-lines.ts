/**
 * Reading part of a long text by lines: a range, or the lines that match a search with some context.
 * What a read tool answers instead of a whole blob the window cannot take. Each answer is headed by
 * what it holds and what is left, and never exceeds `maxChars` (whole lines only, the first one cut if
 * it alone is longer). Linear in the text.
 */

export interface LineSelection {
  content: string;
  /** Lines in the whole text. */
  totalLines: number;
  /** Lines the answer holds. */
  shownLines: number;
}

/** Splits once; a final newline does not make an empty last line. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/** Numbered lines from `from` (0-based) while they fit `maxChars`; how many it took. */
function takeLines(
  lines: readonly string[],
  indexes: Iterable<number>,
  maxChars: number,
): { text: string; count: number } {
  const out: string[] = [];
  let used = 0;
  let previous = -2;
  for (const index of indexes) {
    const gap = previous >= 0 && index > previous + 1 ? '…\n' : '';
    const line = `${gap}${index + 1}: ${lines[index] ?? ''}`;
    const cost = line.length + 1;
    if (used + cost > maxChars) {
      // The first line alone is longer than the room: its start, rather than nothing.
      if (out.length === 0 && maxChars > 20) out.push(`${line.slice(0, maxChars - 2)}…`);
      break;
    }
    out.push(line);
    used += cost;
    previous = index;
  }
  return { text: out.join('\n'), count: out.length };
}

/** Lines `startLine` to `endLine` (1-based, inclusive; `endLine` past the end is the end). */
export function selectLineRange(
  text: string,
  range: { startLine: number; endLine?: number | undefined },
  label: string,
  maxChars: number,
): LineSelection | string {
  const lines = linesOf(text);
  const total = lines.length;
  if (range.startLine > total)
    return `startLine ${range.startLine} is past the end of ${label} (${total} lines)`;
  const last = Math.min(total, range.endLine ?? total);
  if (last < range.startLine) return `endLine ${range.endLine} is before startLine ${range.startLine}`;
  const indexes = (function* () {
    for (let index = range.startLine - 1; index < last; index++) yield index;
  })();
  const taken = takeLines(lines, indexes, maxChars);
  const shownEnd = range.startLine - 1 + taken.count;
  const more =
    shownEnd < last
      ? ` Shown up to line ${shownEnd} to fit the context: ask again with startLine ${shownEnd + 1}.`
      : shownEnd < total
        ? ` ${total - shownEnd} more lines after.`
        : ' This is the end.';
  return {
    content: `[${label}: lines ${range.startLine}–${shownEnd} of ${total}.${more}]\n${taken.text}`,
    totalLines: total,
    shownLines: taken.count,
  };
}

/**
 * The lines holding `query` (case-insensitive, taken literally), each with `context` lines around it,
 * overlapping stretches merged, in order, as many as fit.
 */
export function searchLines(
  text: string,
  query: string,
  context: number,
  label: string,
  maxChars: number,
): LineSelection {
  const lines = linesOf(text);
  const needle = query.toLowerCase();
  const matches: number[] = [];
  lines.forEach((line, index) => {
    if (line.toLowerCase().includes(needle)) matches.push(index);
  });
  const shown = new Set<number>();
  for (const match of matches)
    for (
      let index = Math.max(0, match - context);
      index <= Math.min(lines.length - 1, match + context);
      index++
    )
      shown.add(index);
  const ordered = [...shown].sort((a, b) => a - b);
  const taken = takeLines(lines, ordered, maxChars);
  const position = new Map(ordered.map((index, at) => [index, at]));
  const shownMatches = matches.filter(
    (match) => (position.get(match) ?? Number.POSITIVE_INFINITY) < taken.count,
  ).length;
  const header =
    matches.length === 0
      ? `[${label}: no line holds ${JSON.stringify(query)} (${lines.length} lines).]`
      : `[${label}: ${matches.length} of ${lines.length} lines hold ${JSON.stringify(query)}; shown with ${context} lines of context${
          shownMatches < matches.length
            ? `, the first ${shownMatches} matches to fit the context: narrow the search or read a range with startLine`
            : ''
        }.]`;
  return {
    content: taken.text ? `${header}\n${taken.text}` : header,
    totalLines: lines.length,
    shownLines: taken.count,
  };
}
