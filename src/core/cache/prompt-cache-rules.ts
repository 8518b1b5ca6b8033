/**
 * Anthropic's prompt-cache rules, as its prompt-caching guide states them
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching):
 *
 * - the prompt is one prefix in the order tools → system → messages; a `cache_control` breakpoint on a
 *   block writes one entry, the hash of everything up to and including that block, and nothing for
 *   earlier positions;
 * - a read walks back from each breakpoint one block at a time, at most 20 positions (the breakpoint
 *   itself the first), looking for an entry an earlier request wrote with an identical prefix; the
 *   longest match wins;
 * - at most four breakpoints a request (a top-level automatic `cache_control` takes one of them);
 * - a prefix shorter than the model's minimum is not cached, silently;
 * - writes cost 1.25 × the input price (5-minute entries) or 2 × (1-hour), reads 0.1 ×; an entry lives
 *   5 minutes (or an hour) from its last use.
 */

/** Most breakpoints one request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;
/** Positions a read checks from each breakpoint back, the breakpoint itself included. */
export const CACHE_LOOKBACK_BLOCKS = 20;
/** What a 5-minute cache write costs, as a multiple of the input price. */
export const CACHE_WRITE_5M_MULTIPLIER = 1.25;
/** What a 1-hour cache write costs, as a multiple of the input price. */
export const CACHE_WRITE_1H_MULTIPLIER = 2;
/** What a cache read costs, as a multiple of the input price. */
export const CACHE_READ_MULTIPLIER = 0.1;
export const CACHE_TTL_5M_MS = 5 * 60_000;
export const CACHE_TTL_1H_MS = 60 * 60_000;

/**
 * The shortest prefix cached when the model is not one the table knows: the lowest any current model
 * takes. Placing a breakpoint on a prefix too short for the model costs nothing but the slot; skipping
 * one long enough loses the cache, so an unknown model is given the low figure.
 */
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;

/**
 * Minimum cacheable prefix per model family, first match wins. From the guide's "Cache limitations"
 * (April 2026 edition, and its June 2026 line for Opus 4.8); later models fall to the default.
 */
const MIN_CACHEABLE_BY_MODEL: ReadonlyArray<readonly [RegExp, number]> = [
  [/opus-4-8|opus-4\.8/i, 1024],
  [/opus-4-[567]|opus-4\.[567]|mythos/i, 4096],
  [/haiku-4|haiku-4\.5/i, 4096],
  [/sonnet-4-6|sonnet-4\.6/i, 2048],
  [/haiku-3|3-5-haiku|3-haiku/i, 2048],
];

/** The shortest prefix Anthropic caches for `model`; DEFAULT_MIN_CACHEABLE_TOKENS when unknown. */
export function minCacheableTokensFor(model: string | undefined): number {
  if (model === undefined) return DEFAULT_MIN_CACHEABLE_TOKENS;
  for (const [pattern, tokens] of MIN_CACHEABLE_BY_MODEL) if (pattern.test(model)) return tokens;
  return DEFAULT_MIN_CACHEABLE_TOKENS;
}
