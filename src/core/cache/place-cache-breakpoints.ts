/**
 * Where to put a request's prompt-cache breakpoints, from what ctxkit knows stays the same between its
 * calls. Pure: blocks in, block positions out.
 *
 * The request is read as Anthropic reads it, one run of blocks: tool definitions, system blocks, then
 * every content block of every message. By the cache's rules (prompt-cache-rules.ts) an entry is
 * written only at a breakpoint and found again only from a breakpoint at most 20 blocks after it, so the
 * marks go, in this order of worth:
 *
 * 1. the end of the request: the entry the next call reads;
 * 2. the last entry an earlier call of the conversation wrote inside the prefix this call shares with the
 *    previous one (or, knowing of none, the end of that prefix): the read, exact however many blocks
 *    came since and wherever an edit cut the conversation;
 * 3. the end of the tools and system: read by any call that sends them again (a new conversation, a
 *    subagent, a conversation whose history was rewritten from the start);
 * 4. the end of the prefix the next edit will leave alone, when known: its entry survives that edit;
 * 5. the block before the largest one added since the previous call: ctxkit's next edits most often
 *    land on what just arrived (a large result offloaded or clipped under pressure), and this entry
 *    keeps the prefix up to it (on the corpus at a 16k window, 3 % less billed than without it);
 * 6. the end of the prefix shared with the previous call, when an edit cut it: written for a later edit
 *    at the same place;
 * 7. with the previous call unknown, one mark every 20 blocks back from the end, so an entry the
 *    previous call wrote up to 60 blocks before this end is still found.
 *
 * A mark goes only on a block that can carry one (not thinking, not empty text) and only where the
 * prefix reaches the model's minimum: a shorter prefix is not cached and would waste a slot.
 */
import { CACHE_LOOKBACK_BLOCKS, MAX_CACHE_BREAKPOINTS } from './prompt-cache-rules.ts';

export interface CacheBlock {
  /** What the block costs, in the model's tokens (an estimate does). */
  tokens: number;
  /** Whether the block may carry `cache_control`. */
  cacheable: boolean;
}

export interface CachePlacementInput {
  blocks: readonly CacheBlock[];
  /** How many of the leading blocks are tool definitions and system blocks. */
  fixedBlocks: number;
  /** Leading blocks identical to the previous request of the conversation; undefined when unknown. */
  sharedWithPrevious?: number | undefined;
  /** The positions the previous request marked (its entries, where its prefix reached the minimum). */
  previousBreakpoints?: readonly number[] | undefined;
  /** Positions where earlier requests of the conversation wrote entries still alive. */
  writtenPositions?: readonly number[] | undefined;
  /** Leading blocks the next edit will leave unchanged, when known. */
  stableBlocks?: number | undefined;
  /** The shortest prefix the model caches, in tokens. */
  minTokens: number;
  /** Default MAX_CACHE_BREAKPOINTS. */
  maxBreakpoints?: number;
  /** Default CACHE_LOOKBACK_BLOCKS. */
  lookback?: number;
}

/** Block positions to mark, ascending: at most `maxBreakpoints`, each cacheable and past the minimum. */
export function placeCacheBreakpoints(input: CachePlacementInput): number[] {
  const { blocks, minTokens } = input;
  const max = Math.min(input.maxBreakpoints ?? MAX_CACHE_BREAKPOINTS, MAX_CACHE_BREAKPOINTS);
  const lookback = Math.max(1, input.lookback ?? CACHE_LOOKBACK_BLOCKS);
  if (blocks.length === 0 || max <= 0) return [];

  const reached: number[] = [];
  let total = 0;
  for (const block of blocks) {
    total += Math.max(0, block.tokens);
    reached.push(total);
  }
  const eligible = (at: number) =>
    at >= 0 && at < blocks.length && (blocks[at] as CacheBlock).cacheable && (reached[at] ?? 0) >= minTokens;
  /** The last block at or before `at` a mark may go on; -1 when none. */
  const markableAtOrBefore = (at: number): number => {
    for (let position = Math.min(at, blocks.length - 1); position >= 0; position--) {
      if ((reached[position] ?? 0) < minTokens) return -1;
      if ((blocks[position] as CacheBlock).cacheable) return position;
    }
    return -1;
  };

  const wanted: number[] = [];
  const end = markableAtOrBefore(blocks.length - 1);
  wanted.push(end);

  const shared = input.sharedWithPrevious;
  const known = shared !== undefined;
  if (known && shared > 0) {
    const written = [...(input.previousBreakpoints ?? []), ...(input.writtenPositions ?? [])].filter(
      (at) => at < shared && eligible(at),
    );
    wanted.push(written.length > 0 ? Math.max(...written) : markableAtOrBefore(shared - 1));
  }
  wanted.push(markableAtOrBefore(input.fixedBlocks - 1));
  if (input.stableBlocks !== undefined) wanted.push(markableAtOrBefore(input.stableBlocks - 1));
  const from = Math.max(shared ?? 0, input.fixedBlocks);
  let largest = -1;
  for (let at = from; at < blocks.length; at++) {
    if (largest < 0 || (blocks[at] as CacheBlock).tokens > (blocks[largest] as CacheBlock).tokens)
      largest = at;
  }
  if (largest > from) wanted.push(markableAtOrBefore(largest - 1));
  if (known && shared > 0) wanted.push(markableAtOrBefore(shared - 1));
  if (!known && end >= 0) {
    for (let back = end - lookback; back >= 0; back -= lookback) wanted.push(markableAtOrBefore(back));
  }

  const chosen = new Set<number>();
  for (const position of wanted) {
    if (chosen.size >= max) break;
    if (position >= 0) chosen.add(position);
  }
  return [...chosen].sort((a, b) => a - b);
}
