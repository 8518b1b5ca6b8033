/**
 * ctxkit's prompt-cache breakpoints on an Anthropic Messages body that carries none: the body read as
 * the cache reads it (anthropic-cache-blocks.ts), the positions chosen by placeCacheBreakpoints from
 * what the memory says the previous request of the conversation was, and the marks written on them.
 * A body with any `cache_control` of its own is left exactly as it is: its sender chose its marks.
 */
import type { CachePrefixMemory } from '../core/cache/cache-prefix-memory.ts';
import { placeCacheBreakpoints } from '../core/cache/place-cache-breakpoints.ts';
import { minCacheableTokensFor } from '../core/cache/prompt-cache-rules.ts';
import {
  type AnthropicCacheBlock,
  anthropicCacheBlocks,
  hasAnthropicCacheControl,
  withCacheMarks,
} from './anthropic-cache-blocks.ts';

/**
 * Characters per token the placement estimates a block's size with, from its JSON. Fewer than the
 * tokenizers give, on purpose: a size overestimated costs at most a mark on a prefix the API does not
 * cache; one underestimated skips a prefix it would have.
 */
export const CACHE_ESTIMATE_CHARS_PER_TOKEN = 3;

export interface AnthropicCacheMarkOptions {
  /** Chooses the minimum cacheable prefix (minCacheableTokensFor). Default: the body's `model`. */
  model?: string;
  /** Overrides the model's minimum. */
  minTokens?: number;
  /**
   * What earlier requests were. Without one, or for a request it holds nothing of, the request is marked
   * as if it were the first: besides its end and its tools and system, every 20 blocks back.
   */
  memory?: CachePrefixMemory;
  /** Leading blocks the next edit will leave as they are, when the caller knows. */
  stableBlocks?: number;
  /** The body's blocks, when the caller has read them already (anthropicCacheBlocks of this body). */
  blocks?: readonly AnthropicCacheBlock[];
  /** The time the memory judges which entries are still alive by. Default `Date.now()`. */
  nowMs?: number;
}

export interface PlacedAnthropicCacheMarks {
  /** The body to send: with ctxkit's marks, or the input itself when it carried its own. */
  body: Record<string, unknown>;
  /** Indices, in the cache's run of blocks, of the marks ctxkit placed; empty when it placed none. */
  breakpoints: number[];
  /** The body came with `cache_control` of its own. */
  senderMarked: boolean;
  /** Records the request in the memory: call it once the answer has begun (an entry exists from then). */
  remember(): void;
}

export function placeAnthropicCacheMarks(
  body: Record<string, unknown>,
  options: AnthropicCacheMarkOptions = {},
): PlacedAnthropicCacheMarks {
  if (hasAnthropicCacheControl(body))
    return { body, breakpoints: [], senderMarked: true, remember: () => undefined };
  const blocks = options.blocks ?? anthropicCacheBlocks(body);
  const prefixKeys = blocks.map((block) => block.prefixKey);
  const fixedBlocks = blocks.filter((block) => block.region !== 'messages').length;
  const nowMs = options.nowMs ?? Date.now();
  const previous = options.memory?.recall(prefixKeys, nowMs);
  const model = options.model ?? (typeof body.model === 'string' ? body.model : undefined);
  const breakpoints = placeCacheBreakpoints({
    blocks: blocks.map((block) => ({
      tokens: Math.ceil(block.chars / CACHE_ESTIMATE_CHARS_PER_TOKEN),
      cacheable: block.cacheable,
    })),
    fixedBlocks,
    minTokens: options.minTokens ?? minCacheableTokensFor(model),
    ...(previous !== undefined && {
      sharedWithPrevious: previous.shared,
      previousBreakpoints: previous.breakpoints,
      writtenPositions: previous.written,
    }),
    ...(options.stableBlocks !== undefined && { stableBlocks: options.stableBlocks }),
  });
  return {
    body: withCacheMarks(body, blocks, breakpoints),
    breakpoints,
    senderMarked: false,
    remember: () =>
      options.memory?.remember(prefixKeys, breakpoints, fixedBlocks, options.nowMs ?? Date.now()),
  };
}
