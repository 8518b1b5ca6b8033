/**
 * Which session a conversation belongs to, when the client names none. A conversation is identified by
 * the chain of its messages' content ids: `hashes[i]` stands for its first `i + 1` messages, under the
 * owner and the system prompt. A session records its conversation's last prefix hash (its head), so the
 * sessions a request continues are found by looking its hashes up among heads; and every prefix, so the
 * longest known prefix of any other request can be found by bisection (a prefix is known only when all
 * shorter ones are), which tells a fork from a new conversation.
 */
import { hash } from 'node:crypto';
import { forEachInSlices, WorkSlices } from '../../core/work-slices.ts';

export interface ConversationMatch {
  sessionId: string;
  /** How many of the request's messages that session holds. */
  length: number;
  /** How many messages that session's conversation has now. */
  head: number;
  /**
   * The hash of that session's conversation now (its last recorded prefix). The session found may not
   * hold the request's prefix any more (a session recorded again with another conversation may still be
   * found by prefixes it no longer has), so a match says only that the prefix was sent before. '' when
   * the session has no prefix, or was recorded before head hashes were kept (never a computed hash).
   */
  headHash: string;
}

/** A session whose recorded conversation is, all of it, one of the prefixes looked up. */
export interface ConversationHead {
  sessionId: string;
  /** How many messages that session's conversation has. */
  head: number;
  /** Its last prefix hash: the one of the looked-up hashes it was found by. */
  headHash: string;
  /**
   * Orders the index's recordings: each record gives its session a greater value than every record
   * before it in the index (a counter, not a time), so the session recorded last is known even when
   * records come within one clock tick, as a re-run against a fast model makes them.
   */
  recordedAt: number;
}

