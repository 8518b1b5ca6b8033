/**
 * What the SQLite and PostgreSQL conversation indexes share: their tables' names and a `find` built from
 * single-prefix probes. Both keep the memory index's rules (first claim of a prefix keeps it; a session's
 * head is the length and last prefix hash of its last recorded conversation), with no eviction: rows stay
 * until pruned. Unlike the memory index, a prefix stays claimed by a session recorded again without it
 * (taking it back would be a delete per record): harmless, since `find` only tells a fork from a new
 * conversation, and what a request continues is looked up by head hash (`heads`).
 */
import { type ConversationIndex, type ConversationMatch, longestKnownPrefix } from './conversation-index.ts';

/** (owner, hash) → the session that recorded that prefix first. */
export const PREFIXES_TABLE = 'ctxkit_conversation_prefixes';
/**
 * (owner, session id) → head and head_hash: its conversation's length and last prefix hash now;
 * recorded_seq: its place in the order of records (a session's `recordedAt`); recorded_at: when, in ms.
 */
export const SESSIONS_TABLE = 'ctxkit_conversation_sessions';
/** (owner, head_hash) → sessions: what `heads` looks up. */
export const SESSIONS_HEAD_INDEX = `${SESSIONS_TABLE}_head`;
/** PostgreSQL's source of recorded_seq (SQLite takes the greatest plus one, under its write lock). */
export const RECORDINGS_SEQUENCE = 'ctxkit_conversation_recordings';

/** An index kept in a database, with the connection to release. */
export interface StoredConversationIndex extends ConversationIndex {
  /** Releases what the index opened itself; a database or client the caller passed stays open. */
  close(): Promise<void>;
}

/** The session owning one prefix, and that session's head. */
export interface PrefixOwner {
  sessionId: string;
  head: number;
  headHash: string;
}

/**
 * The match for `hashes` by bisection, one probe a step. Bisection only raises its lower bound on a hit,
 * so the prefix it settles on is the last one it found: that probe's answer is the match, no lookup more.
 */
export async function findByProbes(
  hashes: readonly string[],
  probe: (hash: string) => Promise<PrefixOwner | undefined> | PrefixOwner | undefined,
): Promise<ConversationMatch | undefined> {
  let found: PrefixOwner | undefined;
  const length = await longestKnownPrefix(hashes, async (hash) => {
    const owner = await probe(hash);
    if (owner) found = owner;
    return owner !== undefined;
  });
  if (length === 0 || !found) return undefined;
  return { sessionId: found.sessionId, length, head: found.head, headHash: found.headHash };
}
