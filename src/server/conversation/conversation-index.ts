/**
 * Which session a conversation belongs to, when the client names none. A conversation is identified by
 * the chain of its messages' content ids: `hashes[i]` stands for its first `i + 1` messages, under the
 * owner and the system prompt. A session records every prefix it has held, so the longest known prefix of
 * a request can be found by bisection (a prefix is known only when all shorter ones are).
 */
import { createHash } from 'node:crypto';

export interface ConversationMatch {
  sessionId: string;
  /** How many of the request's messages that session holds. */
  length: number;
  /** How many messages that session's conversation has now. */
  head: number;
}

export interface ConversationIndex {
  /** The session holding the longest prefix of `hashes` this owner has sent, if any. */
  find(owner: string, hashes: readonly string[]): Promise<ConversationMatch | undefined>;
  /**
   * The session's conversation is now `hashes` (all of it): its prefixes are recorded (a prefix another
   * session recorded first stays that session's) and its head set to `hashes.length`.
   */
  record(owner: string, sessionId: string, hashes: readonly string[]): Promise<void>;
}

const HASH_HEX = 32;

/** The prefix hashes of a conversation: one per message, each over the one before and the message's id. */
export function conversationHashes(owner: string, system: string, contentIds: readonly string[]): string[] {
  return continueConversationHashes(conversationRoot(owner, system), contentIds);
}

/** The hash a conversation's chain starts from: the owner and the system prompt. */
export function conversationRoot(owner: string, system: string): string {
  return createHash('sha256')
    .update(`ctxkit-conversation\n${owner}\n${system}`)
    .digest('hex')
    .slice(0, HASH_HEX);
}

/** The chain continued from `previous` (the last prefix hash, or the root) over more messages. */
export function continueConversationHashes(from: string, contentIds: readonly string[]): string[] {
  let previous = from;
  return contentIds.map((id) => {
    previous = createHash('sha256').update(`${previous}\n${id}`).digest('hex').slice(0, HASH_HEX);
    return previous;
  });
}

/** The longest `k` with `known(hashes[k - 1])`, by bisection (prefix knowledge is monotone). */
export async function longestKnownPrefix(
  hashes: readonly string[],
  known: (hash: string) => Promise<boolean> | boolean,
): Promise<number> {
  let low = 0;
  let high = hashes.length;
  // Common case first: the whole request but its newest messages is known.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (await known(hashes[middle - 1] as string)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Bounds the in-memory index: the oldest sessions' entries go first. */
export const DEFAULT_MAX_INDEXED_PREFIXES = 2_000_000;

/** The index in memory (one process; lost on restart, when conversations start new sessions). */
export function createMemoryConversationIndex(options: { maxPrefixes?: number } = {}): ConversationIndex {
  const maxPrefixes = options.maxPrefixes ?? DEFAULT_MAX_INDEXED_PREFIXES;
  const owners = new Map<string, string>();
  /** Session key → its prefixes and head; Map order is recency of recording. */
  const sessions = new Map<string, { owner: string; sessionId: string; hashes: string[] }>();
  let size = 0;
  const key = (owner: string, hash: string) => `${owner}\u0000${hash}`;

  const evict = () => {
    for (const [sessionKey, session] of sessions) {
      if (size <= maxPrefixes) return;
      for (const hash of session.hashes) {
        const entry = key(session.owner, hash);
        if (owners.get(entry) === sessionKey) owners.delete(entry);
      }
      size -= session.hashes.length;
      sessions.delete(sessionKey);
    }
  };

  return {
    async find(owner, hashes) {
      const length = await longestKnownPrefix(hashes, (hash) => owners.has(key(owner, hash)));
      if (length === 0) return undefined;
      const sessionKey = owners.get(key(owner, hashes[length - 1] as string)) as string;
      const session = sessions.get(sessionKey);
      if (!session) return undefined;
      return { sessionId: session.sessionId, length, head: session.hashes.length };
    },
    async record(owner, sessionId, hashes) {
      const sessionKey = `${owner}\u0000${sessionId}`;
      const previous = sessions.get(sessionKey);
      if (previous) size -= previous.hashes.length;
      sessions.delete(sessionKey);
      sessions.set(sessionKey, { owner, sessionId, hashes: [...hashes] });
      size += hashes.length;
      for (const hash of hashes) {
        const entry = key(owner, hash);
        if (!owners.has(entry) || !sessions.has(owners.get(entry) as string)) owners.set(entry, sessionKey);
      }
      evict();
    },
  };
}
