import { copyPlain } from '../core/copy-plain.ts';
import type {
  RecentSession,
  SessionListing,
  SessionStore,
  StoredPolicyOverride,
  StoredSession,
  StoredTokenCount,
} from './session-store.ts';
import {
  assertPositions,
  assertSessionId,
  assertTimestamp,
  assertWritable,
  contentIdAt,
  editsWrite,
  fullWrite,
  messagesWrite,
  neededFrom,
  type PositionedWrite,
  recentStart,
} from './session-store.ts';
import { checkEdit, checkMessage } from './session-store-codec.ts';
import { decodeLastRequest, encodeLastRequest } from './stored-last-request.ts';
import { checkPolicyOverrideShape } from './stored-policy-override.ts';

type HeldSession = StoredSession & {
  contentIds: (string | null)[];
  tokens: (StoredTokenCount | null)[];
  policy?: StoredPolicyOverride;
  /** The last request's JSON text, as the SQL stores keep it. */
  lastRequest?: string;
};

/**
 * Sessions in process memory: the default for tests and for a library user who persists nothing.
 * Stores copies (`copyPlain`), so a caller mutating its objects cannot rewrite history. Checks what
 * it is given exactly as the durable stores do, so code tested against it behaves the same on disk.
 */
export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, HeldSession>();
  const emptySession = (sessionId: string, at: number): HeldSession => ({
    id: sessionId,
    log: [],
    edits: [],
    contentIds: [],
    tokens: [],
    createdAt: at,
    updatedAt: at,
  });
  const write = async (sessionId: string, change: PositionedWrite, at: number): Promise<void> => {
    assertWritable(sessionId, change, at);
    for (const message of change.messages) checkMessage(sessionId, message);
    change.edits.forEach((edit, offset) => {
      checkEdit(sessionId, edit, (change.expectedEditCount ?? 0) + offset);
    });
    const existing = sessions.get(sessionId);
    assertPositions(sessionId, change, {
      messages: existing?.log.length ?? 0,
      edits: existing?.edits.length ?? 0,
    });
    if (change.messages.length === 0 && change.edits.length === 0) return;
    const target = existing ?? emptySession(sessionId, at);
    change.messages.forEach((message, offset) => {
      target.log.push(copyPlain(message));
      target.contentIds.push(contentIdAt(change, offset));
      target.tokens.push(copyPlain(change.tokens?.[offset] ?? null));
    });
    for (const edit of change.edits) target.edits.push(copyPlain(edit));
    target.updatedAt = at;
    sessions.set(sessionId, target);
  };
  return {
    async load(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return undefined;
      const {
        contentIds: _contentIds,
        tokens: _tokens,
        policy: _policy,
        lastRequest: _lastRequest,
        ...stored
      } = session;
      return structuredClone(stored);
    },
    async loadPositions(sessionId) {
      const session = sessions.get(sessionId);
      return session === undefined
        ? undefined
        : { messages: session.log.length, edits: session.edits.length };
    },
    async loadRecent(sessionId): Promise<RecentSession | undefined> {
      const session = sessions.get(sessionId);
      if (!session) return undefined;
      const logStart = recentStart(session.edits, session.log.length);
      return structuredClone({
        id: session.id,
        edits: session.edits.filter((edit) => neededFrom(edit, logStart)),
        editCount: session.edits.length,
        messageIds: session.log.map((message) => message.id),
        contentIds: session.contentIds,
        logStart,
        recent: session.log.slice(logStart),
        recentTokens: session.tokens.slice(logStart),
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
      });
    },
    appendMessages: (sessionId, messages, expectedSeq, at) =>
      write(sessionId, messagesWrite(messages, expectedSeq), at),
    appendEdits: (sessionId, edits, expectedEditCount, at) =>
      write(sessionId, editsWrite(edits, expectedEditCount), at),
    append: (sessionId, change, at) => write(sessionId, fullWrite(change), at),
    async list(filter = {}): Promise<SessionListing[]> {
      const listings = [...sessions.values()]
        .filter((session) => filter.updatedBefore === undefined || session.updatedAt < filter.updatedBefore)
        .map((session) => ({
          id: session.id,
          messages: session.log.length,
          edits: session.edits.length,
          createdAt: session.createdAt,
          updatedAt: session.updatedAt,
        }))
        .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return filter.limit === undefined ? listings : listings.slice(0, filter.limit);
    },
    async loadPolicyOverride(sessionId) {
      const policy = sessions.get(sessionId)?.policy;
      return policy === undefined ? undefined : structuredClone(policy);
    },
    async setPolicyOverride(sessionId, override, at) {
      assertSessionId(sessionId);
      assertTimestamp(sessionId, at);
      const checked = override === null ? undefined : checkPolicyOverrideShape(override);
      const existing = sessions.get(sessionId);
      if (checked === undefined) {
        if (!existing) return;
        delete existing.policy;
        existing.updatedAt = at;
        return;
      }
      const target = existing ?? emptySession(sessionId, at);
      target.policy = { override: structuredClone(checked), updatedAt: at };
      target.updatedAt = at;
      sessions.set(sessionId, target);
    },
    async loadLastRequest(sessionId) {
      return decodeLastRequest(sessionId, sessions.get(sessionId)?.lastRequest);
    },
    async setLastRequest(sessionId, request) {
      assertSessionId(sessionId);
      const text = request === null ? undefined : encodeLastRequest(sessionId, request);
      const existing = sessions.get(sessionId);
      if (!existing) return false;
      if (text === undefined) delete existing.lastRequest;
      else existing.lastRequest = text;
      return true;
    },
    async delete(sessionId) {
      sessions.delete(sessionId);
    },
    async close() {
      sessions.clear();
    },
  };
}
