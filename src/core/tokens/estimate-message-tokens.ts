import type { Message } from '../message.ts';
import { forEachCountedText, forEachMedia, mediaItemTokens } from './counted-text.ts';
import { breakdownFromMeasure, breakdownFromUnits, measureMessage } from './measure-message.ts';
import { emptyBreakdown, type TokenBreakdown } from './token-breakdown.ts';
import type { TokenCounter } from './token-counter.ts';
import {
  type ResolvedTokenEstimateOptions,
  resolveTokenEstimateOptions,
  type TokenEstimateOptions,
} from './token-estimate-options.ts';

/**
 * Tokens one message costs, by category (picoclaw's list): text, reasoning, tool calls (id, name,
 * arguments), tool results (content, call id), a flat per-item media figure added directly, and the
 * per-message framing. Visibility is not looked at here: a hidden message still has a size; context-level
 * estimators are the ones that skip `agentVisible === false`.
 */
export function estimateMessageTokens(
  message: Pick<Message, 'parts'>,
  counter: TokenCounter,
  options?: TokenEstimateOptions,
): TokenBreakdown {
  return estimateMessageTokensResolved(message, counter, resolveTokenEstimateOptions(options));
}

/** Same, with options already resolved: the form hot paths (caches, tallies) call. */
export function estimateMessageTokensResolved(
  message: Pick<Message, 'parts'>,
  counter: TokenCounter,
  options: ResolvedTokenEstimateOptions,
): TokenBreakdown {
  if (counter.tokensPerUnit !== undefined) {
    return breakdownFromUnits(
      measureMessage(
        message,
        options,
        'units',
        counter.tokenUnits?.bind(counter),
        counter.denseBytes?.bind(counter),
      ),
      counter.tokensPerUnit,
    );
  }
  if (counter.charsPerToken !== undefined) {
    return breakdownFromMeasure(measureMessage(message, options, 'runes'), counter.charsPerToken);
  }
  const breakdown = emptyBreakdown();
  forEachCountedText(
    message,
    (category, text) => {
      if (text.length > 0) breakdown[category] += counter.count(text);
    },
    options.countToolCallType,
  );
  forEachMedia(message, (media) => {
    breakdown.media += mediaItemTokens(media, options.mediaTokens);
  });
  breakdown.overhead = options.messageOverheadTokens;
  breakdown.total =
    breakdown.text +
    breakdown.reasoning +
    breakdown.toolCalls +
    breakdown.toolResults +
    breakdown.media +
    breakdown.overhead;
  return breakdown;
}
