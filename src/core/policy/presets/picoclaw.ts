import { DEFAULT_POLICY } from './default.ts';
import { defineDeviations, definePreset, FINAL_GUARD_DEVIATION } from './define-preset.ts';

/**
 * picoclaw (picoclaw, agent-refactor "Context"): async summarization after each turn when the
 * message count or the history's share of the window passes a threshold, the summary injected into
 * the system prompt; a proactive full-formula check before every call; on overflow, drop the oldest
 * ~50 % of turns. ContextWindow defaults to 4 × MaxTokens; tokens estimated at ~2.5 chars per token.
 * It has no tool-output normalization, truncation, clearing, archiving or turn trimming.
 * Deviations (PICOCLAW_DEVIATIONS): the final guard, ctxkit's own, fits a request the estimate let past
 * the window before it is sent.
 *
 * Figures the seed leaves implicit come from picoclaw itself (pkg/config/defaults.go and
 * pkg/agent): MaxTokens 32768 (the seed's "default 32K"), SummarizeMessageThreshold 20,
 * SummarizeTokenPercent 75, summarizeSession keeps the last 4 messages (snapped with
 * findSafeBoundary), the context-error retry loop runs maxRetries = 2.
 */

export const PICOCLAW_MAX_TOKENS = 32_768;
/**
 * A MaxTokens of 0 is unset: picoclaw's agent falls back to 8192 (pkg/agent, NewAgentInstance), so the
 * window is 4 × 8192 = 32,768 ("the default 32K").
 */
export const PICOCLAW_UNSET_MAX_TOKENS = 8_192;
export const PICOCLAW_SUMMARIZE_MESSAGE_THRESHOLD = 20;
export const PICOCLAW_SUMMARIZE_TOKEN_PERCENT = 75;
export const PICOCLAW_KEEP_RECENT_MESSAGES = 4;
/** "~2.5 characters per token (chars * 2 / 5)". */
export const PICOCLAW_CHARS_PER_TOKEN = 2.5;
/** picoclaw's estimator (pkg/tokenizer): `const mediaTokensPerItem = 256`. */
export const PICOCLAW_MEDIA_TOKENS = 256;
/** "Drops the oldest ~50% of Turns". */
export const PICOCLAW_EMERGENCY_DROP_FRACTION = 0.5;
export const PICOCLAW_CONTEXT_ERROR_RETRIES = 2;

export const PICOCLAW_POLICY = definePreset(DEFAULT_POLICY, {
  budget: {
    // The seed sends what its window allows: default's cap on input is ctxkit's own.
    maxContextTokens: 0,
    contextWindow: 0,
    maxOutputTokens: PICOCLAW_MAX_TOKENS,
    // "Current default when not explicitly configured: ContextWindow = MaxTokens * 4".
    detectWindow: false,
    // isOverContextBudget: "message_tokens + tool_def_tokens + MaxTokens > ContextWindow".
    proactiveCheck: true,
    proactiveAction: 'emergency',
    // maybeSummarize: "estimated history tokens exceed a percentage of ContextWindow" — the history alone,
    // over the window alone, so raising MaxTokens under an explicit ContextWindow leaves it where it was.
    pressureOf: 'history/window',
    // ctxkit's addition, not the seed's: the final request is counted as the provider counts it and fitted
    // when this seed's own estimate let it past the window. `finalGuard: false` restores the seed's
    // failure mode (a request its estimate undercounts is sent as is).
    finalGuard: true,
  },
  tokens: {
    counter: 'heuristic',
    charsPerToken: PICOCLAW_CHARS_PER_TOKEN,
    // "ToolCalls — ID, type, function name, arguments": the type counts as text, as in picoclaw's
    // estimateMessageTokens (`len(tc.ID) + len(tc.Type)`).
    countToolCallType: true,
    // "Media items — flat per-item token estimate": picoclaw's mediaTokensPerItem, not tiancai's ~1200.
    mediaTokens: PICOCLAW_MEDIA_TOKENS,
    // "Token estimation is heuristic" (known gap): no anchoring on reported usage.
    anchorOnUsage: false,
  },
  toolOutput: { enabled: false },
  truncateOld: { enabled: false },
  clearing: { enabled: false },
  archive: { strategy: 'off' },
  trim: { enabled: false },
  summarize: {
    auto: true,
    strategy: 'summarize',
    // "maybeSummarize runs after each Turn completes … a background goroutine".
    runOn: 'turn_end',
    trigger: PICOCLAW_SUMMARIZE_TOKEN_PERCENT / 100,
    maxMessages: PICOCLAW_SUMMARIZE_MESSAGE_THRESHOLD,
    // "when message count exceeds a threshold, or when estimated history tokens exceed a percentage".
    maxMessagesWhen: 'always',
    keepRecentTokens: 0,
    keepRecentFraction: 0,
    keepRecentTurns: 0,
    keepRecentMessages: PICOCLAW_KEEP_RECENT_MESSAGES,
    // "Cut point uses findSafeBoundary so no Turn is split".
    cutAt: 'turn',
    toolResultMaxChars: 0,
    inputMaxTokens: 0,
    maxSummaryTokens: 0,
    // "BuildMessages injects it into the system prompt on the next call".
    placement: 'system-prompt',
    offloadTranscript: false,
    recentToolDigest: false,
    cooldownSeconds: 0,
  },
  compressText: { enabled: false },
  emergency: {
    enabled: true,
    sequence: ['drop-fraction'],
    dropFraction: PICOCLAW_EMERGENCY_DROP_FRACTION,
    maxRetries: PICOCLAW_CONTEXT_ERROR_RETRIES,
    resetWhenStillOver: false,
  },
  restore: { mode: 'full' },
  // The seed's request holds no memory index. (Skills keep the default: they appear only when the caller
  // gives some.)
  indexes: { memory: { ...DEFAULT_POLICY.indexes.memory, show: false } },
});

/** Where this preset does not do what the seed says, and why (shown by `ctxkit config` and `/context`). */
export const PICOCLAW_DEVIATIONS = defineDeviations([FINAL_GUARD_DEVIATION]);
