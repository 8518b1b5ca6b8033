import { DEFAULT_POLICY } from './default.ts';
import { defineDeviations, definePreset, FINAL_GUARD_DEVIATION } from './define-preset.ts';

/**
 * tiancai (tiancai, pkg/compact + pkg/agent): tool output normalized on arrival (caps, spill past
 * 200 Ki runes), old tool results archived behind a digest past 10 visible, and session compaction
 * into a user message when tokens reach window − reserve (else MaxTokens, else MaxMessages), keeping
 * the newest 20k tokens (or 5 messages); overflow: compact and retry once. A request that would not
 * fit (the final guard's count) is compacted before it is sent, as that overflow would have been: turns
 * are dropped only when the summary is not enough.
 * It has no terminal rendering, no truncation of old results, no clearing and no turn trimming.
 * Deviations (TIANCAI_DEVIATIONS): the final guard, ctxkit's own, and the compaction it makes before
 * sending what tiancai would send and compact after the overflow.
 */

/** compact.Config defaults. */
export const TIANCAI_MAX_MESSAGES = 50;
/** tiancai's MaxTokens: the token limit used when no context window is set. */
export const TIANCAI_MAX_TOKENS = 8_000;
export const TIANCAI_KEEP_RECENT = 5;
export const TIANCAI_KEEP_RECENT_TOKENS = 20_000;
export const TIANCAI_RESERVE_TOKENS = 16_384;
export const TIANCAI_TOOL_CALL_CUTOFF = 10;

/** ToolOutputLimits defaults. */
export const TIANCAI_MAX_LINES = 2_000;
export const TIANCAI_MAX_BYTES = 50 * 1024;
export const TIANCAI_MAX_CHARS = 200 * 1024;
export const TIANCAI_LARGE_OUTPUT_THRESHOLD = 200 * 1024;

/** "input clipped to 12000 chars", "output clipped to 1200 runes", heuristic "clipped to 800 runes". */
export const TIANCAI_SUMMARY_INPUT_MAX_CHARS = 12_000;
export const TIANCAI_SUMMARY_OUTPUT_MAX_CHARS = 1_200;
export const TIANCAI_HEURISTIC_SUMMARY_MAX_CHARS = 800;
/** "toolResult text is reduced to a max of 1800 runes for summary input". */
export const TIANCAI_SUMMARY_TOOL_RESULT_MAX_CHARS = 1_800;
/** "maxCompactionRecoveries = 1". */
export const TIANCAI_MAX_COMPACTION_RECOVERIES = 1;

export const TIANCAI_POLICY = definePreset(DEFAULT_POLICY, {
  budget: {
    reserveTokens: TIANCAI_RESERVE_TOKENS,
    maxContextTokens: TIANCAI_MAX_TOKENS,
    // EffectiveTokenLimit: "contextWindow − ReserveTokens … else MaxTokens".
    maxContextTokensWhen: 'no-window',
    proactiveCheck: false,
    // ctxkit's addition, not the seed's: the final request is counted as the provider counts it and fitted
    // when this seed's own estimate let it past the window. `finalGuard: false` restores the seed's
    // failure mode (a request its estimate undercounts is sent as is).
    finalGuard: true,
  },
  tokens: {
    counter: 'heuristic',
    // "converted with ceil(chars / 4)", "images approximated as ~1200 tokens", no per-message framing.
    charsPerToken: 4,
    mediaTokens: 1_200,
    messageOverhead: 0,
    // "last assistant usage totals … plus estimated tokens for trailing messages".
    anchorOnUsage: true,
  },
  toolOutput: {
    enabled: true,
    renderTerminal: false,
    maxLines: TIANCAI_MAX_LINES,
    maxBytes: TIANCAI_MAX_BYTES,
    maxChars: TIANCAI_MAX_CHARS,
    truncateMode: 'head_tail',
    // "1. If rune count exceeds LargeOutputThreshold, output is spilled … 2. Otherwise, truncation".
    capBeforeSpill: false,
    spillThresholdChars: TIANCAI_LARGE_OUTPUT_THRESHOLD,
    spillThresholdTokens: 0,
    spillWhenTruncated: false,
    // The spill notice carries the saved path and SHA256 checksum, no preview.
    previewHeadLines: 0,
    previewTailLines: 0,
    oversizedFraction: 0,
  },
  truncateOld: { enabled: false },
  clearing: { enabled: false },
  archive: {
    toolCallCutoff: TIANCAI_TOOL_CALL_CUTOFF,
    // ToolSummaryStrategy "llm" (default).
    strategy: 'model',
    inputMaxChars: TIANCAI_SUMMARY_INPUT_MAX_CHARS,
    outputMaxChars: TIANCAI_SUMMARY_OUTPUT_MAX_CHARS,
    extractiveMaxChars: TIANCAI_HEURISTIC_SUMMARY_MAX_CHARS,
  },
  trim: { enabled: false },
  summarize: {
    auto: true,
    strategy: 'summarize',
    // "Runs after each TurnEnd event".
    runOn: 'turn_end',
    // No fraction: the threshold is the effective token limit (window − reserve).
    trigger: 0,
    maxMessages: TIANCAI_MAX_MESSAGES,
    // "Otherwise: fall back to MaxMessages".
    maxMessagesWhen: 'no-token-limit',
    // "Prefer token-budget split when KeepRecentTokens > 0; otherwise split by KeepRecent message count".
    keepRecentTokens: TIANCAI_KEEP_RECENT_TOKENS,
    keepRecentFraction: 0,
    keepRecentTurns: 0,
    keepRecentMessages: TIANCAI_KEEP_RECENT,
    // "KeepRecentTokens is also clamped to at most half of the effective token limit".
    keepRecentTokensMaxFraction: 0.5,
    cutAt: 'message',
    toolResultMaxChars: TIANCAI_SUMMARY_TOOL_RESULT_MAX_CHARS,
    inputMaxTokens: 0,
    maxSummaryTokens: 0,
    // "one synthetic user message: prefix: [Previous conversation summary]".
    placement: 'user-message',
    prefix: '[Previous conversation summary]',
    offloadTranscript: false,
    // "one digest message is appended with prefix [Compaction tool digest]".
    recentToolDigest: true,
    cooldownSeconds: 0,
  },
  compressText: { enabled: false },
  emergency: {
    enabled: true,
    // "On IsContextLengthExceeded error, compacts and retries once".
    sequence: ['compact'],
    maxRetries: TIANCAI_MAX_COMPACTION_RECOVERIES,
    resetWhenStillOver: false,
  },
  // The seed's request holds no memory index. (Skills keep the default: they appear only when the caller
  // gives some.)
  indexes: { memory: { ...DEFAULT_POLICY.indexes.memory, show: false } },
});

/** Where this preset does not do what the seed says, and why (shown by `ctxkit config` and `/context`). */
export const TIANCAI_DEVIATIONS = defineDeviations([
  FINAL_GUARD_DEVIATION,
  {
    setting: 'emergency.sequence',
    seed: 'a request that does not fit is sent; "On IsContextLengthExceeded error, compacts and retries once"',
    ctxkit:
      'a request the final guard counts as not fitting is compacted the same way before it is sent; turns are dropped only when the summary is not enough',
    why: 'the overflow is certain, so the failed call is saved, and the seed’s order (the summary before any drop) is kept',
  },
]);
