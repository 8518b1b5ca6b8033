/**
 * `JSON.parse` of a large request body (32 MiB of a million small messages) a slice at a time, the event
 * loop getting a turn between two: one `JSON.parse` of such a body holds the thread for a second, and
 * every other request waits. The value is the one `JSON.parse` gives, and a text it refuses is refused
 * too (a `SyntaxError`, its own words for the small parts, ours for the structure around them).
 *
 * A container of the text larger than `WHOLE_BELOW` is scanned for its own commas (strings skipped), and
 * its elements are parsed by `JSON.parse` in runs of about `RUN_CHARS` (an array's as `[…]`, an object's
 * members as `{…}`, copied over as `JSON.parse` makes them, `__proto__` too); an element that large
 * itself is taken apart the same way. Between two runs lies exactly one comma, and every element is
 * non-empty, so the parts put together follow the text's own grammar.
 *
 * The scan sees every character, so it also tells how deep the text nests: a body nested deeper than
 * `maxDepth` is refused with the path of the first value past it in the text (written as `pathPastDepth`
 * writes it), without the value being built or walked.
 */
import { WorkSlices } from '../core/work-slices.ts';
import { formatPath, keysPastDepth, MAX_JSON_DEPTH } from './read-body.ts';

/** Texts (and containers) up to this many UTF-16 units go to one `JSON.parse`: about a millisecond. */
export const WHOLE_BELOW = 1 << 18;
/** Elements parsed by one `JSON.parse`, in UTF-16 units. */
export const RUN_CHARS = 1 << 16;
/** Characters scanned between two looks at the clock. */
const SCAN_STEPS = 1 << 14;

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
  const reader = new SliceReader(text, {
    maxDepth,
    slices: options.slices ?? new WorkSlices(),
    wholeBelow,
    runChars: options.runChars ?? RUN_CHARS,
  });
  try {
    return { value: await reader.value(skipSpace(text, 0), trimSpace(text, text.length), 0, []) };
  } catch (error) {
    if (error instanceof TooDeep) return { tooDeep: formatPath(error.keys) };
    throw error;
  }
}

/** Unwinds the reader from where the text went too deep. */
class TooDeep {
  constructor(readonly keys: Array<string | number>) {}
}

/** One element of a container: its trimmed span, where the comma after it is, how deep it nests. */
interface ElementSpan {
  start: number;
  end: number;
  /** The comma after the element, or the container's closing bracket after the last. */
  separator: number;
  /** Containers nested in it, itself included: 0 for a string or a number, 1 for `[1]`. */
  nesting: number;
}

class SliceReader {
  readonly #text: string;
  readonly #maxDepth: number;
  readonly #slices: WorkSlices;
  readonly #wholeBelow: number;
  readonly #runChars: number;

  constructor(
    text: string,
    sizes: { maxDepth: number; slices: WorkSlices; wholeBelow: number; runChars: number },
  ) {
    this.#text = text;
    this.#maxDepth = sizes.maxDepth;
    this.#slices = sizes.slices;
    this.#wholeBelow = sizes.wholeBelow;
    this.#runChars = sizes.runChars;
  }

