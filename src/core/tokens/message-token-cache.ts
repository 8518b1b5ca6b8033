import { InvalidTokenCounterError } from '../errors/index.ts';
import type { Message } from '../message.ts';
import { estimateMessageTokensResolved } from './estimate-message-tokens.ts';
import { linearBreakdown, type MessageMeasure, measureMessage } from './measure-message.ts';
import { type MessageFingerprintMode, messageFingerprint } from './message-fingerprint.ts';
import type { TokenBreakdown } from './token-breakdown.ts';
import type { TokenCounter } from './token-counter.ts';
import {
  type ResolvedTokenEstimateOptions,
  resolveTokenEstimateOptions,
  type TokenEstimateOptions,
} from './token-estimate-options.ts';

/** Part of every count key: bumped when how a message is counted (or a breakdown's shape) changes. */
const COUNT_KEY_VERSION = 'v1';

/** Enough for any one session; a cache shared by many sessions should be given its own bound. */
export const DEFAULT_TOKEN_CACHE_MAX_ENTRIES = 100_000;

export interface MessageTokenCacheOptions extends TokenEstimateOptions {
  /** How a cached entry is checked against the message handed in. Default `shape`. */
  fingerprint?: MessageFingerprintMode;
  /** Oldest entries are dropped past this many messages. Default {@link DEFAULT_TOKEN_CACHE_MAX_ENTRIES}. */
  maxEntries?: number;
}

interface CacheEntry {
  fingerprint: number;
  /** Runes and token units per category: serve every linear counter, whatever its scale. */
  measure: MessageMeasure | undefined;
  /**
   * The last breakdown derived from `measure` and the scale it was derived at (exactly one of the two is
   * set), reused while the counter's scale has not moved. A calibrated counter's multiplier moves after
   * every accepted usage report: the next lookup sees a different scale and re-derives, arithmetic only.
   */
  linear:
    | { tokensPerUnit: number | undefined; charsPerToken: number | undefined; breakdown: TokenBreakdown }
    | undefined;
  /** Counts by counter name, for counters that tokenize (exact); the first counter's sit in plain fields. */
  countedBy: string | undefined;
  counted: TokenBreakdown | undefined;
  otherCounted: Map<string, TokenBreakdown> | undefined;
}

/**
 * Per-message token counts cached by message id, so estimating a session again after one append
 * tokenizes one message, not the session.
 *
 * Staleness: in ctxkit logged messages are immutable and ids stable, but a view may show a rewritten
 * message (a truncated or cleared result) under its original id. Each entry therefore keeps a
 * fingerprint of the content it was computed from (see {@link MessageFingerprintMode}); a lookup whose
 * fingerprint differs recomputes and replaces the entry, so the newest content under an id wins.
 * Counters are keyed by name (equal names count equally); linear counters (rune- or unit-linear) share one
 * measure and are checked against the scale a figure was derived at, so a calibrated counter's moving
 * multiplier never leaves stale figures behind.
 *
 * One cache is bound to one set of estimate options (framing, media figure): they are part of every
 * figure it holds.
 */
export class MessageTokenCache {
  readonly options: ResolvedTokenEstimateOptions;
  readonly fingerprintMode: MessageFingerprintMode;
  readonly maxEntries: number;
  readonly #entries = new Map<string, CacheEntry>();
  #hits = 0;
  #misses = 0;

