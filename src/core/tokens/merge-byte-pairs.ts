import { hasByteOrderMark, mergeRank, NO_RANK, type RankTable } from './bpe-rank-table.ts';

/**
 * Byte-pair merging of one pre-tokenized piece, counting the tokens it becomes. The rule is tiktoken's
 * and gpt-tokenizer's: start from single bytes, repeatedly merge the adjacent pair whose joined bytes
 * have the lowest rank, the leftmost one on ties, until no adjacent pair is a token.
 *
 * gpt-tokenizer finds each merge by scanning every pair and removes it by splicing arrays: quadratic in
 * the piece, and a run of one character (`-----…`, base64 `AAAA…`, spaces) is one piece, so 200k `-`
 * took about 25 s. Here short pieces are scanned the same way (fastest when small) and longer ones use a
 * heap ordered by (rank, position) over a linked list of parts: the same pair is merged at every step,
 * so the result is identical, in O(n log n). `merge-byte-pairs.test.ts` checks both against gpt-tokenizer.
 *
 * `bytes` is a byte string (see `bpe-rank-table.ts`): one UTF-16 unit per byte.
 */

/** Pieces up to this many bytes are merged by scanning; longer ones through the heap. */
export const SCAN_MERGE_MAX_BYTES = 48;

export function countMergedTokens(bytes: string, ranks: RankTable): number {
  return bytes.length <= SCAN_MERGE_MAX_BYTES ? countByScan(bytes, ranks) : countByHeap(bytes, ranks);
}

