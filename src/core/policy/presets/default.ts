import { DEFAULT_PRESSURE_MEASURE } from '../../budget/pressure-measure.ts';
import { DEFAULT_RESET_SCOPE, type Policy } from '../policy-schema.ts';
import { deepFreeze } from './freeze.ts';

/**
 * ctxkit's own policy: docs/ARCHITECTURE.md's table of what `default` chooses where the seeds disagree.
 * Settings the table does not decide take the seeds' common figures, cited where they come from.
 * The seed presets start from this one and override what their seed documents.
 */

/**
 * Summarize at 85 % (deepagents, deepagents' SummarizationMiddleware default). Old tool output is offloaded
 * from the start (trigger 0) rather than cleared at 60 % (deepagents): an offloaded result leaves a pointer the
 * agent can follow, so nothing is lost by doing it early, and every later call is smaller and cheaper.
 * Measured on the corpus (`npm run bench:peers`): the cache-priced bill falls by about a quarter at 16k
 * and 128k with retention unchanged.
 */
export const DEFAULT_CLEARING_TRIGGER = 0;
export const DEFAULT_SUMMARIZE_TRIGGER = 0.85;

/**
 * Results kept verbatim besides the ones the model has not answered yet: the newest one. Each result is
 * seen whole when the model acts on it, then stays behind a pointer with its first line (observation
 * masking); LangChain's ClearToolUsesEdit keeps 3 and forgets the rest.
 */
export const DEFAULT_CLEARING_KEEP_RECENT = 1;
export const DEFAULT_CLEARING_MIN_FREED_TOKENS = 0;
export const DEFAULT_CLEARED_PLACEHOLDER = '[cleared]';
/**
 * No minimum batch: offloading the result just behind the newest one breaks the prompt cache only for
 * the last few messages, which costs less than re-reading a large result on every later call. (Batching
 * mattered for placeholder clearing of results far back; measured, it loses once results are offloaded
 * as they age.)
 */
export const DEFAULT_CLEARING_MIN_FREED_FRACTION = 0;

/**
 * Caps of the indexes in every request (deepagents's skills index and memory index). About 1–2 % of a
 * 128k window each: a skills index of ~40 one-line descriptions, a memory index of ~60 notes (the newest
 * kept when clipped; the rest a `read_memory` call away).
 */
export const DEFAULT_SKILLS_INDEX_MAX_TOKENS = 2_000;
export const DEFAULT_MEMORY_INDEX_MAX_TOKENS = 2_000;

/** "Keep recent" counts tokens: 20k (tiancai KeepRecentTokens), at most half the budget (tiancai's clamp). */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
export const DEFAULT_KEEP_RECENT_TOKENS_MAX_FRACTION = 0.5;

/** Evict a single result over ~20k tokens (deepagents; deepagents FilesystemMiddleware tool_token_limit_before_evict=20000). */
export const DEFAULT_SPILL_THRESHOLD_TOKENS = 20_000;
/** deepagents' eviction preview: 5 head + 5 tail lines (create_content_preview). */
export const DEFAULT_PREVIEW_LINES = 5;

/** tiancai's ToolOutputLimits: 2000 lines, 50 KiB, 200 Ki runes, head_tail. */
export const DEFAULT_TOOL_OUTPUT_MAX_LINES = 2_000;
export const DEFAULT_TOOL_OUTPUT_MAX_BYTES = 50 * 1024;
export const DEFAULT_TOOL_OUTPUT_MAX_CHARS = 200 * 1024;

/** cowagent: old results over 20,000 characters keep head + tail. */
export const DEFAULT_TRUNCATE_OLD_MAX_CHARS = 20_000;

/** digitorn: a single result past 25 % of the budget is clipped (the emergency path's own example). */
export const DEFAULT_OVERSIZED_FRACTION = 0.25;

/** tiancai: "[Previous conversation summary]". */
export const DEFAULT_SUMMARY_PREFIX = '[Previous conversation summary]';
/** tiancai: tool results reduced to 1800 runes in the summarizer's input. */
export const DEFAULT_SUMMARY_TOOL_RESULT_MAX_CHARS = 1_800;
/** digitorn's tuning checklist: "Bump summary_max_tokens to ~2048" when the agent loses the thread. */
export const DEFAULT_MAX_SUMMARY_TOKENS = 2_048;

/** Overflow recovery retries once (tiancai maxCompactionRecoveries = 1), then resets (cowagent). */
export const DEFAULT_EMERGENCY_MAX_RETRIES = 1;

/** deepagents's status bar: yellow at 70 %, red at 90 %. */
export const DEFAULT_WARN_AT = 0.7;
export const DEFAULT_DANGER_AT = 0.9;

