import { CorruptSessionError } from '../core/errors/index.ts';
import type { SessionStore } from '../store/session-store.ts';
import { encodeLastRequest, type StoredLastRequest } from '../store/stored-last-request.ts';
import type { PrepareRequest } from './call-context.ts';

/** Stands for a stored last request the store could not read: equal to no request's text. */
export const UNREADABLE_LAST_REQUEST = '';

/**
 * What the session store holds of a session's last request, as this manager last read or wrote it, so
 * that a call repeating the last one's system prompt and tools (nearly every call) costs no write, and
 * `refresh` can tell when another process recorded a different one.
 */
export class LastRequestRecord {
  /** The stored JSON text; null when the store holds none, `UNREADABLE_LAST_REQUEST` when it is damaged. */
  #stored: string | null = null;
  /** The text of the request last encoded, with the values it came from (compared by identity). */
  #encoded: { request: PrepareRequest; text: string } | undefined;

  get stored(): string | null {
    return this.#stored;
  }

  /** The store holds `text` for the session now (read from it, or just written). */
  noteStored(text: string | null): void {
    this.#stored = text;
  }

  /** The text a store keeps for this request (see `encodeLastRequest`), encoded again only when it changed. */
  textOf(sessionId: string, request: PrepareRequest): string {
    const held = this.#encoded;
    if (held && sameFields(held.request, request)) return held.text;
    const text = encodeLastRequest(sessionId, request);
    this.#encoded = { request: { ...request }, text };
    return text;
  }
}

/**
 * The session's stored last request, and its text: `{ stored: null }` when it has none. One the store
 * could not read (`CorruptSessionError`) is taken as none, marked unreadable so the next call writes over
 * it: it is what the last call said, not part of the session's record, and must not lock the session.
 */
export async function readLastRequest(
  store: SessionStore,
  sessionId: string,
): Promise<{ request?: StoredLastRequest; stored: string | null }> {
  let request: StoredLastRequest | undefined;
  try {
    request = await store.loadLastRequest(sessionId);
  } catch (error) {
    if (CorruptSessionError.isInstance(error)) return { stored: UNREADABLE_LAST_REQUEST };
    throw error;
  }
  if (request === undefined) return { stored: null };
  return { request, stored: encodeLastRequest(sessionId, request) };
}

/**
 * Records the session's last request in the store when it differs from what the store holds (as this
 * manager last saw it). A session with no row yet gets none; the next call tries again.
 */
export async function keepLastRequest(
  store: SessionStore,
  sessionId: string,
  record: LastRequestRecord,
  request: PrepareRequest | undefined,
): Promise<void> {
  if (request === undefined) return;
  const text = record.textOf(sessionId, request);
  if (text === record.stored) return;
  if (await store.setLastRequest(sessionId, request)) record.noteStored(text);
}

function sameFields(a: PrepareRequest, b: PrepareRequest): boolean {
  return (
    a.system === b.system &&
    a.tools === b.tools &&
    a.model === b.model &&
    a.contextWindow === b.contextWindow &&
    a.maxOutputTokens === b.maxOutputTokens
  );
}
