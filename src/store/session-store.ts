import { type Edit, editReach, firstVisibleSeq } from '../core/edit.ts';
import { InvalidAppendError, SequenceConflictError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import type { PolicyOverride } from '../core/policy/policy-schema.ts';
import { idProblem, MAX_SESSION_ID_LENGTH } from '../core/session-id.ts';
import type { StoredLastRequest } from './stored-last-request.ts';
import type { StoredPolicyOverride } from './stored-policy-override.ts';
import { isStoredTokenCount, type StoredTokenCount } from './stored-token-count.ts';

export type { StoredLastRequest } from './stored-last-request.ts';
export type { StoredPolicyOverride } from './stored-policy-override.ts';
export type { StoredTokenCount } from './stored-token-count.ts';

/** A session as stored: the append-only log and the append-only list of edits over it. */
export interface StoredSession {
  id: string;
  log: Message[];
  edits: Edit[];
  createdAt: number;
  updatedAt: number;
}

/**
 * What resuming a session needs, read without the whole log: every message's ids, the message bodies
 * from `logStart` on, and the edits those can depend on. `logStart` is where the view can begin (one
 * past the newest cut, see `firstVisibleSeq`), or the last message when the cut covers them all, so the
 * newest message is always at hand. Older bodies stay in the store until something asks (`load`).
 */
export interface RecentSession {
  id: string;
  /**
   * The edits a view from `logStart` on can depend on, in order: the cuts, branches, and every edit
   * whose reach (`editReach`) is at or after `logStart`. The others change nothing the view shows.
   */
  edits: Edit[];
  /** All the session's edits, read or not: where the next edit goes. */
  editCount: number;
  /** Each message's id, in seq order: as long as the log. */
  messageIds: string[];
  /**
   * Each message's content id (its identity in the caller's history, see `assignStableIds`), as the
   * writer gave it, or null where it gave none (written by `appendMessages`, or before schema v2).
   */
  contentIds: (string | null)[];
  logStart: number;
  /** Messages logStart, logStart + 1, … to the end. */
  recent: Message[];
  /** The token counts the writer kept for the recent messages (aligned with `recent`), or null. */
  recentTokens: (StoredTokenCount | null)[];
  createdAt: number;
  updatedAt: number;
}

/** The lengths of a session's log and edit list: where its next message and edit go. */
export interface SessionPositions {
  messages: number;
  edits: number;
}

export interface SessionListing {
  id: string;
  messages: number;
  edits: number;
  createdAt: number;
  updatedAt: number;
}

/** Narrows `list()`: retention asks for the sessions nobody has written to since a point in time. */
export interface SessionListFilter {
  /** Only sessions whose last write (`updatedAt`) is strictly before this epoch-ms time. */
  updatedBefore?: number;
  /** At most this many sessions (the least recently updated first). */
  limit?: number;
}

/**
 * One write that lands whole or not at all: messages and the edits made as they arrived (the normalize
 * layer's, say) go in together, so a crash or a concurrent writer can never leave one without the other.
 * Both positions are checked, even when their list is empty.
 */
export interface SessionWrite {
  /** Numbered expectedSeq, expectedSeq + 1, … in order; may be empty. */
  messages?: readonly Message[];
  /** The messages' content ids, one each, kept so a resume can continue the caller's history unread. */
  contentIds?: readonly string[];
  /** Token counts of the messages as logged, one each or null, kept so a resume need not count again. */
  tokens?: readonly (StoredTokenCount | null)[];
  edits?: readonly Edit[];
  /** The log's length the writer last saw. */
  expectedSeq: number;
  /** The edit list's length the writer last saw. */
  expectedEditCount: number;
}

/**
 * Where sessions live. Writes are optimistic: each append names the position it expects to write at
 * (the log's length, or the edit list's), so two writers on one session can never interleave or
 * overwrite each other; the loser gets a `SequenceConflictError`, re-reads and retries.
 *
 * An append of nothing checks its position and writes nothing (no session is created).
 */
export interface SessionStore {
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** A consistent snapshot of what resuming needs (see `RecentSession`), reading old bodies not at all. */
  loadRecent(sessionId: string): Promise<RecentSession | undefined>;
  /**
   * Where the session's log and edit list end (their lengths), reading no message or edit: whether a
   * process holding the session in memory is behind what another one wrote. Undefined: no such session.
   */
  loadPositions(sessionId: string): Promise<SessionPositions | undefined>;
  /** Messages must carry seqs expectedSeq, expectedSeq + 1, … in order. */
  appendMessages(
    sessionId: string,
    messages: readonly Message[],
    expectedSeq: number,
    at: number,
  ): Promise<void>;
  appendEdits(
    sessionId: string,
    edits: readonly Edit[],
    expectedEditCount: number,
    at: number,
  ): Promise<void>;
  /** Messages and edits in one transaction; both positions are checked. */
  append(sessionId: string, write: SessionWrite, at: number): Promise<void>;
  /** Sessions ordered by `updatedAt`, then id (the least recently updated first). */
  list(filter?: SessionListFilter): Promise<SessionListing[]>;
  /** The session's policy override and when it was set; undefined when it has none (or no such session). */
  loadPolicyOverride(sessionId: string): Promise<StoredPolicyOverride | undefined>;
  /**
   * Records the session's policy override (`null` removes it) and the time, which also moves the
   * session's `updatedAt` on (configuring a session is using it: retention must not take it as idle).
   * Last writer wins: the override is one value, not a log. A session with no messages yet is created by
   * it, with no messages and no edits (an override may come before the first message); removing the
   * override of a session that does not exist writes nothing. An override the store could not read back
   * is an `InvalidPolicyError` naming the key, and nothing is stored. `delete` removes it with the session.
   */
  setPolicyOverride(sessionId: string, override: PolicyOverride | null, at: number): Promise<void>;
  /**
   * The shape of the session's last request (system prompt, tools, model, window settings) as last
   * recorded; undefined when it has none (or no such session).
   */
  loadLastRequest(sessionId: string): Promise<StoredLastRequest | undefined>;
  /**
   * Records the shape of the session's last request (`null` removes it), replacing the one it had, so
   * every process measures the session's next call alike. Not activity: `updatedAt` stays where it was
   * (retention must not keep a session alive for it), and a session with no row yet gets none: nothing
   * is written and the answer is false (true when the session holds it now). Fields the request should
   * not have are left out; a value the store could not read back is an `InvalidAppendError`, and nothing
   * is stored. `delete` removes it with the session.
   */
  setLastRequest(sessionId: string, request: StoredLastRequest | null): Promise<boolean>;
  delete(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

/** Checks that messages are numbered from expectedSeq on, one by one; shared by every store. */
export function assertContiguous(sessionId: string, messages: readonly Message[], expectedSeq: number): void {
  messages.forEach((message, offset) => {
    if (message.seq !== expectedSeq + offset) {
      throw new InvalidAppendError(
        sessionId,
        `message ${message.id} has seq ${message.seq}, expected ${expectedSeq + offset}`,
      );
    }
  });
}

/**
 * What every store does with a write, whatever it runs on: `expectedSeq`/`expectedEditCount` left
 * undefined are not checked (`appendMessages` checks only the log, `appendEdits` only the edits).
 */
export interface PositionedWrite {
  messages: readonly Message[];
  contentIds: readonly string[] | undefined;
  tokens: readonly (StoredTokenCount | null)[] | undefined;
  edits: readonly Edit[];
  expectedSeq: number | undefined;
  expectedEditCount: number | undefined;
}

export const messagesWrite = (messages: readonly Message[], expectedSeq: number): PositionedWrite => ({
  messages,
  contentIds: undefined,
  tokens: undefined,
  edits: [],
  expectedSeq,
  expectedEditCount: undefined,
});

export const editsWrite = (edits: readonly Edit[], expectedEditCount: number): PositionedWrite => ({
  messages: [],
  contentIds: undefined,
  tokens: undefined,
  edits,
  expectedSeq: undefined,
  expectedEditCount,
});

export const fullWrite = (write: SessionWrite): PositionedWrite => ({
  messages: write.messages ?? [],
  contentIds: write.contentIds,
  tokens: write.tokens,
  edits: write.edits ?? [],
  expectedSeq: write.expectedSeq,
  expectedEditCount: write.expectedEditCount,
});

/** The content id a write gives its message at `offset`, or null. */
export const contentIdAt = (write: PositionedWrite, offset: number): string | null =>
  write.contentIds?.[offset] ?? null;

/** Whether a resume starting at `logStart` needs this edit (see `RecentSession.edits`). */
export function neededFrom(edit: Edit, logStart: number): boolean {
  const reach = editReach(edit);
  return reach === null || reach >= logStart;
}

/** Where a resume's bodies start: one past the newest cut, but never past the last message. */
export function recentStart(edits: readonly Edit[], messageCount: number): number {
  return Math.max(0, Math.min(firstVisibleSeq(edits), messageCount - 1));
}

/** Throws the conflict a store found: the log's position is checked before the edits'. */
export function assertPositions(
  sessionId: string,
  write: PositionedWrite,
  actual: { messages: number; edits: number },
): void {
  if (write.expectedSeq !== undefined && write.expectedSeq !== actual.messages) {
    throw new SequenceConflictError(sessionId, 'messages', write.expectedSeq, actual.messages);
  }
  if (write.expectedEditCount !== undefined && write.expectedEditCount !== actual.edits) {
    throw new SequenceConflictError(sessionId, 'edits', write.expectedEditCount, actual.edits);
  }
}

/**
 * A session id every store can keep byte for byte: not empty, no NUL (PostgreSQL text refuses it) and
 * well-formed UTF-16 (SQLite would store a lone surrogate as U+FFFD, and the id would no longer match).
 * No such session can exist under any other id: loading one finds nothing, deleting one does nothing.
 * Reads take ids of any length; writes also refuse ids longer than `MAX_SESSION_ID_LENGTH`.
 */
export function isStorableSessionId(sessionId: string): boolean {
  return idProblem(sessionId, Number.POSITIVE_INFINITY) === undefined;
}

export function assertSessionId(sessionId: string): void {
  const problem = idProblem(sessionId, MAX_SESSION_ID_LENGTH);
  if (problem !== undefined) {
    throw new InvalidAppendError(
      JSON.stringify(typeof sessionId === 'string' ? sessionId.slice(0, 80) : sessionId) ?? String(sessionId),
      `a session id must be non-empty, well-formed text without NUL characters, at most ${MAX_SESSION_ID_LENGTH} long: it ${problem}`,
    );
  }
}

/** A write's time must be a finite number (epoch ms from the clock passed in). */
export function assertTimestamp(sessionId: string, at: number): void {
  if (typeof at !== 'number' || !Number.isFinite(at)) {
    throw new InvalidAppendError(
      sessionId,
      `the write time must be a finite number of epoch ms, got ${String(at)}`,
    );
  }
}

/** Everything a store checks before it touches its data, the same for every store. */
export function assertWritable(sessionId: string, write: PositionedWrite, at: number): void {
  assertSessionId(sessionId);
  assertTimestamp(sessionId, at);
  if (write.messages.length > 0) {
    if (write.expectedSeq === undefined)
      throw new InvalidAppendError(sessionId, 'messages need an expected seq');
    assertContiguous(sessionId, write.messages, write.expectedSeq);
  }
  if (write.contentIds !== undefined) {
    if (write.contentIds.length !== write.messages.length) {
      throw new InvalidAppendError(
        sessionId,
        `contentIds has ${write.contentIds.length} entries for ${write.messages.length} messages`,
      );
    }
    const bad = write.contentIds.findIndex((id) => typeof id !== 'string' || id.length === 0);
    if (bad >= 0) throw new InvalidAppendError(sessionId, `contentIds[${bad}] is not a non-empty string`);
  }
  if (write.tokens !== undefined) {
    if (write.tokens.length !== write.messages.length) {
      throw new InvalidAppendError(
        sessionId,
        `tokens has ${write.tokens.length} entries for ${write.messages.length} messages`,
      );
    }
    const bad = write.tokens.findIndex((count) => count !== null && !isStoredTokenCount(count));
    if (bad >= 0) throw new InvalidAppendError(sessionId, `tokens[${bad}] is not a token count or null`);
  }
  if (write.edits.length > 0 && write.expectedEditCount === undefined) {
    throw new InvalidAppendError(sessionId, 'edits need an expected edit count');
  }
}