export const DEFAULT_POLICY: Policy = deepFreeze({
  budget: {
    contextWindow: 0,
    maxOutputTokens: 0,
    reserveTokens: 0,
    maxContextTokens: 0,
    maxContextTokensWhen: 'always',
    maxSteps: 0,
    detectWindow: true,
    // "the full-formula check before every call" (DESIGN: triggers).
    proactiveCheck: true,
    proactiveAction: 'compact',
    // docs/ARCHITECTURE.md: "pressure = inputTokens / (contextWindow − maxOutputTokens)". The reserve is never input's
    // to use, so 100 % is the largest request that fits and a threshold is a share of what can be sent.
    pressureOf: DEFAULT_PRESSURE_MEASURE,
    // "never send a request that cannot fit", counted as the provider counts, not as the policy estimates.
    finalGuard: true,
  },
  tokens: {
    // "exact tokenizer when the model's is known; otherwise the calibrated counter, anchored on reported usage".
    counter: 'auto',
    // tiancai's heuristic ratio and image estimate (the tokens module's defaults); OpenAI documents
    // 3–4 framing tokens per chat message, 4 keeps the estimate on the safe side.
    charsPerToken: 4,
    mediaTokens: 1_200,
    messageOverhead: 4,
    // The framing above stands for the tool call's `type`; picoclaw counts it on its own.
    countToolCallType: false,
    anchorOnUsage: true,
  },
  toolOutput: {
    // "normalize on arrival (render, cap), evict > 20k tokens with a pointer".
    enabled: true,
    renderTerminal: true,
    maxLines: DEFAULT_TOOL_OUTPUT_MAX_LINES,
    maxBytes: DEFAULT_TOOL_OUTPUT_MAX_BYTES,
    maxChars: DEFAULT_TOOL_OUTPUT_MAX_CHARS,
    truncateMode: 'head_tail',
    spillThresholdChars: 0,
    spillThresholdTokens: DEFAULT_SPILL_THRESHOLD_TOKENS,
    // What none of the seeds has: a cap never loses content, the full output stays readable.
    spillWhenTruncated: true,
    previewHeadLines: DEFAULT_PREVIEW_LINES,
    previewTailLines: DEFAULT_PREVIEW_LINES,
    oversizedFraction: DEFAULT_OVERSIZED_FRACTION,
  },
  truncateOld: {
    // "… and truncate old results".
    enabled: true,
    maxChars: DEFAULT_TRUNCATE_OLD_MAX_CHARS,
    headFraction: 0.5,
  },
  clearing: {
    enabled: true,
    trigger: DEFAULT_CLEARING_TRIGGER,
    keepRecent: DEFAULT_CLEARING_KEEP_RECENT,
    minFreedTokens: DEFAULT_CLEARING_MIN_FREED_TOKENS,
    minFreedFraction: DEFAULT_CLEARING_MIN_FREED_FRACTION,
    stopAtMinimum: false,
    excludeTools: [],
    placeholder: DEFAULT_CLEARED_PLACEHOLDER,
    clearToolInputs: false,
    offload: true,
  },
  archive: {
    // Clearing already handles old results without a model call; archiving is one switch away.
    toolCallCutoff: 10,
    strategy: 'off',
    inputMaxChars: 12_000,
    outputMaxChars: 1_200,
    extractiveMaxChars: 800,
  },
  trim: {
    enabled: false,
    maxTurns: 20,
    fraction: 0.5,
    injectSummary: false,
    writeMemory: false,
  },
  summarize: {
    auto: true,
    strategy: 'summarize',
    // "async after a turn (summary ready by the next call)"; the proactive check covers the rest.
    runOn: 'turn_end',
    trigger: DEFAULT_SUMMARIZE_TRIGGER,
    maxMessages: 0,
    maxMessagesWhen: 'always',
    keepRecentTokens: DEFAULT_KEEP_RECENT_TOKENS,
    keepRecentFraction: 0,
    keepRecentTurns: 0,
    keepRecentMessages: 0,
    keepRecentTokensMaxFraction: DEFAULT_KEEP_RECENT_TOKENS_MAX_FRACTION,
    // "snapped to a turn boundary".
    cutAt: 'turn',
    toolResultMaxChars: DEFAULT_SUMMARY_TOOL_RESULT_MAX_CHARS,
    inputMaxTokens: 0,
    maxSummaryTokens: DEFAULT_MAX_SUMMARY_TOKENS,
    // "its own message right after the system prompt, so the system prompt stays byte-stable".
    placement: 'own-message',
    prefix: DEFAULT_SUMMARY_PREFIX,
    offloadTranscript: true,
    recentToolDigest: false,
    cooldownSeconds: 0,
  },
  compressText: {
    enabled: false,
    belowTurns: 5,
  },
  emergency: {
    // "no model call (the model is refusing): drop to the newest turns that fit beside the summary,
    // retry once, then reset".
    enabled: true,
    sequence: ['drop-to-fit'],
    maxRetries: DEFAULT_EMERGENCY_MAX_RETRIES,
    resetWhenStillOver: true,
    // The turn being answered and the summary stay, and the turn is retried: the user's request is never
    // dropped by the engine on its own.
    resetScope: DEFAULT_RESET_SCOPE,
    toolResultMaxChars: 10_000,
    userTextMaxChars: 10_000,
    maxTurns: 5,
    minKeepRecent: 4,
    dropFraction: 0.5,
  },
  hooks: [],
  restore: {
    // "full checkpoint; `text` mode available".
    mode: 'full',
    minTurns: 3,
    turnDivisor: 6,
  },
  retention: {
    // cowagent: "Sessions older than 30 days are automatically cleaned up" (`ctxkit prune`; 0 keeps everything).
    maxIdleDays: 30,
  },
  display: {
    warnAt: DEFAULT_WARN_AT,
    dangerAt: DEFAULT_DANGER_AT,
  },
  indexes: {
    // Skills enter a request only when the caller hands the manager a skill source, so showing them is
    // what that caller asked for; capped, since every request pays for them.
    skills: { show: true, maxTokens: DEFAULT_SKILLS_INDEX_MAX_TOKENS },
    // Off: the memory directory is the agent's, shared by every session that manager serves, and its
    // index names each session's notes with a gist of what was summarized (tool output included). A
    // manager serving one agent's sessions turns it on (deepagents does); one serving many users must
    // not put one user's notes in another's prompt. Capped when on: ctxkit appends a line for every note.
    memory: { show: false, maxTokens: DEFAULT_MEMORY_INDEX_MAX_TOKENS },
  },
});
