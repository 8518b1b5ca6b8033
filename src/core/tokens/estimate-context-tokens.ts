import { isAgentVisible, type Message } from '../message.ts';
import { estimateMessageTokensResolved } from './estimate-message-tokens.ts';
import {
  type AnchorUsable,
  type FullEstimateReason,
  findUsageAnchor,
  type UsageAnchorSearch,
} from './find-usage-anchor.ts';
import { assertCacheOptions, type MessageTokenCache } from './message-token-cache.ts';
import { addBreakdown, emptyBreakdown, type TokenBreakdown } from './token-breakdown.ts';
import type { TokenCounter } from './token-counter.ts';
import { resolveTokenEstimateOptions, type TokenEstimateOptions } from './token-estimate-options.ts';

export interface ContextEstimateOptions extends TokenEstimateOptions {
  /** Per-message counts by id; when given, its own estimate options apply (pass none here). */
  cache?: MessageTokenCache;
  /** Whether the last reported usage may anchor the estimate. Default true. */
  anchorUsable?: AnchorUsable;
}

export interface UsageAnchorFigures {
  index: number;
  messageId: string;
  inputTokens: number;
  outputTokens: number;
  /** inputTokens + outputTokens. */
  tokens: number;
}

export interface ContextTokenEstimate {
  tokens: number;
  /** `anchored`: reported usage + estimate of the messages after it; `full`: every visible message estimated. */
  path: 'anchored' | 'full';
  /** The usage the estimate stands on (anchored path only). */
  anchor?: UsageAnchorFigures;
  /** Why the full path was taken (full path only). */
  fullReason?: FullEstimateReason;
  /** Tokens that were estimated rather than reported, and how many messages they cover. */
  estimatedTokens: number;
  estimatedMessages: number;
  /** The estimated part by category (the anchored part has no breakdown: the provider gives a total). */
  breakdown: TokenBreakdown;
}

/**
 * tiancai's `EstimateContextTokens`: the last assistant's reported usage (input + output) plus an
 * estimate of the messages after it; without a usable anchor, an estimate over every visible message.
 * Messages with `meta.agentVisible === false` are never counted: the model does not see them.
 */
export function estimateContextTokens(
  messages: readonly Message[],
  counter: TokenCounter,
  options: ContextEstimateOptions = {},
): ContextTokenEstimate {
  const estimateOne = messageEstimator(counter, options);
  const search = findUsageAnchor(messages, options.anchorUsable ?? true);
  const from = search.found ? search.index + 1 : 0;
  const breakdown = emptyBreakdown();
  let estimatedMessages = 0;
  for (let index = from; index < messages.length; index++) {
    const message = messages[index];
    if (message === undefined || !isAgentVisible(message)) continue;
    addBreakdown(breakdown, estimateOne(message));
    estimatedMessages++;
  }
  return contextEstimateFrom(search, breakdown, estimatedMessages);
}

/**
 * The estimate an anchor search adds up to, given the breakdown of the messages it left to estimate
 * (after the anchor, or all of them when none was found): shared with `ContextTokenTally`.
 */
export function contextEstimateFrom(
  search: UsageAnchorSearch,
  breakdown: TokenBreakdown,
  estimatedMessages: number,
): ContextTokenEstimate {
  if (!search.found) {
    return {
      tokens: breakdown.total,
      path: 'full',
      fullReason: search.reason,
      estimatedTokens: breakdown.total,
      estimatedMessages,
      breakdown,
    };
  }
  return {
    tokens: search.tokens + breakdown.total,
    path: 'anchored',
    anchor: {
      index: search.index,
      messageId: search.message.id,
      inputTokens: search.usage.inputTokens,
      outputTokens: search.usage.outputTokens,
      tokens: search.tokens,
    },
    estimatedTokens: breakdown.total,
    estimatedMessages,
    breakdown,
  };
}

/** Every visible message estimated, by category: what `/context` shows, anchored or not. */
export function estimateMessagesTokens(
  messages: readonly Message[],
  counter: TokenCounter,
  options: Omit<ContextEstimateOptions, 'anchorUsable'> = {},
): TokenBreakdown {
  const estimateOne = messageEstimator(counter, options);
  const breakdown = emptyBreakdown();
  for (const message of messages) if (isAgentVisible(message)) addBreakdown(breakdown, estimateOne(message));
  return breakdown;
}

function messageEstimator(
  counter: TokenCounter,
  options: ContextEstimateOptions,
): (message: Message) => Readonly<TokenBreakdown> {
  const { cache } = options;
  if (cache === undefined) {
    const resolved = resolveTokenEstimateOptions(options);
    return (message) => estimateMessageTokensResolved(message, counter, resolved);
  }
  assertCacheOptions(cache, options);
  return (message) => cache.estimate(message, counter);
}
