/**
 * An upstream body made of the client's own bytes wherever ctxkit left a value as it came: a message
 * the view kept, a top-level member such as `tools` or `system`. Only what ctxkit wrote is serialized,
 * so a request costs in proportion to what changed in it, not to its whole history (the whole body's
 * `JSON.stringify` and its UTF-8 encoding were most of what a request cost).
 */
import { defineMember } from '../../core/define-member.ts';
import type { WireRequest } from './wire-format.ts';

/** A value the client sent, as its bytes (`source[start, end)`, valid UTF-8 JSON) and as parsed. */
export class RawJson {
  readonly source: Uint8Array;
  readonly start: number;
  readonly end: number;
  readonly value: unknown;

  constructor(source: Uint8Array, start: number, end: number, value: unknown) {
    this.source = source;
    this.start = start;
    this.end = end;
    this.value = value;
  }

  get bytes(): Uint8Array {
    return this.source.subarray(this.start, this.end);
  }

  /** `JSON.stringify` of a body holding one writes the value (a test, a hook reading the body). */
  toJSON(): unknown {
    return this.value;
  }
}

/**
 * The body as UTF-8 JSON, in pieces (`chunks`, `length` bytes in all): a member or an element of a
 * top-level array that is a `RawJson` is written as its bytes, anything else as `JSON.stringify` writes
 * it (members whose value is undefined or a function left out, such elements written `null`). Elements
 * that lie one after the other in the client's bytes (a run of kept messages) are one piece, the client's
 * separators between them. The pieces are the client's own bytes where they can be: nothing is copied.
 */
export function bodyChunks(body: Readonly<Record<string, unknown>>): {
  chunks: Uint8Array[];
  length: number;
} {
  const out = new BodyChunks();
  out.text('{');
  let first = true;
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    out.text(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (value instanceof RawJson) out.raw(value, false);
    else if (Array.isArray(value)) {
      out.text('[');
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (item instanceof RawJson) out.raw(item, index > 0);
        else out.text(`${index > 0 ? ',' : ''}${JSON.stringify(item) ?? 'null'}`);
      }
      out.text(']');
    } else out.text(JSON.stringify(value));
  }
  out.text('}');
  return out.done();
}

/** `bodyChunks` as one buffer. */
export function serializeBody(body: Readonly<Record<string, unknown>>): Buffer {
  const { chunks, length } = bodyChunks(body);
  return Buffer.concat(chunks, length);
}

/**
 * The pieces of a body: text to encode, and runs of the client's bytes. Text that is what the client's
 * bytes hold between two of its values (its keys and commas, written as ctxkit writes them) joins the
 * run around it, so a body ctxkit left as it was goes as the client's bytes, one piece.
 */
class BodyChunks {
  readonly #chunks: Uint8Array[] = [];
  /** Text written since the last piece (after the pending run, when there is one). */
  #text = '';
  /** The run of client bytes not yet added: `#runOf[#runStart, #runEnd)`. */
  #runOf: Uint8Array | undefined;
  #runStart = 0;
  #runEnd = 0;

  text(text: string): void {
    this.#text += text;
  }

  /** Client bytes; `afterComma`: an element after another, so a comma goes between. */
  raw(value: RawJson, afterComma: boolean): void {
    const { source, start, end } = value;
    const between = afterComma ? `${this.#text},` : this.#text;
    if (
      this.#runOf === source &&
      (holds(source, this.#runEnd, start, between) ||
        (between === ',' && onlySeparator(source, this.#runEnd, start)))
    ) {
      this.#runEnd = end;
      this.#text = '';
      return;
    }
    this.#flushRun();
    let from = start;
    if (holds(source, start - between.length, start, between)) from = start - between.length;
    else if (between !== '') this.#chunks.push(Buffer.from(between));
    this.#text = '';
    this.#runOf = source;
    this.#runStart = from;
    this.#runEnd = end;
  }

  done(): { chunks: Uint8Array[]; length: number } {
    const source = this.#runOf;
    if (source !== undefined && holds(source, this.#runEnd, this.#runEnd + this.#text.length, this.#text)) {
      this.#runEnd += this.#text.length;
      this.#text = '';
    }
    this.#flushRun();
    if (this.#text !== '') this.#chunks.push(Buffer.from(this.#text));
    this.#text = '';
    let length = 0;
    for (const chunk of this.#chunks) length += chunk.byteLength;
    return { chunks: this.#chunks, length };
  }

  /** The pending run as a piece (the text written after it is still to come). */
  #flushRun(): void {
    if (this.#runOf === undefined) return;
    this.#chunks.push(this.#runOf.subarray(this.#runStart, this.#runEnd));
    this.#runOf = undefined;
  }
}

/** Longest text compared with the client's bytes between two values (keys and commas are short). */
const MAX_JOINED_TEXT = 256;

/** `bytes[from, to)` is `text`, ASCII (so its bytes are its char codes). */
function holds(bytes: Uint8Array, from: number, to: number, text: string): boolean {
  if (to - from !== text.length || from < 0 || to > bytes.length || text.length > MAX_JOINED_TEXT)
    return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f || bytes[from + index] !== code) return false;
  }
  return true;
}

/** `bytes[from, to)` is JSON whitespace around exactly one comma. */
function onlySeparator(bytes: Uint8Array, from: number, to: number): boolean {
  let commas = 0;
  for (let at = from; at < to; at++) {
    const byte = bytes[at];
    if (byte === 0x2c) commas++;
    else if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  }
  return commas === 1;
}

/**
 * The client's body members (in the order of its parsed body): each as its bytes when the request has
 * them (`raw`), else as parsed. A format overrides the members it changes.
 */
export function clientMembers(request: WireRequest): Record<string, unknown> {
  const { raw } = request;
  if (raw === undefined) return { ...request.body };
  const ranges = new Map(raw.layout.members.map((member) => [member.key, member]));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(request.body)) {
    const range = ranges.get(key);
    const value = request.body[key];
    defineMember(out, key, range ? new RawJson(raw.bytes, range.start, range.end, value) : value);
  }
  return out;
}

/** Item `index` of the client's list (its `messages`), as its bytes when the request has them. */
export function clientListItem(request: WireRequest, index: number, value: unknown): unknown {
  const items = request.raw?.layout.items;
  const start = items?.[index * 2];
  const end = items?.[index * 2 + 1];
  if (request.raw === undefined || start === undefined || end === undefined) return value;
  return new RawJson(request.raw.bytes, start, end, value);
}

/**
 * A body item as parsed, whether it is the client's bytes (`RawJson`) or a value ctxkit wrote: what a
 * step that changes a few items of a rendered body reads (it replaces those items with changed copies,
 * and leaves the others as they are, bytes).
 */
export function parsedValue(item: unknown): unknown {
  return item instanceof RawJson ? item.value : item;
}
