/**
 * A model call's body, read as the proxy's routes take it, in proportion to what is new in it.
 *
 * A client resends its whole history on every call: the body is the one before, with a few messages
 * more. The last bodies are kept (their bytes, where each message lies in them, what they parsed to);
 * a body whose bytes begin as a kept one's do, through the end of some of its messages, reuses those
 * messages as they were parsed and read, and only the bytes after them are scanned, parsed (and then
 * read, hashed and counted by the format). Anything else, or anything unexpected on that way (a byte
 * that differs earlier, bytes after the object, a value nested too deep, what is not UTF-8, what does
 * not parse), goes the whole way: the body decoded and parsed whole, in slices (`parseJsonInSlices`),
 * nested no deeper than `MAX_JSON_DEPTH`, its refusals the status and message the client gets.
 */
import { isUtf8 } from 'node:buffer';
import { hash } from 'node:crypto';
import { defineMember } from '../core/define-member.ts';
import { isRecord } from '../core/is-record.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { parseJsonInSlices } from './parse-json-in-slices.ts';
import { MAX_JSON_DEPTH } from './read-body.ts';
import { type BodyLayout, bodyLayout, continueLayout } from './wire/body-layout.ts';
import type { WireFormat, WireRequest } from './wire/wire-format.ts';

/**
 * Memory kept for the calls after: bodies' bytes and what they parsed to (see `keptSize`). A body is
 * kept for its conversation's next call; more than the conversations in flight need only holds memory
 * that the collector walks again and again.
 */
export const DEFAULT_KEPT_BODY_BYTES = 64 * 1024 * 1024;
/** What one kept message costs beyond its bytes (its parsed wire message, its history entry, its id). */
const KEPT_BYTES_PER_ITEM = 1024;
/** Kept bodies that begin alike (the same owner, format and session header, the same first bytes). */
const KEPT_PER_KEY = 4;
/** The first bytes of a body that choose which kept bodies it is compared with. */
const KEY_BYTES = 1024;
/** Bytes decoded at once (32 MiB decoded at once held the thread for tens of milliseconds). */
const DECODED_AT_ONCE = 1 << 20;

export type ReadBody =
  | {
      ok: true;
      body: unknown;
      bytes: Uint8Array;
      /** Where the body's parts lie; undefined when it has no layout (then nothing of it is reused). */
      layout: BodyLayout | undefined;
      /** The kept request whose first `kept` list items this body begins with, byte for byte. */
      continues?: { previous: WireRequest; kept: number };
    }
  | { ok: false; status: 400; message: string; field?: string };

interface Kept {
  bytes: Uint8Array;
  layout: BodyLayout;
  /** The body as parsed (before the format read it). */
  values: Record<string, unknown>;
  request: WireRequest;
}

export class RequestBodies {
  readonly #maxBytes: number;
  /** By key, most recent first; the map in the order keys were last used. */
  readonly #kept = new Map<string, Kept[]>();
  #bytes = 0;

