/**
 * Syntax errors of a JSON text parsed in parts, worded as `JSON.parse` words its own: `… in JSON at
 * position 6 (line 1 column 7)`, the position in the whole text. `JSON.parse` of a part counts from the
 * part's start, which would send a client looking at the wrong place of its body.
 */

/** A `SyntaxError` for what is wrong at `position` of `text`: `what` says `in JSON` or `after JSON`. */
export function jsonSyntaxError(what: string, text: string, position: number): SyntaxError {
  return new SyntaxError(`${what} at ${whereIn(text, position)}`);
}

/**
 * `error` (thrown by `JSON.parse` of a part whose first character is at `offset` of `text`) with its
 * position moved to the whole text. An error without a position (`JSON.parse` quotes the text near the
 * fault instead) is given as it is.
 */
export function inWholeText(error: unknown, text: string, offset: number): unknown {
  if (!(error instanceof SyntaxError)) return error;
  const moved = error.message.replace(POSITION, (_, position: string) =>
    whereIn(text, Math.min(text.length, Number(position) + offset)),
  );
  return moved === error.message ? error : new SyntaxError(moved);
}

const POSITION = /position (\d+)(?: \(line \d+ column \d+\))?/;

/** `position 6 (line 1 column 7)`, lines broken as `JSON.parse` breaks them (`\n`, `\r`, `\r\n`). */
function whereIn(text: string, position: number): string {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < position; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  for (let at = text.indexOf('\r'); at !== -1 && at < position; at = text.indexOf('\r', at + 1)) {
    if (text.charCodeAt(at + 1) === LINE_FEED) continue;
    line++;
    lineStart = Math.max(lineStart, at + 1);
  }
  return `position ${position} (line ${line} column ${position - lineStart + 1})`;
}

const LINE_FEED = 0x0a;
