/**
 * What a model client or the proxy remembers of the requests it sent, so the next one can read what
 * they wrote: for each of the last few conversations, the prefix keys of its last request and where
 * that request put its breakpoints. A new request is matched with the remembered one it shares the most
 * leading blocks with, which needs no session id: two calls of one conversation share their history.
 *
 * Prefix keys are cumulative (each covers every block before it), so two requests share exactly the
 * leading blocks whose keys are equal, found by bisection.
 */

/** Conversations remembered at once; the least recently used is forgotten first. */
export const DEFAULT_CACHE_MEMORY_CONVERSATIONS = 64;

export interface RecalledRequest {
  /** Leading blocks this request shares with the remembered one. */
  shared: number;
  /** Where the remembered request put its breakpoints. */
  breakpoints: readonly number[];
}

export interface CachePrefixMemory {
  /** The remembered request sharing the most leading blocks with these, when one shares any. */
  recall(prefixKeys: readonly string[]): RecalledRequest | undefined;
  /**
   * Records a request that was sent (once its answer began: an entry exists only from then). It takes the
   * place of the request of the same conversation: the one it shares more than `fixedBlocks` blocks with.
   */
  remember(prefixKeys: readonly string[], breakpoints: readonly number[], fixedBlocks: number): void;
}

interface Remembered {
  prefixKeys: readonly string[];
  breakpoints: readonly number[];
}

export function createCachePrefixMemory(
  capacity: number = DEFAULT_CACHE_MEMORY_CONVERSATIONS,
): CachePrefixMemory {
  /** Oldest first. */
  const entries: Remembered[] = [];

  const best = (prefixKeys: readonly string[]): { at: number; shared: number } | undefined => {
    let found: { at: number; shared: number } | undefined;
    entries.forEach((entry, at) => {
      const shared = sharedLength(entry.prefixKeys, prefixKeys);
      if (shared > 0 && (found === undefined || shared >= found.shared)) found = { at, shared };
    });
    return found;
  };

  return {
    recall(prefixKeys) {
      const found = best(prefixKeys);
      if (found === undefined) return undefined;
      return { shared: found.shared, breakpoints: (entries[found.at] as Remembered).breakpoints };
    },
    remember(prefixKeys, breakpoints, fixedBlocks) {
      const found = best(prefixKeys);
      if (found !== undefined && found.shared > fixedBlocks) entries.splice(found.at, 1);
      entries.push({ prefixKeys: [...prefixKeys], breakpoints: [...breakpoints] });
      while (entries.length > Math.max(1, capacity)) entries.shift();
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