  constructor(maxBytes = DEFAULT_KEPT_BODY_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** What chooses the kept bodies a body is compared with: who sent it, where, under which session name. */
  keyOf(owner: string, format: WireFormat, session: string | undefined, bytes: Uint8Array): string {
    const head = hash('sha1', bytes.subarray(0, KEY_BYTES), 'base64');
    return `${owner}\n${format.name}\n${session ?? ''}\n${head}`;
  }

  async read(bytes: Uint8Array, key: string, format: WireFormat): Promise<ReadBody> {
    const slices = new WorkSlices();
    const continued = await this.#continued(bytes, key, format, slices);
    if (continued) return continued;
    let text: string;
    let parsed: Awaited<ReturnType<typeof parseJsonInSlices>>;
    try {
      text = await decodeInSlices(bytes, slices);
      parsed = await parseJsonInSlices(text, { slices });
    } catch (error) {
      return { ok: false, status: 400, message: `the request body is not JSON: ${(error as Error).message}` };
    }
    if ('tooDeep' in parsed)
      return {
        ok: false,
        status: 400,
        message: `${parsed.tooDeep}: nested deeper than ${MAX_JSON_DEPTH} levels`,
        field: parsed.tooDeep,
      };
    const body = parsed.value;
    let layout: BodyLayout | undefined;
    if (isRecord(body) && isUtf8(bytes)) {
      layout = await bodyLayout(bytes, format.listMember, MAX_JSON_DEPTH, slices);
      if (layout && !fits(layout, body, format.listMember)) layout = undefined;
    }
    return { ok: true, body, bytes, layout };
  }

  /** Keeps a request read from a body with a layout, for the calls after. */
  keep(key: string, read: ReadBody, request: WireRequest): void {
    if (!read.ok || read.layout === undefined || !isRecord(read.body)) return;
    // A body larger than a quarter of the bound is read whole each time (a hostile one, a million
    // messages): kept, it would hold its history's memory after its session is unloaded.
    if (keptSize(read.bytes, read.layout) > this.#maxBytes / 4) return;
    const kept: Kept = { bytes: read.bytes, layout: read.layout, values: read.body, request };
    const before = this.#kept.get(key) ?? [];
    // The body it continued is the same conversation a call earlier: this one takes its place.
    const others = before.filter(
      (other) => other.request !== read.continues?.previous && other.bytes !== read.bytes,
    );
    const list = [kept, ...others].slice(0, KEPT_PER_KEY);
    this.#bytes += sizeOf(list) - sizeOf(before);
    this.#kept.delete(key);
    this.#kept.set(key, list);
    for (const [oldest, entries] of this.#kept) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#kept.delete(oldest);
      this.#bytes -= sizeOf(entries);
    }
  }

  /** Bytes kept now (each body's twice). */
  get keptBytes(): number {
    return this.#bytes;
  }

  async #continued(
    bytes: Uint8Array,
    key: string,
    format: WireFormat,
    slices: WorkSlices,
  ): Promise<ReadBody | undefined> {
    let best: Kept | undefined;
    let kept = 0;
    for (const candidate of this.#kept.get(key) ?? []) {
      const items = keptItems(bytes, candidate);
      if (items > kept) {
        best = candidate;
        kept = items;
      }
    }
    if (best === undefined) return undefined;
    const listKey = format.listMember;
    const layout = await continueLayout(bytes, best.layout, kept, listKey, MAX_JSON_DEPTH, slices);
    if (layout === undefined) return undefined;
    const from = best.layout.items[kept * 2 - 1] as number;
    if (!isUtf8(bytes.subarray(from))) return undefined;
    const previousList = best.values[listKey] as unknown[];
    const values: Record<string, unknown> = {};
    try {
      for (const [index, member] of layout.members.entries()) {
        let value: unknown;
        if (index < layout.list) value = best.values[member.key];
        else if (index === layout.list) {
          const list = previousList.slice(0, kept);
          for (let item = kept; item * 2 < layout.items.length; item++)
            list.push(
              await parsePart(
                bytes,
                layout.items[item * 2] as number,
                layout.items[item * 2 + 1] as number,
                2,
                slices,
              ),
            );
          value = list;
        } else value = await parsePart(bytes, member.start, member.end, 1, slices);
        defineMember(values, member.key, value);
      }
    } catch (error) {
      if (error === NOT_PARSED) return undefined;
      throw error;
    }
    return { ok: true, body: values, bytes, layout, continues: { previous: best.request, kept } };
  }
}

/**
 * The request, read only after the messages it shares with the one it continues when it does (any
 * doubt there, a request error included, and it is read whole, which says what is wrong as it would).
 */
export async function readWireRequest(
  format: WireFormat,
  read: Extract<ReadBody, { ok: true }>,
): Promise<WireRequest> {
  let request: WireRequest | undefined;
  if (read.continues && format.parseRequestAfter)
    try {
      request = await format.parseRequestAfter(read.body, read.continues.previous, read.continues.kept);
    } catch {
      request = undefined;
    }
  request ??= await format.parseRequest(read.body);
  if (read.layout) request.raw = { bytes: read.bytes, layout: read.layout };
  return request;
}

/** Thrown (not an error: a way out) for a part that does not parse or nests too deep: the whole body is parsed instead. */
const NOT_PARSED: unique symbol = Symbol('not parsed');

/** The value of `bytes[start, end)`, nested at `depth` in the body. */
async function parsePart(
  bytes: Uint8Array,
  start: number,
  end: number,
  depth: number,
  slices: WorkSlices,
): Promise<unknown> {
  try {
    const text = await decodeInSlices(bytes.subarray(start, end), slices);
    const parsed = await parseJsonInSlices(text, { maxDepth: MAX_JSON_DEPTH - depth, slices });
    if ('tooDeep' in parsed) throw NOT_PARSED;
    return parsed.value;
  } catch (error) {
    if (error instanceof SyntaxError) throw NOT_PARSED;
    throw error;
  }
}

/** How many of `kept`'s list items `bytes` begins with, byte for byte (through the item's last byte). */
function keptItems(bytes: Uint8Array, kept: Kept): number {
  const { items } = kept.layout;
  const same = commonPrefix(bytes, kept.bytes);
  // The items whose last byte lies within what both share: the largest count whose end fits, by halving.
  let low = 0;
  let high = items.length / 2;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((items[middle * 2 - 1] as number) <= same) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Bytes compared at once while two bodies are the same. */
const COMPARED_AT_ONCE = 1 << 16;

/**
 * How many bytes `a` and `b` share from their start: compared a block at a time up to the first block
 * that differs, then within it by halving, so the work is in proportion to what they share.
 */
function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  const limit = Math.min(a.byteLength, b.byteLength);
  const equal = (from: number, to: number) =>
    Buffer.compare(a.subarray(from, to), b.subarray(from, to)) === 0;
  for (let at = 0; at < limit; at += COMPARED_AT_ONCE) {
    let high = Math.min(limit, at + COMPARED_AT_ONCE);
    if (equal(at, high)) continue;
    let low = at;
    while (high - low > 64) {
      const middle = (low + high) >> 1;
      if (equal(low, middle)) low = middle;
      else high = middle;
    }
    while (low < high && a[low] === b[low]) low++;
    return low;
  }
  return limit;
}

/** The layout agrees with what the body parsed to (its members in order, its list's length). */
function fits(layout: BodyLayout, body: Record<string, unknown>, listKey: string): boolean {
  const keys = Object.keys(body);
  if (keys.length !== layout.members.length) return false;
  if (!layout.members.every((member, index) => member.key === keys[index])) return false;
  const list = body[listKey];
  return layout.list === -1
    ? !Array.isArray(list)
    : Array.isArray(list) && list.length * 2 === layout.items.length;
}

async function decodeInSlices(bytes: Uint8Array, slices: WorkSlices): Promise<string> {
  if (bytes.byteLength <= DECODED_AT_ONCE) return new TextDecoder().decode(bytes);
  const decoder = new TextDecoder();
  let text = '';
  for (let at = 0; at < bytes.byteLength; at += DECODED_AT_ONCE) {
    text += decoder.decode(bytes.subarray(at, at + DECODED_AT_ONCE), { stream: true });
    if (slices.due()) await slices.next();
  }
  return text + decoder.decode();
}

function keptSize(bytes: Uint8Array, layout: BodyLayout): number {
  return bytes.byteLength * 2 + (layout.items.length / 2) * KEPT_BYTES_PER_ITEM;
}

function sizeOf(entries: readonly Kept[]): number {
  return entries.reduce((sum, entry) => sum + keptSize(entry.bytes, entry.layout), 0);
}
