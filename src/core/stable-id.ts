/**
 * Content-derived message ids: a message that arrives without an id gets one computed from what it
 * says, so the same history sent twice (the proxy sees the whole conversation on every call) maps
 * onto the messages already in the log.
 */
import { hash } from 'node:crypto';
import type { MessageInput, Part } from './message.ts';
import { mapInSlices, WorkSlices } from './work-slices.ts';

export const STABLE_ID_PREFIX = 'm_';
/** 16 hex digits = 64 bits: collisions within one session are not a practical concern. */
export const STABLE_ID_HEX_LENGTH = 16;

export type StableIdSource = Pick<MessageInput, 'role' | 'parts' | 'meta'>;

/**
 * What a message's identity is made of: role, kind and parts. Not seq (position is handled by the
 * occurrence suffix), not meta timestamps/model/visibility, not usage: they describe the recording,
 * not the message. `kind` is in, because a system note and a user message with the same text are
 * different messages.
 */
function identityOf(message: StableIdSource): unknown {
  const kind = message.meta?.kind;
  return {
    role: message.role,
    kind: kind === undefined || kind === 'message' ? undefined : kind,
    parts: message.parts.map(identityOfPart),
  };
}

function identityOfPart(part: Part): unknown {
  switch (part.type) {
    case 'tool-call':
      // Argument text is compared as JSON when it is JSON: `{"a": 1}` and `{"a":1}` are the same
      // call, and formats that carry arguments as objects (Anthropic) re-serialize them.
      return { ...part, args: parseJsonOrKeep(part.args) };
    case 'tool-result': {
      // The tool name is not carried by OpenAI or corpus results; it is recovered from the matching
      // call, so it depends on the surrounding history and must not change the id.
      const { name: _name, ...rest } = part;
      return rest;
    }
    default:
      return part;
  }
}

function parseJsonOrKeep(text: string): unknown {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { raw: text };
  }
}

/** The id a message gets from its content alone: `m_` + 16 hex of sha256 over its canonical form. */
export function contentId(message: StableIdSource): string {
  // One-shot `hash` rather than `createHash(…).update(…).digest(…)`: a proxy hashes every message of every
  // request, and the hash object's set-up cost more than the hashing of a short message.
  const digest = hash('sha256', canonicalText(identityOf(message)), 'hex');
  return `${STABLE_ID_PREFIX}${digest.slice(0, STABLE_ID_HEX_LENGTH)}`;
}

/**
 * A value written so that equal JSON values (whatever their key order) write the same text and different
 * ones never do: strings raw with their length before them, keys sorted. Twice as fast as canonical JSON
 * on long tool output (no escaping), which a proxy pays for every message of every request. Built by
 * concatenation: V8 joins the pieces once, when the text is hashed.
 */
function canonicalText(value: unknown): string {
  if (typeof value === 'string') return `s${value.length}:${value}`;
  if (typeof value === 'boolean') return value ? 'vtrue;' : 'vfalse;';
  if (value === null || typeof value !== 'object') return `v${JSON.stringify(value) ?? 'null'};`;
  if (Array.isArray(value)) {
    let out = `[${value.length}:`;
    for (const item of value) out += canonicalText(item);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  // Sorted in place, members without a value skipped as they are written: no second array per object
  // (a proxy writes every part of every message it is sent).
  const keys = Object.keys(record).sort();
  let members = 0;
  let body = '';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined || typeof member === 'function') continue;
    members++;
    body += `${key.length}:${key}${canonicalText(member)}`;
  }
  return `{${members}:${body}}`;
}

/**
 * Gives every message without an id its stable id: `contentId` for the first occurrence of that
 * content in the list, `contentId_2`, `contentId_3`… for later ones. Re-sending the same history yields
 * the same ids; dropping an earlier, different message does not change later ids. Messages that already
 * have an id keep it, and a generated id never duplicates one already in the list.
 */
export function assignStableIds<T extends StableIdSource & { id?: string | undefined }>(
  messages: readonly T[],
): Array<T & { id: string }> {
  const numbering = new StableIdNumbering(messages);
  return messages.map((message) => numbering.assign(message));
}

/** `assignStableIds` in slices, the event loop getting turns between them (a request of a million messages). */
export async function assignStableIdsInSlices<T extends StableIdSource & { id?: string | undefined }>(
  messages: readonly T[],
  slices: WorkSlices = new WorkSlices(),
): Promise<Array<T & { id: string }>> {
  const numbering = new StableIdNumbering(messages);
  return mapInSlices(messages, (message) => numbering.assign(message), slices);
}

/** The ids already given and how often each content came, as `assignStableIds` goes down the list. */
class StableIdNumbering {
  readonly #used = new Set<string>();
  readonly #nextOccurrence = new Map<string, number>();

  constructor(messages: readonly { id?: string | undefined }[]) {
    for (const message of messages) if (message.id) this.#used.add(message.id);
  }

  assign<T extends StableIdSource & { id?: string | undefined }>(message: T): T & { id: string } {
    if (message.id) return message as T & { id: string };
    const base = contentId(message);
    let occurrence = this.#nextOccurrence.get(base) ?? 1;
    let id = occurrence === 1 ? base : `${base}_${occurrence}`;
    while (this.#used.has(id)) {
      occurrence += 1;
      id = `${base}_${occurrence}`;
    }
    this.#nextOccurrence.set(base, occurrence + 1);
    this.#used.add(id);
    return { ...message, id };
  }
}