/** gpt-tokenizer's loop: find the lowest pair by scanning, merge it, re-rank its two neighbours. */
export function countByScan(bytes: string, ranks: RankTable): number {
  const length = bytes.length;
  if (length <= 1) return length;
  const starts: number[] = [];
  for (let index = 0; index <= length; index++) starts.push(index);
  const rankAt = (part: number): number => {
    const start = starts[part];
    const end = starts[part + 2];
    if (start === undefined || end === undefined) return NO_RANK;
    return mergeRank(ranks, bytes.slice(start, end)) ?? NO_RANK;
  };
  const pairRanks: number[] = [];
  for (let part = 0; part < length; part++) pairRanks.push(rankAt(part));
  let parts = length;
  while (parts > 1) {
    let lowest = NO_RANK;
    let at = -1;
    for (let part = 0; part < parts - 1; part++) {
      const rank = pairRanks[part] ?? NO_RANK;
      if (rank < lowest) {
        lowest = rank;
        at = part;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    pairRanks.splice(at, 1);
    parts--;
    pairRanks[at] = rankAt(at);
    if (at > 0) pairRanks[at - 1] = rankAt(at - 1);
  }
  return parts;
}

/**
 * What a merge run did, step by step, for `count-repeated-run.ts`: the rank merged at each step, and
 * after it where the last part starts and where the first part ends.
 */
export interface MergeTrace {
  ranks: Int32Array;
  lastStart: Int32Array;
  firstEnd: Int32Array;
  steps: number;
}

/**
 * The same merges in O(n log n): parts are a linked list of byte offsets (a part runs from its start to
 * the next part's start), and a min-heap holds `rank × 2³² + start` for every pair that is a token, so
 * the smallest key is the lowest rank and, among equal ranks, the lowest start: the leftmost pair, the
 * scan's choice. A merge re-ranks only the merged part's pair and its left neighbour's, pushing their
 * new keys; keys made stale by a merge stay in the heap and are skipped when they surface (a key is
 * current while its part still starts there and its pair still has that rank).
 *
 * A pair is named by its two tokens' ranks (every part is a token: single bytes are, and only pairs that
 * are tokens merge), so its rank is looked up by number in a small cache shared by every merge with the
 * same table, and only on a miss by slicing its bytes.
 *
 * Memory: four 32-bit arrays the length of the piece (16 bytes per byte) and the heap, 8 bytes a key in
 * an array that starts at one key per byte and doubles when full. Keys stay under two per byte (the
 * build pushes at most one per pair; each merge pops one and pushes at most two, and there are fewer
 * merges than bytes), so the heap takes 8 or 16 bytes per byte: 24 to 32 bytes per byte in all
 * (measured over 1 MB pieces: 24 for runs and base64, 32 for letters and `abab…`), 12 more with a
 * trace, freed on return.
 */
export function countByHeap(bytes: string, ranks: RankTable, trace?: MergeTrace): number {
  const length = bytes.length;
  if (length <= 1) return length;
  const next = new Int32Array(length);
  const prev = new Int32Array(length);
  const pairRank = new Int32Array(length);
  const tokenRank = new Int32Array(length);
  let heap = new Float64Array(length);
  let size = 0;

  const pairs = pairCacheFor(ranks);
  // With a byte-order mark a part's rank may name other bytes (see `mergeRank`): no cache then.
  const cached = !hasByteOrderMark(bytes);
  const rankOf = (part: number): number => {
    const right = next[part] as number;
    if (right >= length) return NO_RANK;
    if (!cached) return mergeRank(ranks, bytes.slice(part, next[right] as number)) ?? NO_RANK;
    const leftToken = tokenRank[part] as number;
    const rightToken = tokenRank[right] as number;
    const entry = (Math.imul(leftToken, 0x9e3779b1) ^ Math.imul(rightToken, 0x85ebca6b)) & PAIR_CACHE_MASK;
    if (pairs.left[entry] === leftToken && pairs.right[entry] === rightToken)
      return pairs.rank[entry] as number;
    const rank = mergeRank(ranks, bytes.slice(part, next[right] as number)) ?? NO_RANK;
    pairs.left[entry] = leftToken;
    pairs.right[entry] = rightToken;
    pairs.rank[entry] = rank;
    return rank;
  };
  const push = (key: number): void => {
    if (size === heap.length) {
      const grown = new Float64Array(heap.length * 2);
      grown.set(heap);
      heap = grown;
    }
    let index = size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] as number;
      if (above <= key) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = key;
  };
  /** Puts `key` at `index` and moves it down until no child is smaller. */
  const siftDown = (index: number, key: number): void => {
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      if (child + 1 < size && (heap[child + 1] as number) < (heap[child] as number)) child++;
      const below = heap[child] as number;
      if (below >= key) break;
      heap[index] = below;
      index = child;
    }
    heap[index] = key;
  };
  /** Removes the smallest key (the heap is not empty). */
  const pop = (): number => {
    const top = heap[0] as number;
    size--;
    siftDown(0, heap[size] as number);
    return top;
  };
  const rerank = (part: number): void => {
    const rank = rankOf(part);
    pairRank[part] = rank;
    if (rank !== NO_RANK) push(rank * KEY_SCALE + part);
  };

  for (let part = 0; part < length; part++) {
    next[part] = part + 1;
    prev[part] = part - 1;
    tokenRank[part] = ranks.get(bytes[part] as string) ?? NO_RANK;
  }
  // Keys in increasing start order for one rank are already heap-ordered among themselves; a bottom-up
  // build orders the rest in linear time.
  for (let part = 0; part < length; part++) {
    const rank = rankOf(part);
    pairRank[part] = rank;
    if (rank !== NO_RANK) heap[size++] = rank * KEY_SCALE + part;
  }
  for (let start = (size >> 1) - 1; start >= 0; start--) siftDown(start, heap[start] as number);

  let parts = length;
  let lastStart = length - 1;
  let firstEnd = 1;
  while (size > 0) {
    const key = pop();
    const rank = Math.floor(key / KEY_SCALE);
    const part = key - rank * KEY_SCALE;
    // Stale: the part was merged into its left neighbour (next = -1), or its pair changed since.
    if (next[part] === -1 || pairRank[part] !== rank) continue;
    const merged = next[part] as number;
    const after = next[merged] as number;
    next[merged] = -1;
    pairRank[merged] = NO_RANK;
    next[part] = after;
    if (after < length) prev[after] = part;
    tokenRank[part] = rank;
    parts--;
    if (after >= length) lastStart = part;
    if (part === 0) firstEnd = after;
    rerank(part);
    const before = prev[part] as number;
    if (before >= 0) rerank(before);
    if (trace) {
      trace.ranks[trace.steps] = rank;
      trace.lastStart[trace.steps] = lastStart;
      trace.firstEnd[trace.steps] = firstEnd;
      trace.steps++;
    }
  }
  return parts;
}

/** Heap keys are `rank × KEY_SCALE + start`: ranks are under 2¹⁸, so keys stay exact below 2⁵³. */
const KEY_SCALE = 2 ** 32;

/**
 * Pair ranks remembered per rank table, by the pair's two token ranks: a direct-mapped table (a new pair
 * overwrites whatever shared its slot), so lookups allocate nothing and memory is fixed (768 KB).
 */
const PAIR_CACHE_BITS = 16;
const PAIR_CACHE_MASK = (1 << PAIR_CACHE_BITS) - 1;

interface PairCache {
  left: Int32Array;
  right: Int32Array;
  rank: Int32Array;
}

const pairCaches = new WeakMap<RankTable, PairCache>();

function pairCacheFor(ranks: RankTable): PairCache {
  let cache = pairCaches.get(ranks);
  if (!cache) {
    const size = 1 << PAIR_CACHE_BITS;
    cache = { left: new Int32Array(size).fill(-1), right: new Int32Array(size), rank: new Int32Array(size) };
    pairCaches.set(ranks, cache);
  }
  return cache;
}

/** An empty trace with room for every merge of a piece of `length` bytes. */
export function newMergeTrace(length: number): MergeTrace {
  const room = Math.max(0, length - 1);
  return {
    ranks: new Int32Array(room),
    lastStart: new Int32Array(room),
    firstEnd: new Int32Array(room),
    steps: 0,
  };
}
