/**
 * Finds the session of a request. A client that names one (`x-ctxkit-session`) gets it. Otherwise the
 * conversation is recognized: a request continues a session whose whole conversation (as last recorded:
 * the history its last request sent) it begins with, while no other request is on it (in this process,
 * or in any instance sharing its session locks). Of several (the same conversation sent again, as a
 * re-run against a deterministic model does), the one recorded last is continued: a re-run's own
 * session, not the first run's, which the re-run passes on its way. Anything
 * else (a new conversation, one edited or forked from an earlier point, or a second request on a
 * conversation already being answered) gets a new session that starts from the client's history, so two
 * conversations never share a session.
 *
 * Session ids in the store are the owner's digest and the public id, so a session is reachable only by
 * the owner that made it, whatever id another one sends.
 */
import { randomBytes } from 'node:crypto';
import { CtxkitError, type ErrorCode } from '../core/errors/index.ts';
import { idProblem } from '../core/session-id.ts';
import {
  type ConversationHead,
  type ConversationIndex,
  continueConversationHashesInSlices,
  continuesHead,
  conversationRoot,
} from './conversation/conversation-index.ts';
import { SESSION_HEADER } from './proxy-options.ts';
import {
  createMemorySessionLocks,
  type ReleaseLock,
  type SessionLocks,
} from './session-locks/session-locks.ts';

/** Longest session id a client may send: the rest of the 512 a store takes is the owner's prefix. */
export const MAX_CLIENT_SESSION_ID_LENGTH = 200;

export type SessionOrigin = 'named' | 'continued' | 'new' | 'forked';

export interface ResolvedSession {
  /** The id in the store: owner and public id. */
  sessionId: string;
  /** The id the client sees and may send back. */
  publicId: string;
  origin: SessionOrigin;
  /** For a fork: the public id of the session it left. */
  forkedFrom?: string;
  /**
   * Records the conversation as the request sent it (recognized sessions), and frees the session. The
   * reply is not part of it: it enters with the client's next request, as the client holds it.
   */
  release(): Promise<void>;
}

/** A session header ctxkit cannot take: the client gets a 400 saying why. */
export class SessionRequestError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_session_request';
  constructor(message: string) {
    super('invalid_session_request', message);
  }
}

export class SessionResolver {
  readonly #index: ConversationIndex;
  readonly #inFlight = new Set<string>();
  readonly #locks: SessionLocks;

  /**
   * `locks`: who may hold a session besides this process. By default only this process: a shared lock
   * (PostgreSQL's, for a fleet) also keeps other instances off a session while a request is on it.
   */
  constructor(index: ConversationIndex, locks: SessionLocks = createMemorySessionLocks()) {
    this.#index = index;
    this.#locks = locks;
  }

  /** Whether other processes serve these sessions too: a session's state here may be stale when taken. */
  get shared(): boolean {
    return this.#locks.shared;
  }

  /**
   * `named`: the client's session header. `start`: what every conversation's chain starts from, beside
   * the owner (the proxy gives the API format and the system prompt, so a conversation in one format
   * never continues one in the other). `ids`: the history's content ids.
   */
  async resolve(
    owner: string,
    named: string | undefined,
    start: string,
    ids: readonly string[],
    /** The ids of an earlier request this one begins like: the hashes they share are not made again. */
    previousIds?: readonly string[],
  ): Promise<ResolvedSession> {
    if (named !== undefined) {
      const problem = headerIdProblem(named);
      if (problem) throw new SessionRequestError(`${SESSION_HEADER} ${problem}`);
      const sessionId = storeSessionId(owner, named);
      // One request at a time per named session: a second one's history would otherwise be synced
      // between the first one's sync and prepare, and the first would send the second's conversation.
      const unlock = await this.#locks.acquire(sessionId);
      return { sessionId, publicId: named, origin: 'named', release: unlock };
    }
    // In slices: a history of a million messages is a million hashes, and other requests go on meanwhile.
    const hashes = await conversationHashesOf(conversationRoot(owner, start), ids, previousIds);
    const heads = await this.#index.heads(owner, hashes);
    let taken: { head: ConversationHead; unlock: ReleaseLock } | undefined;
    for (const head of newestFirst(hashes, heads)) {
      const sessionId = storeSessionId(owner, head.sessionId);
      // Marked in flight before the claim is awaited, so of two identical requests in this process only
      // one tries a session; a session another instance's request claims is left as one of ours is.
      if (this.#inFlight.has(sessionId)) continue;
      this.#inFlight.add(sessionId);
      const unlock = await this.#claim(sessionId);
      if (unlock) {
        taken = { head, unlock };
        break;
      }
      this.#inFlight.delete(sessionId);
    }
    let publicId: string;
    let origin: SessionOrigin;
    let forkedFrom: string | undefined;
    let unlock: ReleaseLock;
    if (taken) {
      publicId = taken.head.sessionId;
      origin = 'continued';
      unlock = taken.unlock;
    } else {
      publicId = `conv_${randomBytes(12).toString('hex')}`;
      // Nothing to continue: `find` only labels the new session, a fork when some prefix of it was sent
      // before (from the session that sent the longest one first), or new.
      const match = await this.#index.find(owner, hashes);
      origin = match ? 'forked' : 'new';
      if (match) forkedFrom = match.sessionId;
      this.#inFlight.add(storeSessionId(owner, publicId));
      unlock = await this.#claimNew(storeSessionId(owner, publicId));
    }
    const sessionId = storeSessionId(owner, publicId);
    let released = false;
    return {
      sessionId,
      publicId,
      origin,
      ...(forkedFrom !== undefined && { forkedFrom }),
      release: async () => {
        if (released) return;
        released = true;
        try {
          // Recorded before the session is freed: whoever takes it next, here or on another instance,
          // finds the conversation as this request left it.
          await this.#index.record(owner, publicId, hashes);
        } finally {
          this.#inFlight.delete(sessionId);
          await unlock();
        }
      },
    };
  }

  async #claim(sessionId: string): Promise<ReleaseLock | undefined> {
    try {
      return await this.#locks.claim(sessionId);
    } catch (error) {
      this.#inFlight.delete(sessionId);
      throw error;
    }
  }

