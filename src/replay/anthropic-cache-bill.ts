/**
 * What a sequence of requests costs on Anthropic's prompt cache, priced by its rules
 * (core/cache/prompt-cache-rules.ts), in list-price input tokens:
 *
 * - an entry is written only at a breakpoint whose prefix reaches the model's minimum, keyed by the
 *   whole prefix up to it;
 * - a request reads the longest prefix an earlier request wrote and that is still alive, found by
 *   walking back at most 20 blocks from each of its breakpoints (the breakpoint itself the first);
 * - what lies between that read and its last breakpoint is written (1.25 ×, or 2 × up to its last
 *   1-hour breakpoint, the API's position B), what follows it is input at list price (1 ×), the read
 *   0.1 ×; a request with no breakpoint pays 1 × for everything;
 * - an entry lives 5 minutes (1 hour for a `ttl: "1h"` mark) from when it was last written or read.
 *
 * Requests are taken `callSpacingMs` apart unless they say when they were sent (`atMs`): a replay's
 * clock (REPLAY_CALL_SPACING_MS) keeps consecutive calls well inside 5 minutes, so what one call wrote
 * is alive for the next, and an entry nothing used for ten calls is gone.
 *
 * Not modelled: the thinking blocks the API drops from the prefix when a user turn that is not only tool
 * results follows them with extended thinking on; concurrent requests (an entry exists from the first
 * answer on).
 */
import { anthropicCacheBlocks } from '../adapters/anthropic-cache-blocks.ts';
import { toAnthropicMessages } from '../adapters/anthropic-messages.ts';
import { placeAnthropicCacheMarks } from '../adapters/place-anthropic-cache-marks.ts';
import { toAnthropicTool } from '../adapters/tool-definitions.ts';
import { createCachePrefixMemory } from '../core/cache/cache-prefix-memory.ts';
import {
  CACHE_LOOKBACK_BLOCKS,
  CACHE_READ_MULTIPLIER,
  CACHE_TTL_1H_MS,
  CACHE_TTL_5M_MS,
  CACHE_WRITE_1H_MULTIPLIER,
  CACHE_WRITE_5M_MULTIPLIER,
  MAX_CACHE_BREAKPOINTS,
  minCacheableTokensFor,
} from '../core/cache/prompt-cache-rules.ts';
import { sendableMessages } from '../providers/anthropic-client.ts';
import type { ReplayedRequest } from './replay-types.ts';
import { REPLAY_CALL_SPACING_MS } from './replay-with-ctxkit.ts';

export interface CacheBilledBlock {
  /** Identity of the block's content: equal keys, equal blocks. */
  key: string;
  tokens: number;
}

export interface CacheBreakpoint {
  /** Index of the marked block. */
  position: number;
  /** A `ttl: "1h"` mark. */
  longTtl?: boolean;
}

export interface CacheBilledRequest {
  /** Tools, system, then message blocks, in order. */
  blocks: readonly CacheBilledBlock[];
  breakpoints: readonly CacheBreakpoint[];
  /** When it was sent; default: `callSpacingMs` after the previous one. */
  atMs?: number;
}

export interface AnthropicCacheBillOptions {
  /** The shortest prefix cached, in tokens. Default: minCacheableTokensFor(model). */
  minTokens?: number;
  model?: string;
  /** Default REPLAY_CALL_SPACING_MS. */
  callSpacingMs?: number;
}

export interface CacheCallBill {
  /** Input tokens of the request. */
  input: number;
  /** Tokens read from the cache. */
  read: number;
  /** Tokens written as 5-minute entries. */
  written: number;
  /** Tokens written as 1-hour entries. */
  writtenLong: number;
  /** Tokens after the last breakpoint (or all, without one): list price. */
  uncached: number;
  /** What the input costs, in list-price tokens. */
  billed: number;
}

export interface AnthropicCacheBill {
  calls: CacheCallBill[];
  totals: CacheCallBill;
}

interface Entry {
  expiresAt: number;
  ttl: number;
}

