import { DEFAULT_POLICY } from './default.ts';
import { defineDeviations, definePreset, FINAL_GUARD_DEVIATION } from './define-preset.ts';

/**
 * digitorn (digitorn, runtime.context): the auto-injected `_auto_compact` hook fires at turn start
 * when pressure ≥ 0.75 and summarizes all but the 10 newest messages into one system message
 * (summary capped at 1024 tokens, cooldown 30 s); oversized single results (> 25 % of the budget,
 * max_tokens − output_reserved) are clipped with a marker before every call; overflow: halve keep_recent (minimum 4) and truncate without a model call, retry;
 * resume replays the compaction snapshot.
 * It has no on-arrival caps or spilling, no clearing, no archiving and no turn trimming.
 * Deviations (DIGITORN_DEVIATIONS): the final guard, ctxkit's own, fits a request the estimate let past
 * the window before it is sent.
 */

/** The runtime.context reference block. */
export const DIGITORN_MAX_TOKENS = 200_000;
export const DIGITORN_OUTPUT_RESERVED = 4_096;
export const DIGITORN_KEEP_RECENT = 10;
export const DIGITORN_COMPRESSION_TRIGGER = 0.75;
export const DIGITORN_SUMMARY_MAX_TOKENS = 1_024;
/** The auto hook's `cooldown: 30.0`. */
export const DIGITORN_COOLDOWN_SECONDS = 30;
/** "Halves keep_recent (minimum 4)". */
export const DIGITORN_EMERGENCY_MIN_KEEP_RECENT = 4;
/** "a single huge tool result blowing past 25% of the budget". */
export const DIGITORN_OVERSIZED_FRACTION = 0.25;

export const DIGITORN_POLICY = definePreset(DEFAULT_POLICY, {
  budget: {
    // The seed sends what its window allows: default's cap on input is ctxkit's own.
    maxContextTokens: 0,
    contextWindow: DIGITORN_MAX_TOKENS,
    maxOutputTokens: DIGITORN_OUTPUT_RESERVED,
    // "When max_tokens: 0, the bootstrap pass … reads the provider's known context window".
    detectWindow: true,
    proactiveCheck: false,
    // "token pressure (used / total)", total being what max_tokens leaves beside output_reserved.
    pressureOf: 'input/usable',
    // ctxkit's addition, not the seed's: the final request is counted as the provider counts it and fitted
    // when this seed's own estimate let it past the window. `finalGuard: false` restores the seed's
    // failure mode (a request its estimate undercounts is sent as is).
    finalGuard: true,
  },
  tokens: {
    counter: 'heuristic',
    // "estimated via compaction.estimate_tokens - ~ 4 chars / token".
    charsPerToken: 4,
    // "computed per turn from the actual usage reported by the provider".
    anchorOnUsage: true,
  },
  toolOutput: {
    // Only truncate_oversized_messages / snip_oversized_messages: clip with a marker.
    enabled: true,
    renderTerminal: false,
    maxLines: 0,
    maxBytes: 0,
    maxChars: 0,
    truncateMode: 'head_tail',
    spillThresholdChars: 0,
    spillThresholdTokens: 0,
    spillWhenTruncated: false,
    previewHeadLines: 0,
    previewTailLines: 0,
    oversizedFraction: DIGITORN_OVERSIZED_FRACTION,
    // Whether or not the request fits: a result past a quarter of the budget would make pressure jump past
    // the trigger at once, the misfire the seed's emergency path exists for.
    oversizedWhen: 'always',
  },
  truncateOld: { enabled: false },
  clearing: { enabled: false },
  archive: { strategy: 'off' },
  trim: { enabled: false },
  summarize: {
    auto: true,
    strategy: 'summarize',
    runOn: 'turn_start',
    trigger: DIGITORN_COMPRESSION_TRIGGER,
    maxMessages: 0,
    keepRecentTokens: 0,
    keepRecentFraction: 0,
    keepRecentTurns: 0,
    keepRecentMessages: DIGITORN_KEEP_RECENT,
    // "_find_safe_split_point - never splits a tool-call/tool-result pair".
    cutAt: 'message',
    toolResultMaxChars: 0,
    inputMaxTokens: 0,
    maxSummaryTokens: DIGITORN_SUMMARY_MAX_TOKENS,
    // "Replace the dropped slice with a single system message containing the summary".
    placement: 'system-message',
    offloadTranscript: false,
    recentToolDigest: false,
    cooldownSeconds: DIGITORN_COOLDOWN_SECONDS,
  },
  compressText: { enabled: false },
  emergency: {
    enabled: true,
    sequence: ['truncate'],
    // "4. Retries the turn."
    maxRetries: 1,
    resetWhenStillOver: false,
    minKeepRecent: DIGITORN_EMERGENCY_MIN_KEEP_RECENT,
  },
  restore: { mode: 'snapshot' },
  // The seed's request holds no memory index (its memory is the snapshot's). (Skills keep the default:
  // they appear only when the caller gives some.)
  indexes: { memory: { ...DEFAULT_POLICY.indexes.memory, show: false } },
});

/** Where this preset does not do what the seed says, and why (shown by `ctxkit config` and `/context`). */
export const DIGITORN_DEVIATIONS = defineDeviations([FINAL_GUARD_DEVIATION]);