  /** A new session's id is random: nobody else claims it. */
  async #claimNew(sessionId: string): Promise<ReleaseLock> {
    const unlock = await this.#claim(sessionId);
    if (unlock) return unlock;
    this.#inFlight.delete(sessionId);
    throw new Error(`session ${sessionId} is claimed already`);
  }
}

/** The chain of hashes made for a request's ids, from its root: the next request continues it. */
const chains = new WeakMap<readonly string[], { root: string; hashes: readonly string[] }>();

/**
 * The chain of `ids` from `root`, made only from the first id that differs from `previousIds` (whose
 * chain from the same root is known), else whole.
 */
async function conversationHashesOf(
  root: string,
  ids: readonly string[],
  previousIds: readonly string[] | undefined,
): Promise<string[]> {
  const previous = previousIds === undefined ? undefined : chains.get(previousIds);
  let shared = 0;
  let hashes: string[];
  if (previous !== undefined && previousIds !== undefined && previous.root === root) {
    const most = Math.min(ids.length, previous.hashes.length);
    while (shared < most && ids[shared] === previousIds[shared]) shared++;
  }
  if (previous === undefined || shared === 0) hashes = await continueConversationHashesInSlices(root, ids);
  else {
    const from = previous.hashes[shared - 1] as string;
    hashes = previous.hashes.slice(0, shared);
    for (const hash of await continueConversationHashesInSlices(from, ids.slice(shared))) hashes.push(hash);
  }
  chains.set(ids, { root, hashes });
  return hashes;
}

/**
 * The sessions a request may continue, best first: of those whose whole conversation it begins with, the
 * one recorded last (a re-run's own session over the first run's), then the longest, then by id, so the
 * choice never depends on the order an index returns them in.
 */
function newestFirst(hashes: readonly string[], heads: readonly ConversationHead[]): ConversationHead[] {
  // The index returns only such heads; checked again, since continuing a session the request does not
  // hold would mix two conversations.
  return heads.filter((head) => continuesHead(hashes, head)).sort((a, b) => compareRecency(b, a));
}

/** Positive when `left` was recorded after `right` (then: is longer, then: has the greater id). */
function compareRecency(left: ConversationHead, right: ConversationHead): number {
  if (left.recordedAt !== right.recordedAt) return left.recordedAt - right.recordedAt;
  if (left.head !== right.head) return left.head - right.head;
  return left.sessionId < right.sessionId ? -1 : left.sessionId > right.sessionId ? 1 : 0;
}

/** The id a session has in the store: its owner's digest and the public id the client sees. */
export function storeSessionId(owner: string, publicId: string): string {
  return `${owner}:${publicId}`;
}

/** `.` and `..` would be path segments a URL resolves away: the REST routes could never name them. */
export const DOT_SEGMENT = 'must not be "." or ".." (a URL path cannot hold them)';

/** A header id must be printable (it is echoed in a response header) and fit the store. */
function headerIdProblem(value: string): string | undefined {
  const problem = idProblem(value, MAX_CLIENT_SESSION_ID_LENGTH);
  if (problem) return problem;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters';
  // A header carries bytes, and clients encode text in them differently: only printable ASCII comes
  // back as it was sent.
  if (/[^\u0020-\u007e]/.test(value)) return 'must be printable ASCII';
  if (value === '.' || value === '..') return DOT_SEGMENT;
  return undefined;
}