export interface ConversationIndex {
  /**
   * The session holding the longest prefix of `hashes` this owner has sent, if any: the one that recorded
   * it first. Several sessions may hold it (the same conversation sent again), so this names a session
   * the request forks from, not one it continues: `heads` finds those.
   */
  find(owner: string, hashes: readonly string[]): Promise<ConversationMatch | undefined>;
  /**
   * Every session of this owner whose recorded conversation is exactly one of `hashes` (its head hash is
   * among them), in no particular order: the sessions a request with these prefix hashes continues. One
   * lookup for all of them however many hashes a request has (thousands, for a long agent run).
   */
  heads(owner: string, hashes: readonly string[]): Promise<ConversationHead[]>;
  /**
   * The session's conversation is now `hashes` (all of it): its prefixes are recorded (a prefix another
   * session recorded first stays that session's), its head set to `hashes.length` and `hashes.at(-1)`,
   * and its `recordedAt` past every other. Prefixes it held before and no longer holds may still find it
   * (the stored indexes keep them; the memory index drops them), but only its head is looked up by `heads`.
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
  return hash('sha256', `ctxkit-conversation\n${owner}\n${system}`, 'hex').slice(0, HASH_HEX);
}

/** The chain continued from `previous` (the last prefix hash, or the root) over more messages. */
export function continueConversationHashes(from: string, contentIds: readonly string[]): string[] {
  let previous = from;
  // One-shot `hash`: a request of a million messages hashes a million times, and a hash object's set-up
  // cost four times the hashing.
  return contentIds.map((id) => {
    previous = hash('sha256', `${previous}\n${id}`, 'hex').slice(0, HASH_HEX);
    return previous;
  });
}

/** `continueConversationHashes` in slices, the event loop getting turns between them. */
export async function continueConversationHashesInSlices(
  from: string,
  contentIds: readonly string[],
  slices: WorkSlices = new WorkSlices(),
): Promise<string[]> {
  let previous = from;
  const hashes: string[] = [];
  for (const id of contentIds) {
    previous = hash('sha256', `${previous}\n${id}`, 'hex').slice(0, HASH_HEX);
    hashes.push(previous);
    if (slices.due()) await slices.next();
  }
  return hashes;
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

/**
 * Whether a request with `hashes` holds all of a session's conversation, so that it may continue that
 * session: its prefix as long as the session's conversation is that conversation. `heads` returns only
 * such sessions; this keeps a caller right whatever an index returns.
 */
export function continuesHead(hashes: readonly string[], head: ConversationHead): boolean {
  return head.head > 0 && hashes[head.head - 1] === head.headHash;
}

/** Bounds the in-memory index: the oldest sessions' entries go first. */
export const DEFAULT_MAX_INDEXED_PREFIXES = 2_000_000;

/** A session as the memory index keeps it: its conversation's prefix hashes, oldest first. */
interface HeldSession {
  readonly owner: string;
  readonly sessionId: string;
  hashes: readonly string[];
  /** The index's record count when it was last recorded. */
  recordedAt: number;
}

/**
 * The live sessions holding one prefix, in the order they came to hold it: the first is the prefix's
 * owner, and the next takes over when it is forgotten. Most prefixes have one holder, kept bare, since
 * a Set per prefix would multiply the index's memory.
 */
type Holders = HeldSession | Set<HeldSession>;

/** One owner's prefixes (hash → holders), heads (head hash → sessions) and sessions (id → session). */
interface OwnerEntries {
  prefixes: Map<string, Holders>;
  /** Holders here are the sessions whose conversation ends at the hash, in no order that matters. */
  heads: Map<string, Holders>;
  sessions: Map<string, HeldSession>;
}

/**
 * The index in memory (one process; lost on restart, when conversations start new sessions). A prefix
 * is known exactly while some live session's conversation holds it, so prefix knowledge stays monotone
 * (bisection stays right) however sessions are recorded again or forgotten.
 */
export function createMemoryConversationIndex(options: { maxPrefixes?: number } = {}): ConversationIndex {
  const maxPrefixes = options.maxPrefixes ?? DEFAULT_MAX_INDEXED_PREFIXES;
  const owners = new Map<string, OwnerEntries>();
  /** Every session, least recently recorded first (a Set keeps insertion order; re-adding moves it last). */
  const recency = new Set<HeldSession>();
  /** What the bound counts: every holding of a prefix (each costs a set entry or more). */
  let size = 0;
  /** Records so far: each gives its session the next `recordedAt`. */
  let records = 0;

  const entriesOf = (owner: string): OwnerEntries => {
    let entries = owners.get(owner);
    if (!entries) {
      entries = { prefixes: new Map(), heads: new Map(), sessions: new Map() };
      owners.set(owner, entries);
    }
    return entries;
  };

  const forget = (session: HeldSession) => {
    const entries = owners.get(session.owner);
    if (!entries) return;
    for (const hash of session.hashes) removeHolder(entries.prefixes, hash, session);
    removeHolder(entries.heads, headHashOf(session), session);
    entries.sessions.delete(session.sessionId);
    if (entries.sessions.size === 0) owners.delete(session.owner);
    recency.delete(session);
    size -= weightOf(session.hashes);
  };

  const evict = () => {
    // Deleting from a Set while iterating it is safe: the loop goes on with the next entry.
    for (const session of recency) {
      if (size <= maxPrefixes) return;
      forget(session);
    }
  };

  return {
    async find(owner, hashes) {
      const prefixes = owners.get(owner)?.prefixes;
      if (!prefixes) return undefined;
      const length = await longestKnownPrefix(hashes, (hash) => prefixes.has(hash));
      if (length === 0) return undefined;
      // A record between bisection's steps may have taken the prefix away: then nothing is found.
      const holders = prefixes.get(hashes[length - 1] as string);
      if (!holders) return undefined;
      const session = firstHolder(holders);
      return {
        sessionId: session.sessionId,
        length,
        head: session.hashes.length,
        headHash: headHashOf(session),
      };
    },
    async heads(owner, hashes) {
      const heads = owners.get(owner)?.heads;
      if (!heads) return [];
      const found: ConversationHead[] = [];
      const seen = new Set<string>();
      const slices = new WorkSlices();
      for (const hash of hashes) {
        if (slices.due()) await slices.next();
        // Each hash once: a session is found by its one head hash, so it is listed once.
        if (seen.has(hash)) continue;
        seen.add(hash);
        const holders = heads.get(hash);
        if (holders === undefined) continue;
        for (const session of holders instanceof Set ? holders : [holders]) {
          found.push({
            sessionId: session.sessionId,
            head: session.hashes.length,
            headHash: hash,
            recordedAt: session.recordedAt,
          });
        }
      }
      return found;
    },
    async record(owner, sessionId, hashes) {
      const entries = entriesOf(owner);
      const next = [...hashes];
      records++;
      const recordedAt = records;
      // In slices: a new conversation of a million messages is a million prefixes. Meanwhile the session
      // is in its owner's entries (so they stay) and out of the recency list (so it is not evicted).
      let session = entries.sessions.get(sessionId);
      if (session) {
        size -= weightOf(session.hashes);
        recency.delete(session);
        removeHolder(entries.heads, headHashOf(session), session);
        await replaceHashes(entries.prefixes, session, next);
        session.recordedAt = recordedAt;
      } else {
        const created: HeldSession = { owner, sessionId, hashes: next, recordedAt };
        session = created;
        entries.sessions.set(sessionId, created);
        await forEachInSlices(next, (hash) => addHolder(entries.prefixes, hash, created));
      }
      addHolder(entries.heads, headHashOf(session), session);
      recency.add(session);
      size += weightOf(next);
      evict();
    },
  };
}

/** A session with no prefix still takes entries, so it counts as one: empty records cannot grow unbounded. */
function weightOf(hashes: readonly string[]): number {
  return Math.max(1, hashes.length);
}

function headHashOf(session: HeldSession): string {
  return session.hashes.at(-1) ?? '';
}

/**
 * Makes `next` the session's conversation. A hash stands for one prefix, so the prefixes both hold are
 * exactly their common beginning, and only what follows it changes hands: a record that continues the
 * conversation costs its new messages, not the whole. The session keeps its place among the holders of
 * the prefixes it keeps, and queues last for the ones it gains.
 */
async function replaceHashes(
  prefixes: Map<string, Holders>,
  session: HeldSession,
  next: readonly string[],
): Promise<void> {
  const previous = session.hashes;
  const common = commonPrefixLength(previous, next);
  const slices = new WorkSlices();
  // Longest first, so that between two slices a prefix is still known only when every shorter one is.
  for (let index = previous.length - 1; index >= common; index--) {
    removeHolder(prefixes, previous[index] as string, session);
    if (slices.due()) await slices.next();
  }
  for (let index = common; index < next.length; index++) {
    addHolder(prefixes, next[index] as string, session);
    if (slices.due()) await slices.next();
  }
  session.hashes = next;
}

function commonPrefixLength(left: readonly string[], right: readonly string[]): number {
  const limit = Math.min(left.length, right.length);
  let length = 0;
  while (length < limit && left[length] === right[length]) length++;
  return length;
}

/** Queues the session last among a hash's holders (of a prefix, or of a head). */
function addHolder(byHash: Map<string, Holders>, hash: string, session: HeldSession): void {
  const holders = byHash.get(hash);
  if (holders === undefined) byHash.set(hash, session);
  else if (holders instanceof Set) holders.add(session);
  else if (holders !== session) byHash.set(hash, new Set([holders, session]));
}

/** Takes the session off a prefix: the next holder, if any, becomes its owner; a prefix no one holds goes. */
function removeHolder(byHash: Map<string, Holders>, hash: string, session: HeldSession): void {
  const holders = byHash.get(hash);
  if (holders === session) byHash.delete(hash);
  else if (holders instanceof Set) {
    holders.delete(session);
    if (holders.size === 1) byHash.set(hash, firstHolder(holders));
  }
}

/** The prefix's owner: a Set of holders is never empty (one left is kept bare). */
function firstHolder(holders: Holders): HeldSession {
  if (!(holders instanceof Set)) return holders;
  return holders.values().next().value as HeldSession;
}
