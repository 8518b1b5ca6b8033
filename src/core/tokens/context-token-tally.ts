import { TokenTallyRangeError } from '../errors/index.ts';
import { isAgentVisible, type Message } from '../message.ts';
import { type ContextTokenEstimate, contextEstimateFrom } from './estimate-context-tokens.ts';
import { type AnchorUsable, findUsageAnchor, isUsageCandidate } from './find-usage-anchor.ts';
import { measuredRunes, measuredUnits } from './measure-message.ts';
import { emptyRequestMeasure, type RequestMeasure } from './measure-request.ts';
import { assertCacheOptions, MessageTokenCache } from './message-token-cache.ts';
import { addBreakdown, emptyBreakdown, subtractBreakdown, type TokenBreakdown } from './token-breakdown.ts';
import type { TokenCounter } from './token-counter.ts';
import type { TokenEstimateOptions } from './token-estimate-options.ts';

export interface ContextTokenTallyOptions extends TokenEstimateOptions {
  /** Shared per-message counts: a tally rebuilt after compaction then tokenizes only what is new. */
  cache?: MessageTokenCache;
}

const NOTHING: Readonly<TokenBreakdown> = Object.freeze(emptyBreakdown());

/**
 * A running token total over a session's view, for the check before every model call: appending a
 * message costs one message's tokenization, replacing one (cleared, archived, hidden) costs one, and the
 * estimate costs the messages after the last reported usage, never the session's length. It gives the
 * same figures as {@link estimateContextTokens} over the same messages.
 *
 * A linear counter's scale may move (a calibrated counter learns after each call): the tally notices and
 * re-derives its figures from cached measures (runes, token units), arithmetic only, on the next full
 * total; appends made in between skip the running sum, so none is ever added at a stale scale.
 */
export class ContextTokenTally {
  readonly counter: TokenCounter;
  readonly cache: MessageTokenCache;
  #messages: Message[] = [];
  /** Per position; hidden messages hold zero so sums skip them without a branch. */
  #values: Readonly<TokenBreakdown>[] = [];
  #sum: TokenBreakdown = emptyBreakdown();
  /** The scale `#values` were derived at (linear counters only; see `scaleOf`). */
  #scale: number | undefined;
  /** Last position of a usage-bearing visible assistant message, -1 when none. */
  #usageIndex = -1;
  #visible = 0;
  /** Visible runes, units and flat tokens, tracked once someone has asked for them (calibration). */
  #measure: RequestMeasure | undefined;

  constructor(
    counter: TokenCounter,
    options: ContextTokenTallyOptions = {},
    messages: readonly Message[] = [],
  ) {
    this.counter = counter;
    this.cache = options.cache ?? new MessageTokenCache(options);
    if (options.cache) assertCacheOptions(options.cache, options);
    this.#scale = scaleOf(counter);
    for (const message of messages) this.append(message);
  }

