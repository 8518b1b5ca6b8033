/**
 * `JSON.parse` of a large request body (32 MiB of a million small messages) a slice at a time, the event
 * loop getting a turn between two: one `JSON.parse` of such a body holds the thread for a second, and
 * every other request waits. The value is the one `JSON.parse` gives, and a text it refuses is refused
 * too (a `SyntaxError`, its own words for the small parts, ours for the structure around them, a
 * position always counted in the whole text).
 *
 * One pass over the text (`scanJsonContainers`) finds the containers larger than `WHOLE_BELOW` and cuts
 * each at its own commas into runs of about `RUN_CHARS`; the runs are parsed by `JSON.parse` (an array's
 * as `[…]`, an object's members as `{…}`, copied over as `JSON.parse` makes them, `__proto__` too), and
 * the large elements between them are built the same way. Between two parts lies exactly one comma, and
 * every element is non-empty, so the parts put together follow the text's own grammar. The time is in
 * proportion to the text's length, however deep it nests.
 *
 * The pass sees every bracket, so it also tells how deep the text nests: a body nested deeper than
 * `maxDepth` is refused with the path of the first container past it in the text (written as
 * `pathPastDepth` writes it), without the value being built or walked.
 */
import { defineMember } from '../core/define-member.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { inWholeText, jsonSyntaxError } from './json-syntax-error.ts';
import { COMMA, expectedComma, memberKey, skipSpace } from './json-text.ts';
import { formatPath, keysPastDepth, MAX_JSON_DEPTH } from './read-body.ts';
import { type LargeContainer, scanJsonContainers } from './scan-json-containers.ts';

/** Texts (and containers) up to this many UTF-16 units go to one `JSON.parse`: about a millisecond. */
export const WHOLE_BELOW = 1 << 18;
/** Elements parsed by one `JSON.parse`, in UTF-16 units. */
export const RUN_CHARS = 1 << 16;

/** The value, or the path of a value nested deeper than the bound (`messages[0].content[0]…`). */
export type ParsedJson = { value: unknown } | { tooDeep: string };

export interface ParseInSlicesOptions {
  /** Deepest a value may be (the root is at 0, as `pathPastDepth` counts). Default `MAX_JSON_DEPTH`. */
  maxDepth?: number;
  slices?: WorkSlices;
  /** `WHOLE_BELOW` and `RUN_CHARS`, smaller in tests. */
  wholeBelow?: number;
  runChars?: number;
}

/** `JSON.parse(text)` in slices, refusing a text nested too deep. Throws `SyntaxError` for what is not JSON. */
export async function parseJsonInSlices(
  text: string,
  options: ParseInSlicesOptions = {},
): Promise<ParsedJson> {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const wholeBelow = options.wholeBelow ?? WHOLE_BELOW;
  if (text.length <= wholeBelow) {
    const value: unknown = JSON.parse(text);
    const keys = keysPastDepth(value, maxDepth);
    return keys === undefined ? { value } : { tooDeep: formatPath(keys) };
  }
  const slices = options.slices ?? new WorkSlices();
  const scanned = await scanJsonContainers(text, {
    maxDepth,
    wholeBelow,
    runChars: options.runChars ?? RUN_CHARS,
    slices,
  });
  if ('tooDeep' in scanned) return { tooDeep: formatPath(scanned.tooDeep) };
  // No container nests past the bound (the scan saw each): what is left is JSON.parse's.
  if (scanned.root === undefined) return { value: JSON.parse(text) };
  return { value: await build(text, scanned.root, slices) };
}

/** The value of a large container, from its parts. */
async function build(text: string, container: LargeContainer, slices: WorkSlices): Promise<unknown> {
  const { array, parts } = container;
  const out: unknown[] | Record<string, unknown> = array ? [] : {};
  for (const part of parts) {
    if (part.kind === 'run') {
      if (skipSpace(text, part.start) >= part.end) {
        // `[ ]`, however much space.
        if (parts.length === 1) break;
        throw jsonSyntaxError(`Unexpected token '${text.charAt(part.end)}' in JSON`, text, part.end);
      }
      addRun(text, out, array, part.start, part.end);
    } else {
      const { value } = part;
      const member = array ? undefined : memberKey(text, part.start);
      const valueStart = member ? member.valueStart : skipSpace(text, part.start);
      if (valueStart !== value.open) throw jsonSyntaxError(expectedComma(array), text, value.open);
      const built = await build(text, value, slices);
      if (member) defineMember(out as Record<string, unknown>, member.key, built);
      else (out as unknown[]).push(built);
      const after = skipSpace(text, value.close + 1);
      if (after !== container.close && text.charCodeAt(after) !== COMMA)
        throw jsonSyntaxError(expectedComma(array), text, after);
    }
    if (slices.due()) await slices.next();
  }
  return out;
}

/** Parses the elements `text[from, to)` (with the commas between them) into `out`. */
function addRun(
  text: string,
  out: unknown[] | Record<string, unknown>,
  array: boolean,
  from: number,
  to: number,
): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(array ? `[${text.slice(from, to)}]` : `{${text.slice(from, to)}}`);
  } catch (error) {
    // The part's first character is the bracket added before `from`.
    throw inWholeText(error, text, from - 1);
  }
  if (array) for (const item of parsed as unknown[]) (out as unknown[]).push(item);
  else
    for (const [key, value] of Object.entries(parsed as object))
      defineMember(out as Record<string, unknown>, key, value);
}