  constructor(options: MessageTokenCacheOptions = {}) {
    this.options = resolveTokenEstimateOptions(options);
    this.fingerprintMode = options.fingerprint ?? 'shape';
    this.maxEntries = options.maxEntries ?? DEFAULT_TOKEN_CACHE_MAX_ENTRIES;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) {
      throw new InvalidTokenCounterError('maxEntries', `must be an integer ≥ 1, got ${this.maxEntries}`);
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Lookups answered from the cache, and lookups that had to count. */
  get stats(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /** The message's tokens under `counter`. The result is shared: do not mutate it. */
  estimate(message: Message, counter: TokenCounter): Readonly<TokenBreakdown> {
    const entry = this.#entryFor(message);
    const tokensPerUnit = counter.tokensPerUnit;
    const charsPerToken = tokensPerUnit === undefined ? counter.charsPerToken : undefined;
    if (tokensPerUnit !== undefined || charsPerToken !== undefined) {
      const linear = entry.linear;
      if (linear && linear.tokensPerUnit === tokensPerUnit && linear.charsPerToken === charsPerToken) {
        return this.#hit(linear.breakdown);
      }
      const hadMeasure = entry.measure !== undefined;
      entry.measure ??= measureThrough(message, this.options, counter);
      // Defined: the counter is linear.
      const breakdown = linearBreakdown(entry.measure, counter) as TokenBreakdown;
      entry.linear = { tokensPerUnit, charsPerToken, breakdown };
      return hadMeasure ? this.#hit(breakdown) : this.#miss(breakdown);
    }
    if (entry.countedBy === counter.name && entry.counted !== undefined) return this.#hit(entry.counted);
    const cached = entry.otherCounted?.get(counter.name);
    if (cached !== undefined) return this.#hit(cached);
    const breakdown = estimateMessageTokensResolved(message, counter, this.options);
    if (entry.countedBy === undefined) {
      entry.countedBy = counter.name;
      entry.counted = breakdown;
    } else {
      entry.otherCounted ??= new Map();
      entry.otherCounted.set(counter.name, breakdown);
    }
    return this.#miss(breakdown);
  }

  /**
   * Runes and units per category and flat figures (for calibration anchors). Shared: do not mutate.
   * `counter`: whose memo of scanned texts to measure through (`TokenCounter.tokenUnits`), if any.
   */
  measure(message: Message, counter?: TokenCounter): Readonly<MessageMeasure> {
    const entry = this.#entryFor(message);
    if (entry.measure !== undefined) return this.#hit(entry.measure);
    entry.measure = counter
      ? measureThrough(message, this.options, counter)
      : measureMessage(message, this.options);
    return this.#miss(entry.measure);
  }

  /**
   * What an exact count from this cache depends on besides the message: the counter's name and the
   * framing options. A count kept elsewhere (the session store) is only reused under the same key.
   * Undefined for linear counters: their figures are arithmetic on a measure, not worth keeping.
   */
  countKey(counter: TokenCounter): string | undefined {
    if (counter.tokensPerUnit !== undefined || counter.charsPerToken !== undefined) return undefined;
    // The type flag is appended only when set, so counts stored under the earlier key stay reusable.
    const type = this.options.countToolCallType ? '|type' : '';
    return `${COUNT_KEY_VERSION}|${counter.name}|${this.options.messageOverheadTokens}|${this.options.mediaTokens}${type}`;
  }

  /** The exact count this cache holds for the message under `counter`, if any (nothing is computed). */
  countedFor(message: Message, counter: TokenCounter): Readonly<TokenBreakdown> | undefined {
    const entry = this.#entries.get(message.id);
    if (!entry || entry.fingerprint !== messageFingerprint(message, this.fingerprintMode)) return undefined;
    return entry.countedBy === counter.name ? entry.counted : entry.otherCounted?.get(counter.name);
  }

  /**
   * Takes a count made earlier (in another process) for exactly this message under `counter`, so it is
   * not tokenized again. The caller vouches it was made under `countKey(counter)`.
   */
  seed(message: Message, counter: TokenCounter, breakdown: TokenBreakdown): void {
    if (this.countKey(counter) === undefined) return;
    const entry = this.#entryFor(message);
    if (entry.countedBy === undefined) {
      entry.countedBy = counter.name;
      entry.counted = breakdown;
    } else if (entry.countedBy !== counter.name) {
      entry.otherCounted ??= new Map();
      entry.otherCounted.set(counter.name, breakdown);
    }
  }

  delete(id: string): boolean {
    return this.#entries.delete(id);
  }

  clear(): void {
    this.#entries.clear();
  }

  #entryFor(message: Message): CacheEntry {
    const fingerprint = messageFingerprint(message, this.fingerprintMode);
    const existing = this.#entries.get(message.id);
    if (existing !== undefined && existing.fingerprint === fingerprint) return existing;
    const entry: CacheEntry = {
      fingerprint,
      measure: undefined,
      linear: undefined,
      countedBy: undefined,
      counted: undefined,
      otherCounted: undefined,
    };
    if (existing !== undefined) this.#entries.delete(message.id);
    else if (this.#entries.size >= this.maxEntries) this.#evictOldest();
    this.#entries.set(message.id, entry);
    return entry;
  }

  #evictOldest(): void {
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }

  #hit<T>(value: T): T {
    this.#hits++;
    return value;
  }

  #miss<T>(value: T): T {
    this.#misses++;
    return value;
  }
}

/** A cache holds figures computed with its own options; mixing in others would return wrong numbers silently. */
export function assertCacheOptions(cache: MessageTokenCache, given: TokenEstimateOptions): void {
  for (const field of ['messageOverheadTokens', 'mediaTokens', 'countToolCallType'] as const) {
    const value = given[field];
    if (value !== undefined && value !== cache.options[field]) {
      throw new InvalidTokenCounterError(
        field,
        `is ${value} but the cache was built with ${cache.options[field]}`,
      );
    }
  }
}

/** The message's measure, through `counter`'s memo of scanned texts when it keeps one. */
function measureThrough(
  message: Message,
  options: ResolvedTokenEstimateOptions,
  counter: TokenCounter,
): MessageMeasure {
  const { tokenUnits, denseBytes } = counter;
  if (!tokenUnits || !denseBytes) return measureMessage(message, options);
  return measureMessage(
    message,
    options,
    undefined,
    (text) => tokenUnits.call(counter, text),
    (text) => denseBytes.call(counter, text),
  );
}
