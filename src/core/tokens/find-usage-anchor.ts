import { isAgentVisible, type Message, type Usage } from '../message.ts';

/** `false`, or a predicate refusing the candidate, means: do not trust reported usage, estimate everything. */
export type AnchorUsable = boolean | ((message: Message, index: number) => boolean);

export type FullEstimateReason = 'no-usage' | 'invalid-usage' | 'anchor-refused';

export type UsageAnchorSearch =
  | { found: true; index: number; message: Message; usage: Usage; tokens: number }
  | { found: false; reason: FullEstimateReason };

/** Input + output of a usage report, or undefined when the figures cannot be trusted (tiancai: "valid"). */
export function usageContextTokens(usage: Usage): number | undefined {
  const { inputTokens, outputTokens } = usage;
  if (!Number.isFinite(inputTokens) || !Number.isFinite(outputTokens)) return undefined;
  if (inputTokens < 0 || outputTokens < 0) return undefined;
  const total = inputTokens + outputTokens;
  return total > 0 ? total : undefined;
}

/**
 * The anchor of tiancai's context estimate: the last agent-visible assistant message that carries
 * reported usage. Its input tokens measured everything before it and its output tokens are the message
 * itself, so together they cover the context up to and including it. Assistant messages without usage
 * (injected, replayed) are passed over and estimated like any trailing message; an anchor whose figures
 * are not valid, or that the caller refuses (a compaction changed the prefix it measured), sends the
 * estimate down the full path rather than to an older anchor, which would measure an older prefix still.
 */
export function findUsageAnchor(
  messages: readonly Message[],
  anchorUsable: AnchorUsable = true,
  /** Where the backward search starts; callers that track the last usage-bearing message pass its index. */
  searchFrom: number = messages.length - 1,
): UsageAnchorSearch {
  if (anchorUsable === false) return { found: false, reason: 'anchor-refused' };
  for (let index = Math.min(searchFrom, messages.length - 1); index >= 0; index--) {
    const message = messages[index];
    if (message === undefined || !isUsageCandidate(message) || message.usage === undefined) continue;
    const tokens = usageContextTokens(message.usage);
    if (tokens === undefined) return { found: false, reason: 'invalid-usage' };
    if (typeof anchorUsable === 'function' && !anchorUsable(message, index)) {
      return { found: false, reason: 'anchor-refused' };
    }
    return { found: true, index, message, usage: message.usage, tokens };
  }
  return { found: false, reason: 'no-usage' };
}

/** An agent-visible assistant message carrying reported usage, valid or not. */
export function isUsageCandidate(message: Message): boolean {
  return message.role === 'assistant' && message.usage !== undefined && isAgentVisible(message);
}
