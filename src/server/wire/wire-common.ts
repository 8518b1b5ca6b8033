/** Pieces both wire formats share. */

import type { z } from 'zod';
import type { MessageDraft } from '../../adapters/finish-transcript.ts';
import { InvalidInputError } from '../../core/errors/index.ts';
import type { MessageInput, Part, ToolCallPart } from '../../core/message.ts';
import { assignStableIdsInSlices, contentId } from '../../core/stable-id.ts';
import { mapInSlices, WorkSlices } from '../../core/work-slices.ts';
import { idPositions } from '../id-positions.ts';
import type { ReadReply } from './wire-format.ts';
import { WireRequestError } from './wire-format.ts';

/**
 * Splits an answer into what the client sees and ctxkit's own read-back calls (`ownTool`: the name of
 * ctxkit's tool in this request; undefined when the client has a tool of that name, whose calls are its).
 */
export function splitReadCalls(full: MessageInput, ownTool: string | undefined): ReadReply {
  const readCalls: ToolCallPart[] = [];
  let clientCalls = 0;
  const parts = full.parts.filter((part) => {
    if (part.type !== 'tool-call') return true;
    if (ownTool !== undefined && part.name === ownTool) {
      readCalls.push(part);
      return false;
    }
    clientCalls += 1;
    return true;
  });
  return { full, visible: { ...full, parts }, readCalls, clientCalls };
}

/** An InvalidInputError from the converters, as a request error naming the same field. */
export function asWireRequestError(error: unknown): unknown {
  if (InvalidInputError.isInstance(error)) {
    const invalid = error as InvalidInputError;
    const reason = invalid.details.reason;
    return new WireRequestError(typeof reason === 'string' ? reason : invalid.message, invalid.field);
  }
  return error;
}

/** A positive integer field of the body, or undefined; anything else is a request error naming it. */
export function positiveIntegerField(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new WireRequestError('must be a positive integer', field);
  return value;
}

/** A request body read by its format's schema; the first problem is a request error naming its field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new WireRequestError(issue?.message ?? 'invalid body', fieldOfPath(issue?.path ?? []) || undefined);
}

/** The zod issue path as the client wrote it: `messages[2].content`. */
export function fieldOfPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** The content id a message appended after `ids` gets (its content id, numbered after earlier equal ones). */
export function nextStableId(ids: readonly string[], message: MessageInput): string {
  const used = new Set(ids);
  const base = contentId(message);
  let id = base;
  for (let occurrence = 2; used.has(id); occurrence++) id = `${base}_${occurrence}`;
  return id;
}

/**
 * Drafts as the history to sync, with the content id `sync` will give each message; in slices, so a
 * history of many thousand messages does not hold the thread.
 */
export async function historyWithIdsInSlices(
  drafts: readonly MessageDraft[],
  slices: WorkSlices = new WorkSlices(),
): Promise<{ history: MessageInput[]; ids: string[] }> {
  const history: MessageInput[] = await mapInSlices(
    drafts,
    (draft) => ({ role: draft.role, parts: draft.parts, meta: draft.meta ?? {} }),
    slices,
  );
  return { history, ids: (await assignStableIdsInSlices(history, slices)).map((message) => message.id) };
}

/** The first history index whose message came from wire message `wireIndex` or a later one. */
export function firstOriginFrom(origin: readonly number[], wireIndex: number): number {
  let low = 0;
  let high = origin.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((origin[middle] as number) < wireIndex) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The history of a request that keeps `previous`'s first `kept` messages and adds `drafts`, with the
 * ids `historyWithIdsInSlices` gives the whole of it: only the added messages are hashed, each numbered
 * after the kept messages of the same content.
 */
export async function continueHistoryInSlices(
  previous: { history: readonly MessageInput[]; ids: readonly string[] },
  kept: number,
  drafts: readonly MessageDraft[],
  slices: WorkSlices = new WorkSlices(),
): Promise<{ history: MessageInput[]; ids: string[] }> {
  const added = await mapInSlices(
    drafts,
    (draft) => ({ role: draft.role, parts: draft.parts, meta: draft.meta ?? {} }),
    slices,
  );
  const keptIds = idPositions(previous.ids);
  const taken = new Set<string>();
  const isTaken = (id: string) => {
    const at = keptIds.get(id);
    return (at !== undefined && at < kept) || taken.has(id);
  };
  const addedIds = await mapInSlices(
    added,
    (message) => {
      // Without ids of their own, the n-th message of one content is `base_n`: the first number free.
      const base = contentId(message);
      let id = base;
      for (let occurrence = 2; isTaken(id); occurrence++) id = `${base}_${occurrence}`;
      taken.add(id);
      return id;
    },
    slices,
  );
  const history = previous.history.slice(0, kept);
  const ids = previous.ids.slice(0, kept);
  for (let index = 0; index < added.length; index++) {
    history.push(added[index] as MessageInput);
    ids.push(addedIds[index] as string);
  }
  return { history, ids };
}

/**
 * `recoverToolNames` for the drafts from `from` on, the ones before already recovered: each result
 * without a name takes the name of the call it answers, found walking back from it. Walking back, a
 * result with the same call id met first took the nearest call before it (calls are answered newest
 * first), so each such result passes over one call, as `pairToolCalls` pairs them going forward.
 */
export function recoverToolNamesFrom(drafts: readonly MessageDraft[], from: number): void {
  for (let index = from; index < drafts.length; index++) {
    const parts = (drafts[index] as MessageDraft).parts;
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex] as Part;
      if (part.type !== 'tool-result' || part.name !== '') continue;
      const name = answeredCallName(drafts, index, partIndex, part.callId);
      if (name !== undefined) part.name = name;
    }
  }
}

/** The name of the call the result at `drafts[index].parts[partIndex]` answers, or undefined. */
function answeredCallName(
  drafts: readonly MessageDraft[],
  index: number,
  partIndex: number,
  callId: string,
): string | undefined {
  let passed = 0;
  for (let message = index; message >= 0; message--) {
    const parts = (drafts[message] as MessageDraft).parts;
    for (let at = message === index ? partIndex - 1 : parts.length - 1; at >= 0; at--) {
      const part = parts[at] as Part;
      if (part.type === 'tool-result' && part.callId === callId) passed++;
      else if (part.type === 'tool-call' && part.callId === callId) {
        if (passed > 0) passed--;
        // `recoverToolNames` names a result after the first call of that id in the call's message.
        else return firstCallName(parts, callId);
      }
    }
  }
  return undefined;
}

function firstCallName(parts: readonly Part[], callId: string): string | undefined {
  for (const part of parts) if (part.type === 'tool-call' && part.callId === callId) return part.name;
  return undefined;
}