  get length(): number {
    return this.#messages.length;
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  append(message: Message): void {
    const value = this.#valueOf(message);
    this.#messages.push(message);
    this.#values.push(value);
    if (this.#scaleHolds()) addBreakdown(this.#sum, value);
    if (isAgentVisible(message)) this.#visible++;
    if (isUsageCandidate(message)) this.#usageIndex = this.#messages.length - 1;
    if (this.#measure) this.#addMeasure(message, 1);
  }

  /** The view changed at one position (a result cleared or truncated, a message hidden). */
  replace(index: number, message: Message): void {
    const previous = this.#messages[index];
    const previousValue = this.#values[index];
    if (previous === undefined || previousValue === undefined)
      throw new TokenTallyRangeError(index, this.length);
    const value = this.#valueOf(message);
    if (this.#scaleHolds()) addBreakdown(subtractBreakdown(this.#sum, previousValue), value);
    this.#visible += Number(isAgentVisible(message)) - Number(isAgentVisible(previous));
    if (this.#measure) {
      this.#addMeasure(previous, -1);
      this.#addMeasure(message, 1);
    }
    this.#messages[index] = message;
    this.#values[index] = value;
    if (index >= this.#usageIndex) this.#usageIndex = this.#findUsageIndex(this.#messages.length - 1);
  }

  /** Drops the messages from `length` on (a turn retried or rolled back). */
  truncate(length: number): void {
    if (!Number.isInteger(length) || length < 0 || length > this.length) {
      throw new TokenTallyRangeError(length, this.length);
    }
    for (let index = this.length - 1; index >= length; index--) {
      const value = this.#values[index];
      const message = this.#messages[index];
      if (value !== undefined && this.#scaleHolds()) subtractBreakdown(this.#sum, value);
      if (message !== undefined && isAgentVisible(message)) this.#visible--;
      if (this.#measure && message !== undefined) this.#addMeasure(message, -1);
    }
    this.#messages.length = length;
    this.#values.length = length;
    if (this.#usageIndex >= length) this.#usageIndex = this.#findUsageIndex(length - 1);
  }

  /** A different view (after compaction): cached messages are not tokenized again. */
  reset(messages: readonly Message[] = []): void {
    this.#messages = [];
    this.#values = [];
    this.#sum = emptyBreakdown();
    this.#usageIndex = -1;
    this.#visible = 0;
    this.#measure = undefined;
    this.#scale = scaleOf(this.counter);
    for (const message of messages) this.append(message);
  }

  /** Every visible message estimated (the full path), in O(1) while the counter's scale holds. */
  total(): number {
    return this.breakdown().total;
  }

  breakdown(): TokenBreakdown {
    this.#syncScale();
    return { ...this.#sum };
  }

  /** Same semantics and figures as `estimateContextTokens(this.messages, counter, { cache, anchorUsable })`. */
  estimate(options: { anchorUsable?: AnchorUsable } = {}): ContextTokenEstimate {
    const search = findUsageAnchor(this.#messages, options.anchorUsable ?? true, this.#usageIndex);
    if (!search.found) return contextEstimateFrom(search, this.breakdown(), this.#visible);
    const breakdown = emptyBreakdown();
    let estimatedMessages = 0;
    for (let index = search.index + 1; index < this.#messages.length; index++) {
      const message = this.#messages[index];
      if (message === undefined || !isAgentVisible(message)) continue;
      addBreakdown(breakdown, this.cache.estimate(message, this.counter));
      estimatedMessages++;
    }
    return contextEstimateFrom(search, breakdown, estimatedMessages);
  }

  /** Runes, units and flat tokens of the visible messages, for a calibration anchor (`measureRequest`). */
  measure(): RequestMeasure {
    if (this.#measure === undefined) {
      this.#measure = emptyRequestMeasure();
      for (const message of this.#messages) this.#addMeasure(message, 1);
    }
    return { ...this.#measure };
  }

  #valueOf(message: Message): Readonly<TokenBreakdown> {
    return isAgentVisible(message) ? this.cache.estimate(message, this.counter) : NOTHING;
  }

  #addMeasure(message: Message, sign: 1 | -1): void {
    if (this.#measure === undefined || !isAgentVisible(message)) return;
    const measure = this.cache.measure(message);
    this.#measure.chars += sign * measuredRunes(measure);
    this.#measure.units += sign * measuredUnits(measure);
    this.#measure.fixedTokens += sign * (measure.media + measure.overhead);
  }

  /**
   * Whether `#sum` is still at the counter's current scale. When a calibrated counter has learned since,
   * changes skip the running sum and the next total re-derives everything once.
   */
  #scaleHolds(): boolean {
    return scaleOf(this.counter) === this.#scale;
  }

  /** Re-derives every figure from cached measures (arithmetic, no counting) after the scale moved. */
  #syncScale(): void {
    if (this.#scaleHolds()) return;
    this.#scale = scaleOf(this.counter);
    this.#sum = emptyBreakdown();
    for (let index = 0; index < this.#messages.length; index++) {
      const message = this.#messages[index];
      if (message === undefined) continue;
      const value = this.#valueOf(message);
      this.#values[index] = value;
      addBreakdown(this.#sum, value);
    }
  }

  #findUsageIndex(from: number): number {
    for (let index = from; index >= 0; index--) {
      const message = this.#messages[index];
      if (message !== undefined && isUsageCandidate(message)) return index;
    }
    return -1;
  }
}

/** A linear counter's current scale; one counter only ever sets one kind, so one number tells a move. */
const scaleOf = (counter: TokenCounter): number | undefined => counter.tokensPerUnit ?? counter.charsPerToken;
