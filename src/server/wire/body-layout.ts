/**
 * Where each part of a request body lies in its bytes: the top-level members' values, and each element
 * of the member that holds the conversation (`messages`). What lets the proxy send a message it did not
 * change as the client's own bytes, and read only the messages a request adds to the one before it.
 *
 * The scan sees brackets and strings only (a string skipped to its closing quote by `indexOf`), so it is
 * quick; it does not check the grammar inside values: what it is given was parsed whole (`JSON.parse`),
 * or its new values are parsed one by one after it (`continueLayout`). Anything it does not expect (a
 * member named twice, a value nested past the bound, bytes after the object) gives no layout.
 */
import type { WorkSlices } from '../../core/work-slices.ts';

export interface MemberRange {
  key: string;
  /** Its value: `bytes[start, end)`. */
  start: number;
  end: number;
}

export interface BodyLayout {
  /** The top-level members in the body's order (the list member among them). */
  members: MemberRange[];
  /** The index in `members` of the conversation list (an array), or -1 when the body has none. */
  list: number;
  /** The list's elements, flat: element i is `bytes[items[2i], items[2i + 1])`. */
  items: number[];
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;
/** Bytes scanned between two looks at the clock. */
const SCAN_STEPS = 1 << 16;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Uint8Array, from: number): number {
  let at = from;
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}

/** Thrown (not an error: a way out of the scan) when the bytes are no body's layout. */
const NO_LAYOUT: unique symbol = Symbol('no layout');

/** The index just past the string whose opening quote is at `at`. */
function stringEnd(bytes: Uint8Array, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote === -1) throw NO_LAYOUT;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** `Scanner.valueEnd`'s answer when it stopped for the event loop (then `resume` goes on). */
const PAUSED = -1;

class Scanner {
  #steps = 0;
  /** A container being scanned: where the scan stands, how many brackets are open, its depth. */
  #at = 0;
  #open = 0;
  #depth = 0;

  constructor(
    readonly bytes: Uint8Array,
    readonly maxDepth: number,
    readonly slices: WorkSlices,
  ) {}

  /** The index just past the value starting at `at`, nested at `depth` (the root's members at 1). */
  async valueEnd(at: number, depth: number): Promise<number> {
    let end = this.#valueEnd(at, depth);
    while (end === PAUSED) {
      await this.slices.next();
      end = this.#container();
    }
    return end;
  }

