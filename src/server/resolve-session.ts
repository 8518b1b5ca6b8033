/**
 * Finds the session of a request. A client that names one (`x-ctxkit-session`) gets it. Otherwise the
 * conversation is recognized: one that continues a session's whole conversation, while no other request
 * is on it, continues that session; anything else (a new conversation, one edited or forked from an
 * earlier point, or a second request on a conversation already being answered) gets a new session that
 * starts from the client's history, so two conversations never share a session.
 *
 * Session ids in the store are the owner's digest and the public id, so a session is reachable only by
 * the owner that made it, whatever id another one sends.
 */
import { randomBytes } from 'node:crypto';
import { idProblem } from '../core/session-id.ts';
import {
  type ConversationIndex,
  continueConversationHashes,
  conversationRoot,
} from './conversation/conversation-index.ts';
import { SESSION_HEADER } from './proxy-options.ts';

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
   * Records the conversation as it stands after the reply (recognized sessions), and frees the session.
   * `replyId` is the content id of the reply the client got, when it was logged.
   */
  release(replyId: string | undefined): Promise<void>;
}

export class SessionRequestError extends Error {}

export class SessionResolver {
  readonly #index: ConversationIndex;
  readonly #inFlight = new Set<string>();

  constructor(index: ConversationIndex) {
    this.#index = index;
  }

  async resolve(
    owner: string,
    named: string | undefined,
    system: string,
    ids: readonly string[],
  ): Promise<ResolvedSession> {
    if (named !== undefined) {
      const problem = headerIdProblem(named);
      if (problem) throw new SessionRequestError(`${SESSION_HEADER} ${problem}`);
      return {
        sessionId: storeId(owner, named),
        publicId: named,
        origin: 'named',
        release: async () => undefined,
      };
    }
    const root = conversationRoot(owner, system);
    const hashes = continueConversationHashes(root, ids);
    const match = await this.#index.find(owner, hashes);
    let publicId: string;
    let origin: SessionOrigin;
    let forkedFrom: string | undefined;
    if (match && match.length === match.head && !this.#inFlight.has(storeId(owner, match.sessionId))) {
      publicId = match.sessionId;
      origin = 'continued';
    } else {
      publicId = `conv_${randomBytes(12).toString('hex')}`;
      origin = match ? 'forked' : 'new';
      if (match) forkedFrom = match.sessionId;
    }
    const sessionId = storeId(owner, publicId);
    this.#inFlight.add(sessionId);
    let released = false;
    return {
      sessionId,
      publicId,
      origin,
      ...(forkedFrom !== undefined && { forkedFrom }),
      release: async (replyId) => {
        if (released) return;
        released = true;
        try {
          const reply =
            replyId === undefined ? [] : continueConversationHashes(hashes.at(-1) ?? root, [replyId]);
          await this.#index.record(owner, publicId, [...hashes, ...reply]);
        } finally {
          this.#inFlight.delete(sessionId);
        }
      },
    };
  }
}

function storeId(owner: string, publicId: string): string {
  return `${owner}:${publicId}`;
}

/** A header id must be printable (it is echoed in a response header) and fit the store. */
function headerIdProblem(value: string): string | undefined {
  const problem = idProblem(value, MAX_CLIENT_SESSION_ID_LENGTH);
  if (problem) return problem;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters';
  return undefined;
}