/** Prices the requests in order, on one cache that starts empty. */
export function billAnthropicCache(
  requests: readonly CacheBilledRequest[],
  options: AnthropicCacheBillOptions = {},
): AnthropicCacheBill {
  const minTokens = options.minTokens ?? minCacheableTokensFor(options.model);
  const spacing = options.callSpacingMs ?? REPLAY_CALL_SPACING_MS;
  /** Prefix ids: one per distinct prefix, each a child of the prefix one block shorter. */
  const prefixIds = new Map<string, number>();
  const entries = new Map<number, Entry>();
  const calls: CacheCallBill[] = [];
  let now = 0;

  for (const [index, request] of requests.entries()) {
    now = request.atMs ?? (index === 0 ? 0 : now + spacing);
    const ids: number[] = [];
    const reached: number[] = [];
    let parent = -1;
    let total = 0;
    for (const block of request.blocks) {
      const path = `${parent}\u0000${block.key}`;
      let id = prefixIds.get(path);
      if (id === undefined) {
        id = prefixIds.size;
        prefixIds.set(path, id);
      }
      ids.push(id);
      parent = id;
      total += Math.max(0, block.tokens);
      reached.push(total);
    }
    const alive = (at: number): Entry | undefined => {
      const entry = entries.get(ids[at] as number);
      return entry !== undefined && entry.expiresAt >= now ? entry : undefined;
    };

    // The API refuses a fifth mark; a request that had one would never have been sent.
    const marks = [...request.breakpoints]
      .filter((mark) => mark.position >= 0 && mark.position < ids.length)
      .sort((a, b) => a.position - b.position)
      .slice(-MAX_CACHE_BREAKPOINTS)
      .filter((mark) => (reached[mark.position] ?? 0) >= minTokens);

    let hit = -1;
    for (const mark of marks) {
      const stop = Math.max(0, mark.position - CACHE_LOOKBACK_BLOCKS + 1);
      for (let at = mark.position; at >= stop && at > hit; at--) {
        if (alive(at) !== undefined) {
          hit = at;
          break;
        }
      }
    }
    const read = hit >= 0 ? (reached[hit] ?? 0) : 0;
    const last = marks.at(-1);
    const lastReached = last !== undefined ? (reached[last.position] ?? 0) : 0;
    const longest = marks.filter((mark) => mark.longTtl && mark.position > hit).at(-1);
    const longReached = longest !== undefined ? (reached[longest.position] ?? 0) : read;
    const writtenLong = Math.max(0, longReached - read);
    const written = Math.max(0, lastReached - Math.max(read, longReached));
    const uncached = total - Math.max(read, lastReached);

    if (hit >= 0) {
      const entry = alive(hit) as Entry;
      entry.expiresAt = now + entry.ttl;
    }
    for (const mark of marks) {
      const ttl = mark.longTtl ? CACHE_TTL_1H_MS : CACHE_TTL_5M_MS;
      const existing = entries.get(ids[mark.position] as number);
      const kept = existing !== undefined && existing.expiresAt >= now ? Math.max(existing.ttl, ttl) : ttl;
      entries.set(ids[mark.position] as number, { ttl: kept, expiresAt: now + kept });
    }

    calls.push({
      input: total,
      read,
      written,
      writtenLong,
      uncached,
      billed:
        CACHE_READ_MULTIPLIER * read +
        CACHE_WRITE_5M_MULTIPLIER * written +
        CACHE_WRITE_1H_MULTIPLIER * writtenLong +
        uncached,
    });
  }
  const totals: CacheCallBill = { input: 0, read: 0, written: 0, writtenLong: 0, uncached: 0, billed: 0 };
  for (const call of calls) {
    totals.input += call.input;
    totals.read += call.read;
    totals.written += call.written;
    totals.writtenLong += call.writtenLong;
    totals.uncached += call.uncached;
    totals.billed += call.billed;
  }
  return { calls, totals };
}

/**
 * Where a replayed session's requests carry breakpoints: `none`, `end` (one on the last block that can
 * carry it, as agents commonly mark), `ctxkit` (what the Anthropic model client places).
 */
export type CacheMarking = 'none' | 'end' | 'ctxkit';

export interface ReplayCacheBillOptions extends AnthropicCacheBillOptions {
  marking: CacheMarking;
  /** Tokens of a block from its JSON (an o200k count is a fair stand-in for Claude's tokenizer). */
  countTokens: (json: string) => number;
}

/**
 * A replayed session's requests as the Anthropic client would send them, marked by `marking`, priced by
 * billAnthropicCache. One call per session, e.g. beside the other bills in computeReplayMetrics.
 */
export function anthropicCacheBillOfReplay(
  requests: readonly ReplayedRequest[],
  options: ReplayCacheBillOptions,
): AnthropicCacheBill {
  const counted = new Map<string, number>();
  const tokensOf = (json: string, key: string) => {
    let tokens = counted.get(key);
    if (tokens === undefined) {
      tokens = options.countTokens(json);
      counted.set(key, tokens);
    }
    return tokens;
  };
  const memory = createCachePrefixMemory();
  const spacing = options.callSpacingMs ?? REPLAY_CALL_SPACING_MS;
  const billed: CacheBilledRequest[] = requests.map((request, index) => {
    const body = anthropicBodyOf(request, options.model);
    const blocks = anthropicCacheBlocks(body, tokensOf);
    let positions: number[] = [];
    if (options.marking === 'end') {
      const last = blocks.findLastIndex((block) => block.cacheable);
      positions = last >= 0 ? [last] : [];
    } else if (options.marking === 'ctxkit') {
      const placed = placeAnthropicCacheMarks(body, {
        memory,
        blocks,
        nowMs: index * spacing,
        ...(options.model !== undefined && { model: options.model }),
        ...(options.minTokens !== undefined && { minTokens: options.minTokens }),
      });
      placed.remember();
      positions = placed.breakpoints;
    }
    return {
      blocks: blocks.map((block) => ({ key: block.key, tokens: block.tokens ?? 0 })),
      breakpoints: positions.map((position) => ({ position })),
    };
  });
  return billAnthropicCache(billed, options);
}

/** The Messages body the Anthropic client builds for a replayed request (its system, tools, messages). */
export function anthropicBodyOf(request: ReplayedRequest, model = 'claude'): Record<string, unknown> {
  const { system, messages } = toAnthropicMessages({
    system: request.system ? [request.system] : [],
    messages: sendableMessages(request.messages),
  });
  return {
    model,
    max_tokens: request.maxOutputTokens,
    ...(system !== undefined && { system }),
    messages,
    ...(request.tools.length > 0 && { tools: request.tools.map(toAnthropicTool) }),
  };
}
