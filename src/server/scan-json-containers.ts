/**
 * One pass over a large JSON text that finds what `parseJsonInSlices` takes apart: the containers larger
 * than a bound, each cut at its own commas into runs of elements (about `runChars` each) and the large
 * elements between them. Each character is looked at once, however deep the text nests: a pass per
 * level cost size × depth (a 5 MB body nested 120 deep took seconds, `JSON.parse` 37 ms).
 *
 * The pass checks what its cuts rely on (strings closed, brackets matched, nothing after the root) and
 * how deep containers nest, so a body nested past the bound is refused before anything is built. The
 * rest of the grammar is `JSON.parse`'s, as it parses the parts.
 */
import type { WorkSlices } from '../core/work-slices.ts';
import { jsonSyntaxError } from './json-syntax-error.ts';
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COMMA,
  expectedComma,
  memberKey,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  skipSpace,
  stringEnd,
  trimSpace,
} from './json-text.ts';

/** Characters scanned between two looks at the clock. */
const SCAN_STEPS = 1 << 14;

/** A container larger than the bound, and its parts. */
export interface LargeContainer {
  /** Where its opening and closing brackets are. */
  open: number;
  close: number;
  array: boolean;
  /**
   * Its elements in the text's order: a run's end is the comma before the next part (or the closing
   * bracket); a run may be only whitespace, which is an empty container when it is the only part.
   */
  parts: ContainerPart[];
}

export type ContainerPart =
  /** Elements `text[start, end)` with the commas between them. */
  | { kind: 'run'; start: number; end: number }
  /** One large element, from just after the comma before it: a member's key, an array's value. */
  | { kind: 'large'; start: number; value: LargeContainer };

export type ScannedJson =
  /** The root, undefined when it is no container or not a large one. */
  | { root: LargeContainer | undefined }
  /** The keys to the first container (in the text) nested deeper than the bound. */
  | { tooDeep: Array<string | number> };

export interface ScanOptions {
  /** Deepest a container may be, the root at 0. */
  maxDepth: number;
  /** Containers up to this many characters are not taken apart. */
  wholeBelow: number;
  runChars: number;
  slices: WorkSlices;
}

/** A container open at the scan's position. One per depth, used again by the next at that depth. */
interface Frame {
  open: number;
  array: boolean;
  /** Just after the comma before the element being read, or after the opening bracket. */
  elementStart: number;
  /** The element being read: the commas so far. */
  index: number;
  /** Where the run being read starts. */
  runStart: number;
  /** The element being read is a large one, among the parts already. */
  afterLarge: boolean;
  /** Made only for a container that is cut or holds a large element. */
  parts: ContainerPart[] | undefined;
}

/** Throws `SyntaxError` for a text whose strings or brackets are not JSON's. */
export async function scanJsonContainers(text: string, options: ScanOptions): Promise<ScannedJson> {
  const { maxDepth, wholeBelow, runChars, slices } = options;
  const start = skipSpace(text, 0);
  const end = trimSpace(text, text.length);
  const first = text.charCodeAt(start);
  if (first !== OPEN_ARRAY && first !== OPEN_OBJECT) return { root: undefined };
  const frames: Frame[] = [];
  // The root opens at `start` and the scan ends where it closes: no character is read outside a container.
  let depth = 0;
  let steps = 0;
  for (let at = start; at < end; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) at = stringEnd(text, at + 1, end);
    else if (char === COMMA) {
      const frame = frames[depth - 1] as Frame;
      frame.index++;
      if (frame.afterLarge) {
        frame.afterLarge = false;
        frame.runStart = at + 1;
      } else if (at - frame.runStart >= runChars) {
        addPart(frame, { kind: 'run', start: frame.runStart, end: at });
        frame.runStart = at + 1;
      }
      frame.elementStart = at + 1;
    } else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      if (depth >= maxDepth) return { tooDeep: keysOf(text, frames.slice(0, depth), at) };
      if (depth === frames.length) frames.push({} as Frame);
      const frame = frames[depth] as Frame;
      frame.open = at;
      frame.array = char === OPEN_ARRAY;
      frame.elementStart = at + 1;
      frame.index = 0;
      frame.runStart = at + 1;
      frame.afterLarge = false;
      frame.parts = undefined;
      depth++;
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) {
      const frame = frames[--depth] as Frame;
      if (frame.array !== (char === CLOSE_ARRAY)) throw jsonSyntaxError(expectedComma(frame.array), text, at);
      const large = at + 1 - frame.open > wholeBelow ? closeLarge(frame, at) : undefined;
      if (depth === 0) {
        if (at + 1 < end)
          throw jsonSyntaxError(
            'Unexpected non-whitespace character after JSON',
            text,
            skipSpace(text, at + 1),
          );
        return { root: large };
      }
      if (large) addLarge(text, frames[depth - 1] as Frame, large);
    }
    if (++steps === SCAN_STEPS) {
      steps = 0;
      if (slices.due()) await slices.next();
    }
  }
  const open = frames[depth - 1] as Frame;
  throw jsonSyntaxError(`'${open.array ? '[' : '{'}' not closed in JSON`, text, open.open);
}

function addPart(frame: Frame, part: ContainerPart): void {
  if (frame.parts) frame.parts.push(part);
  else frame.parts = [part];
}

/** A large element of `parent` closed: the run before it ends at the comma before it. */
function addLarge(text: string, parent: Frame, value: LargeContainer): void {
  if (parent.afterLarge) throw jsonSyntaxError(expectedComma(parent.array), text, value.open);
  if (parent.elementStart > parent.runStart)
    addPart(parent, { kind: 'run', start: parent.runStart, end: parent.elementStart - 1 });
  addPart(parent, { kind: 'large', start: parent.elementStart, value });
  parent.afterLarge = true;
}

function closeLarge(frame: Frame, close: number): LargeContainer {
  if (!frame.afterLarge) addPart(frame, { kind: 'run', start: frame.runStart, end: close });
  return { open: frame.open, close, array: frame.array, parts: frame.parts ?? [] };
}

/**
 * The keys to the container opening at `at`, inside the open `frames`: each array's index, each
 * object's member key (read from the text, checked to lead to the next container).
 */
function keysOf(text: string, frames: readonly Frame[], at: number): Array<string | number> {
  return frames.map((frame, depth) => {
    const next = depth + 1 < frames.length ? (frames[depth + 1] as Frame).open : at;
    const member = frame.array ? undefined : memberKey(text, frame.elementStart);
    const valueStart = member ? member.valueStart : skipSpace(text, frame.elementStart);
    if (valueStart !== next) throw jsonSyntaxError(expectedComma(frame.array), text, next);
    return member ? member.key : frame.index;
  });
}