  /** The value's end, or PAUSED (at once, without a promise: a list may hold a million small values). */
  #valueEnd(at: number, depth: number): number {
    const { bytes } = this;
    const first = bytes[at];
    if (first === QUOTE) return stringEnd(bytes, at);
    if (first !== OPEN_ARRAY && first !== OPEN_OBJECT) {
      // A number or a literal: up to what may follow it (JSON.parse tells whether it is one).
      let end = at;
      while (end < bytes.length) {
        const byte = bytes[end];
        if (byte === COMMA || byte === CLOSE_ARRAY || byte === CLOSE_OBJECT || isSpace(byte)) break;
        end++;
      }
      if (end === at) throw NO_LAYOUT;
      return end;
    }
    this.#at = at;
    this.#open = 0;
    this.#depth = depth;
    return this.#container();
  }

  #container(): number {
    const { bytes } = this;
    let open = this.#open;
    for (let index = this.#at; index < bytes.length; index++) {
      const byte = bytes[index];
      if (byte === QUOTE) index = stringEnd(bytes, index) - 1;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        open++;
        if (this.#depth + open - 1 >= this.maxDepth) throw NO_LAYOUT;
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        open--;
        if (open === 0) return index + 1;
      }
      if (++this.#steps === SCAN_STEPS) {
        this.#steps = 0;
        if (this.slices.due()) {
          this.#at = index + 1;
          this.#open = open;
          return PAUSED;
        }
      }
    }
    throw NO_LAYOUT;
  }

  /** The key of the member at `at` (its opening quote), and where its value starts. */
  memberKey(at: number): { key: string; valueStart: number } {
    const { bytes } = this;
    if (bytes[at] !== QUOTE) throw NO_LAYOUT;
    const keyEnd = stringEnd(bytes, at);
    let key: unknown;
    try {
      key = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + at, keyEnd - at).toString('utf8'));
    } catch {
      throw NO_LAYOUT;
    }
    const colon = skipSpace(bytes, keyEnd);
    if (bytes[colon] !== COLON) throw NO_LAYOUT;
    return { key: key as string, valueStart: skipSpace(bytes, colon + 1) };
  }

  /** The list's elements from `at` (after its `[` or after an element), into `items`; the index past its `]`. */
  async listFrom(at: number, items: number[], afterElement: boolean): Promise<number> {
    const { bytes } = this;
    let next = skipSpace(bytes, at);
    if (afterElement) {
      if (bytes[next] === CLOSE_ARRAY) return next + 1;
      if (bytes[next] !== COMMA) throw NO_LAYOUT;
      next = skipSpace(bytes, next + 1);
    } else if (bytes[next] === CLOSE_ARRAY) return next + 1;
    for (;;) {
      let end = this.#valueEnd(next, 2);
      while (end === PAUSED) {
        await this.slices.next();
        end = this.#container();
      }
      items.push(next, end);
      next = skipSpace(bytes, end);
      if (bytes[next] === CLOSE_ARRAY) return next + 1;
      if (bytes[next] !== COMMA) throw NO_LAYOUT;
      next = skipSpace(bytes, next + 1);
      if (this.slices.due()) await this.slices.next();
    }
  }

  /**
   * The members from `at` (after `{` when `afterMember` is false, else after a member's value), into
   * `layout`, to the object's end and the end of the bytes.
   */
  async membersFrom(at: number, layout: BodyLayout, listKey: string, afterMember: boolean): Promise<void> {
    const { bytes } = this;
    let next = skipSpace(bytes, at);
    if (afterMember) {
      if (bytes[next] === CLOSE_OBJECT) return this.#end(next);
      if (bytes[next] !== COMMA) throw NO_LAYOUT;
      next = skipSpace(bytes, next + 1);
    } else if (bytes[next] === CLOSE_OBJECT) return this.#end(next);
    for (;;) {
      const { key, valueStart } = this.memberKey(next);
      if (layout.members.some((member) => member.key === key)) throw NO_LAYOUT;
      let end: number;
      if (key === listKey && bytes[valueStart] === OPEN_ARRAY) {
        layout.list = layout.members.length;
        end = await this.listFrom(valueStart + 1, layout.items, false);
      } else end = await this.valueEnd(valueStart, 1);
      layout.members.push({ key, start: valueStart, end });
      next = skipSpace(bytes, end);
      if (bytes[next] === CLOSE_OBJECT) return this.#end(next);
      if (bytes[next] !== COMMA) throw NO_LAYOUT;
      next = skipSpace(bytes, next + 1);
    }
  }

  #end(close: number): void {
    if (skipSpace(this.bytes, close + 1) !== this.bytes.length) throw NO_LAYOUT;
  }
}

/** The layout of a body that parsed as JSON, or undefined (not an object, a member named twice…). */
export async function bodyLayout(
  bytes: Uint8Array,
  listKey: string,
  maxDepth: number,
  slices: WorkSlices,
): Promise<BodyLayout | undefined> {
  const scanner = new Scanner(bytes, maxDepth, slices);
  const layout: BodyLayout = { members: [], list: -1, items: [] };
  try {
    const open = skipSpace(bytes, 0);
    if (bytes[open] !== OPEN_OBJECT) return undefined;
    await scanner.membersFrom(open + 1, layout, listKey, false);
    return layout;
  } catch (error) {
    if (error === NO_LAYOUT) return undefined;
    throw error;
  }
}

/**
 * The layout of `bytes`, which are `previous`'s body's bytes up to the end of its list's `kept`-th
 * element (kept ≥ 1) and go on from there in their own way: the members before the list and the first
 * `kept` elements are the previous layout's, the rest is scanned. Undefined when the bytes do not go on
 * as a body does.
 */
export async function continueLayout(
  bytes: Uint8Array,
  previous: BodyLayout,
  kept: number,
  listKey: string,
  maxDepth: number,
  slices: WorkSlices,
): Promise<BodyLayout | undefined> {
  const list = previous.members[previous.list];
  if (list === undefined || kept < 1 || kept * 2 > previous.items.length) return undefined;
  const scanner = new Scanner(bytes, maxDepth, slices);
  const layout: BodyLayout = {
    members: previous.members.slice(0, previous.list),
    list: previous.list,
    items: previous.items.slice(0, kept * 2),
  };
  try {
    const end = await scanner.listFrom(previous.items[kept * 2 - 1] as number, layout.items, true);
    layout.members.push({ key: list.key, start: list.start, end });
    await scanner.membersFrom(end, layout, listKey, true);
    return layout;
  } catch (error) {
    if (error === NO_LAYOUT) return undefined;
    throw error;
  }
}
