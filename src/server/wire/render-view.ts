/**
 * Writes the prepared view back in the client's own wire messages. A message ctxkit left as it was is
 * sent exactly as the client sent it (its `cache_control`, `name` and any field ctxkit does not model
 * kept byte for byte); what ctxkit changed (a cleared or offloaded result, a summary, a dropped turn's
 * reminder) is converted from ctxkit's form.
 *
 * A view message is the client's when it has the id `sync` gave that client message (its content id)
 * and the same parts: an edit keeps the id but changes the parts.
 */
import type { Message, MessageInput } from '../../core/message.ts';
import { idPositions } from '../id-positions.ts';
import { RawJson } from './raw-json.ts';

export interface ViewSource {
  history: readonly MessageInput[];
  /** The content id of each history message (as `sync` assigns them). */
  ids: readonly string[];
  origin: readonly number[];
  wire: readonly unknown[];
}

/**
 * `convert` turns a run of changed messages into wire messages; the result is the client's messages
 * where the view kept them whole (`verbatim` of the index in `source.wire`, by default the wire message
 * itself), converted runs between them.
 */
export function renderView<W>(
  view: readonly Message[],
  source: ViewSource,
  convert: (run: Message[]) => W[],
  verbatim: (wireIndex: number) => W = (wireIndex) => source.wire[wireIndex] as W,
): W[] {
  const indexOfId = idPositions(source.ids);
  /** The history index each view message is, unchanged; -1 when ctxkit changed or added it. */
  const unchanged = view.map((message) => {
    const index = indexOfId.get(message.id);
    if (index === undefined) return -1;
    const original = source.history[index] as MessageInput;
    return original.role === message.role && deepEqual(original.parts, message.parts) ? index : -1;
  });

  const out: W[] = [];
  let run: Message[] = [];
  const flush = () => {
    if (run.length > 0) for (const message of convert(run)) out.push(message);
    run = [];
  };
  for (let position = 0; position < view.length; ) {
    const index = unchanged[position] ?? -1;
    const size = index < 0 ? 0 : wholeGroupAt(source.origin, unchanged, position, index);
    if (size > 0) {
      flush();
      out.push(verbatim(source.origin[index] as number));
      position += size;
    } else {
      run.push(view[position] as Message);
      position += 1;
    }
  }
  flush();
  return out;
}

/**
 * `convert` remembered per run of view messages (the view keeps its changed messages from call to call:
 * a summary, a cleared result), each output kept as its JSON bytes too, so a run converted before is
 * neither converted nor serialized again. `memo` is the format's own (a run converts alike every time).
 * What it gives must not be changed in place: a step that changes one replaces it with a changed copy.
 */
export function rememberedRuns(
  memo: WeakMap<Message, { run: readonly Message[]; out: RawJson[] }>,
  convert: (run: Message[]) => unknown[],
): (run: Message[]) => RawJson[] {
  return (run) => {
    const first = run[0] as Message;
    const known = memo.get(first);
    if (
      known &&
      known.run.length === run.length &&
      known.run.every((message, index) => message === run[index])
    )
      return known.out;
    const out = convert(run).map((value) => {
      const bytes = Buffer.from(JSON.stringify(value));
      return new RawJson(bytes, 0, bytes.byteLength, value);
    });
    memo.set(first, { run: [...run], out });
    return out;
  };
}

/**
 * When the view holds every message that came from one client message, in order and unchanged, from
 * `position` on: how many view messages that is; else 0.
 */
function wholeGroupAt(
  origin: readonly number[],
  verbatim: readonly number[],
  position: number,
  index: number,
): number {
  const wire = origin[index];
  if (index > 0 && origin[index - 1] === wire) return 0;
  let size = 0;
  while (origin[index + size] === wire) {
    if (verbatim[position + size] !== index + size) return 0;
    size += 1;
  }
  return size;
}

/** Structural equality of JSON values; object key order does not matter (stores may reorder keys). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!deepEqual(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  if (keys.length !== Object.keys(right).filter((key) => right[key] !== undefined).length) return false;
  for (const key of keys) if (!deepEqual(left[key], right[key])) return false;
  return true;
}
