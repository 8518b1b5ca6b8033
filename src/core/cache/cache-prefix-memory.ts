/**
 * What a model client or the proxy remembers of the requests it sent, so the next one can read what
 * they wrote: for each of the last few conversations, the prefix keys of its last request, where that
 * request put its breakpoints, and every cache entry the conversation's requests wrote that should still
 * be alive (an entry lives CACHE_TTL_5M_MS from its last write or read). A new request is matched with
 * the remembered one it shares the most leading blocks with, which needs no session id: two calls of
 * one conversation share their history.
 *
 * Prefix keys are cumulative (each covers every block before it), so two requests share exactly the
 * leading blocks whose keys are equal, found by bisection, and an entry is known by the prefix key of
 * the block it was written at.
 */
import { CACHE_TTL_5M_MS } from './prompt-cache-rules.ts';

/** Conversations remembered at once; the least recently used is forgotten first. */
export const DEFAULT_CACHE_MEMORY_CONVERSATIONS = 64;
/** Entries remembered per conversation, the most recently written kept. */
export const CACHE_MEMORY_ENTRIES_PER_CONVERSATION = 64;

export interface RecalledRequest {
  /** Leading blocks this request shares with the remembered one. */
  shared: number;
  /** Where the remembered request put its breakpoints. */
  breakpoints: readonly number[];
  /**
   * Positions in this request, inside the shared prefix, where the conversation wrote an entry that is
   * still alive, ascending.
   */
  written: readonly number[];
}

export interface CachePrefixMemory {
  /** The remembered request sharing the most leading blocks with these, when one shares any. */
  recall(prefixKeys: readonly string[], nowMs: number): RecalledRequest | undefined;
  /**
   * Records a request that was sent (once its answer began: an entry exists only from then), its
   * breakpoints written or refreshed at `nowMs`. It takes the place of the request of the same
   * conversation: the one it shares more than `fixedBlocks` blocks with, whose entries it carries on.
   */
  remember(
    prefixKeys: readonly string[],
    breakpoints: readonly number[],
    fixedBlocks: number,
    nowMs: number,
  ): void;
}

interface Remembered {
  prefixKeys: readonly string[];
  breakpoints: readonly number[];
  /** Prefix key of each entry written → when it expires. */
  entries: Map<string, number>;
}

export function createCachePrefixMemory(
  capacity: number = DEFAULT_CACHE_MEMORY_CONVERSATIONS,
): CachePrefixMemory {
  /** Least recently used first. */
  const conversations: Remembered[] = [];

  const best = (prefixKeys: readonly string[]): { at: number; shared: number } | undefined => {
    let found: { at: number; shared: number } | undefined;
    for (const [at, entry] of conversations.entries()) {
      const shared = sharedLength(entry.prefixKeys, prefixKeys);
      if (shared > 0 && (found === undefined || shared >= found.shared)) found = { at, shared };
    }
    return found;
  };

  return {
    recall(prefixKeys, nowMs) {
      const found = best(prefixKeys);
      if (found === undefined) return undefined;
      const remembered = conversations[found.at] as Remembered;
      const written: number[] = [];
      for (let position = 0; position < found.shared; position++) {
        const expires = remembered.entries.get(prefixKeys[position] as string);
        if (expires !== undefined && expires >= nowMs) written.push(position);
      }
      return { shared: found.shared, breakpoints: remembered.breakpoints, written };
    },
    remember(prefixKeys, breakpoints, fixedBlocks, nowMs) {
      const found = best(prefixKeys);
      let entries = new Map<string, number>();
      if (found !== undefined && found.shared > fixedBlocks) {
        entries = (conversations[found.at] as Remembered).entries;
        conversations.splice(found.at, 1);
      }
      for (const [key, expires] of entries) if (expires < nowMs) entries.delete(key);
      for (const position of breakpoints) {
        const key = prefixKeys[position];
        if (key === undefined) continue;
        // Re-inserted so the map's order stays that of the last write.
        entries.delete(key);
        entries.set(key, nowMs + CACHE_TTL_5M_MS);
      }
      while (entries.size > CACHE_MEMORY_ENTRIES_PER_CONVERSATION)
        entries.delete(entries.keys().next().value as string);
      conversations.push({ prefixKeys: [...prefixKeys], breakpoints: [...breakpoints], entries });
      while (conversations.length > Math.max(1, capacity)) conversations.shift();
    },
  };
}

/** How many leading keys two cumulative key lists share. */
export function sharedLength(a: readonly string[], b: readonly string[]): number {
  let low = 0;
  let high = Math.min(a.length, b.length);
  // Invariant: the first `low` keys are equal; beyond `high` they differ.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (a[middle - 1] === b[middle - 1]) low = middle;
    else high = middle - 1;
  }
  return low;
}