  /**
   * The value of `text[start, end)` (trimmed already), a value at `depth` (the root at 0) reached by
   * `keys`. A container is taken apart only when it is large: anything else is one `JSON.parse`.
   */
  async value(start: number, end: number, depth: number, keys: Array<string | number>): Promise<unknown> {
    const text = this.#text;
    const open = text.charCodeAt(start);
    if (end - start <= this.#wholeBelow || (open !== OPEN_ARRAY && open !== OPEN_OBJECT)) {
      const value: unknown = JSON.parse(text.slice(start, end));
      const past = keysPastDepth(value, this.#maxDepth - depth);
      if (past !== undefined) throw new TooDeep([...keys, ...past]);
      return value;
    }
    if (depth >= this.#maxDepth) throw new TooDeep(keys);
    const array = open === OPEN_ARRAY;
    if (text.charCodeAt(end - 1) !== (array ? CLOSE_ARRAY : CLOSE_OBJECT))
      throw syntaxError(`'${String.fromCharCode(open)}' not closed`, end - 1);
    const out: unknown[] | Record<string, unknown> = array ? [] : {};
    // `[ ]`, however much space.
    if (skipSpace(text, start + 1) === end - 1) return out;
    const close = end - 1;
    let run = { start: start + 1, end: -1, index: 0 };
    let index = 0;
    for (let from = start + 1; ; index++) {
      const element = await this.#element(from, close);
      if (element.end <= element.start) throw syntaxError('a value missing before a comma or bracket', from);
      if (depth + element.nesting >= this.#maxDepth)
        await this.#tooDeep(element, array, depth + 1, [...keys, ...(array ? [index] : [])]);
      if (element.end - element.start > this.#wholeBelow) {
        if (run.end >= 0) await this.#flush(out, array, run.start, run.end);
        if (array)
          (out as unknown[]).push(await this.value(element.start, element.end, depth + 1, [...keys, index]));
        else await this.#member(out as Record<string, unknown>, element, depth + 1, keys);
        run = { start: element.separator + 1, end: -1, index: index + 1 };
      } else {
        run.end = element.end;
        if (run.end - run.start >= this.#runChars) {
          await this.#flush(out, array, run.start, run.end);
          run = { start: element.separator + 1, end: -1, index: index + 1 };
        }
      }
      if (element.separator >= close) break;
      from = element.separator + 1;
    }
    if (run.end >= 0) await this.#flush(out, array, run.start, run.end);
    return out;
  }

  /** Parses the elements `text[from, to)` (with the commas between them) into `out`. */
  async #flush(
    out: unknown[] | Record<string, unknown>,
    array: boolean,
    from: number,
    to: number,
  ): Promise<void> {
    const run = this.#text.slice(from, to);
    if (array) for (const item of JSON.parse(`[${run}]`) as unknown[]) (out as unknown[]).push(item);
    else
      for (const [key, value] of Object.entries(JSON.parse(`{${run}}`) as object))
        defineMember(out as Record<string, unknown>, key, value);
    if (this.#slices.due()) await this.#slices.next();
  }

  /** A large member `"key": value`, its value taken apart. */
  async #member(
    out: Record<string, unknown>,
    element: ElementSpan,
    depth: number,
    keys: Array<string | number>,
  ): Promise<void> {
    const { key, valueStart } = this.#memberKey(element);
    defineMember(out, key, await this.value(valueStart, element.end, depth, [...keys, key]));
  }

  #memberKey(element: ElementSpan): { key: string; valueStart: number } {
    const text = this.#text;
    if (text.charCodeAt(element.start) !== QUOTE)
      throw syntaxError('a member without a string key', element.start);
    const keyEnd = stringEnd(text, element.start + 1, element.end) + 1;
    const key = JSON.parse(text.slice(element.start, keyEnd)) as string;
    const colon = skipSpace(text, keyEnd);
    if (text.charCodeAt(colon) !== COLON) throw syntaxError("a member without ':'", colon);
    return { key, valueStart: skipSpace(text, colon + 1) };
  }

  /** An element nesting past the bound, at `depth` (the element itself): throws the path of the value. */
  async #tooDeep(
    element: ElementSpan,
    array: boolean,
    depth: number,
    keys: Array<string | number>,
  ): Promise<never> {
    if (array) await this.value(element.start, element.end, depth, keys);
    else {
      const { key, valueStart } = this.#memberKey(element);
      await this.value(valueStart, element.end, depth, [...keys, key]);
    }
    // The scan and the parse disagree only on a text JSON.parse refused already.
    throw new TooDeep(keys);
  }

  /** The element of a container that starts at `from` (after a comma or the opening bracket). */
  async #element(from: number, close: number): Promise<ElementSpan> {
    const text = this.#text;
    const start = skipSpace(text, from);
    let depth = 0;
    let nesting = 0;
    let index = start;
    let steps = 0;
    for (; index < close; index++) {
      const char = text.charCodeAt(index);
      if (char === QUOTE) index = stringEnd(text, index + 1, close);
      else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
        depth++;
        if (depth > nesting) nesting = depth;
      } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) {
        if (--depth < 0) throw syntaxError(`unexpected '${String.fromCharCode(char)}'`, index);
      } else if (char === COMMA && depth === 0) break;
      if (++steps === SCAN_STEPS) {
        steps = 0;
        if (this.#slices.due()) await this.#slices.next();
      }
    }
    if (depth !== 0) throw syntaxError('a bracket not closed', start);
    return { start, end: Math.max(start, trimSpace(text, index)), separator: index, nesting };
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** As `JSON.parse` makes a member: an own data property, `__proto__` included. */
function defineMember(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The index of the quote closing the string whose content starts at `from`. */
function stringEnd(text: string, from: number, limit: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1 || quote >= limit) throw syntaxError('a string not terminated', from - 1);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

function isSpace(char: number): boolean {
  return char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09;
}

function skipSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** `to`, moved back over the whitespace before it. */
function trimSpace(text: string, to: number): number {
  let at = to;
  while (at > 0 && isSpace(text.charCodeAt(at - 1))) at--;
  return at;
}

function syntaxError(what: string, position: number): SyntaxError {
  return new SyntaxError(`${what} in JSON at position ${position}`);
}
