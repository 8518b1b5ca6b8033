import { DEFAULT_PRESSURE_MEASURE } from '../../budget/pressure-measure.ts';
import { DEFAULT_RESET_SCOPE, type Policy } from '../policy-schema.ts';
import { deepFreeze } from './freeze.ts';

/**
 * ctxkit's own policy: docs/ARCHITECTURE.md's table of what `default` chooses where the seeds disagree.
 * Settings the table does not decide take the seeds' common figures, cited where they come from.
 * The seed presets start from this one and override what their seed documents.
 */

/**
 * Summarize at 85 % (deepagents, deepagents' SummarizationMiddleware default).
 *
 * Old tool output leaves the view only under pressure: from 60 % of the usable window (deepagents' figure), oldest first,
 * behind pointers the agent can follow. Until then the agent sees what it read. (An earlier default
 * offloaded everything but the newest result from the start, trigger 0: cheaper per call, but the agent
 * saw 44–49 % of the earlier output it went on to use and paid a model call to read back the rest; see
 * `npm run bench:working-set` and the trade-off table in docs/how-it-works.md.)
 */
export const DEFAULT_CLEARING_TRIGGER = 0.6;
export const DEFAULT_SUMMARIZE_TRIGGER = 0.85;

/**
 * The working set: the newest tool output kept verbatim when clearing runs, three quarters of the usable
 * window, at most 80,000 tokens. Measured on the corpus sessions, the newest result holding what an agent
 * quotes lies within 5k tokens of tool output half the time, 18k for 80 %, 41k for 95 %
 * (`bench/working-set.ts` rules). Of the budgets tried (docs/how-it-works.md, the working set), this one sees the most
 * (0.71 / 0.85 / 0.99 at 16k / 32k / 128k) for the lowest effective bill: each clearing rewrites the cached
 * suffix, so clearing less often costs less than the tokens it would free. The cap keeps a 1M-token
 * window from carrying 750k tokens of old output on every call. At least the 3 newest results stay whatever
 * their size (Anthropic's context editing keeps 3).
 */
export const DEFAULT_CLEARING_KEEP_RECENT = 3;
export const DEFAULT_WORKING_SET_FRACTION = 0.75;
export const DEFAULT_WORKING_SET_MAX_TOKENS = 80_000;
export const DEFAULT_CLEARING_MIN_FREED_TOKENS = 0;
export const DEFAULT_CLEARED_PLACEHOLDER = '[cleared]';
/**
 * Cache-aware batching: a clearing edits the middle of the prompt, so every cached token after the
 * first cleared result is written again (1.25 × instead of 0.1 ×). It goes ahead only when it frees at
 * least 15 % of the usable window (18,600 tokens at 128k, near opencode's 20k minimum; Anthropic's
 * `clear_at_least`), and then clears every result outside the working set at once (`stopAtMinimum`
 * false): one cache rebuild buys room for many calls, where clearing a result at a time would rebuild
 * the suffix on every call (measured without the minimum: effective bill +1.6 % at 16k, +3.8 % at 128k;
 * with a working set of half the window, +8 % and +20 %). The rebuild costs 1.15 × the suffix once (written at 1.25 × instead of read at 0.1 ×); each
 * freed token saves 0.1 × on every later call; so a batch of at least 15 % of the window, with at most
 * the working set after it as the suffix, pays back within about 1.15 × 0.75 ÷ (0.1 × 0.15) ≈ 58 calls at
 * the very worst, and within a few calls when the freed results sit near the end.
 */
export const DEFAULT_CLEARING_MIN_FREED_FRACTION = 0.15;
/**
 * Long arguments of old calls (a whole file written, a long patch) are offloaded only when clearing runs,
 * under pressure. They are the agent's own edits, so this hides what it wrote from it; measured, it pays:
 * kept, working-set coverage falls from 0.85 to 0.81 at 32k and 0.99 to 0.96 at 128k (the room they
 * take pushes results out) and the effective bill rises 6 % at 128k.
 */
export const DEFAULT_OFFLOAD_ARGUMENTS = true;
/** What a pointer keeps of its result (about 60 tokens): see `pointerKeys`, and docs/how-it-works.md for the gain. */
export const DEFAULT_POINTER_KEYS_MAX_CHARS = 240;

/**
 * The most input `default` lets a request carry, whatever the window (a fill target for long windows):
 * past it the proactive path clears and summarizes as it would at the window's edge. A long window
 * merely allows a long input; every call re-reads it (0.1 × per token with a prompt cache, list price
 * without) and long inputs answer worse. Measured on the corpus at 128k under the recovery bill (the cache
 * bill plus the read-backs and tool re-runs that getting forgotten output back costs, `bench:peers`):
 * no cap 4.90M at 0.988 working-set coverage, 96k 4.88M at 0.995, 80k 4.52M at 0.964, 72k 4.47M at
 * 0.948, 64k 4.19M at 0.941; 80k is the lowest of these that keeps coverage at 0.95 or more, with 19 % fewer input
 * tokens. Windows of 80k and less are not affected. The preset carries it as `budget.maxContextTokens`.
 */
export const DEFAULT_MAX_CONTEXT_TOKENS = 80_000;

/**
 * Caps of the indexes in every request (deepagents's skills index and memory index). About 1–2 % of a
 * 128k window each: a skills index of ~40 one-line descriptions, a memory index of ~60 notes (the newest
 * kept when clipped; the rest a `read_memory` call away).
 */
export const DEFAULT_SKILLS_INDEX_MAX_TOKENS = 2_000;
export const DEFAULT_MEMORY_INDEX_MAX_TOKENS = 2_000;

/**
 * "Keep recent" counts tokens: 20k (tiancai KeepRecentTokens), at most a quarter of the budget, so the 20k
 * is reached at the 80k input cap. tiancai clamps to half, but tiancai summarizes at the limit, where half
 * leaves half the room free; `default` summarizes at 85 %. With half kept, what stayed after a summary
 * (the kept messages, which a turn snap and the newest exchange can push past their share, and a summary
 * of up to 2k tokens) filled 75–80 % of a 16k window, and the next results brought the next summary a
 * call or two later (three summaries on three calls in a row, 55 in the corpus's longest session).
 * Measured on the corpus (`bench:peers`), a quarter against half: summaries 43 → 37 at 16k and 20 → 15 at
 * 32k (55 → 44 and 27 → 19 in that session); recovery bill −7.4 % at 16k (2.49M → 2.31M) and −6.3 % at
 * 32k (3.19M → 2.99M); working set seen 71.9 → 71.1 % and 87.4 → 86.8 %; 128k unchanged. (deepagents
 * keeps a tenth of the window.)
 */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
export const DEFAULT_KEEP_RECENT_TOKENS_MAX_FRACTION = 0.25;

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
    maxContextTokens: DEFAULT_MAX_CONTEXT_TOKENS,
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
    // A spilled output is stored whole, not capped first.
    capBeforeSpill: false,
    spillThresholdChars: 0,
    spillThresholdTokens: DEFAULT_SPILL_THRESHOLD_TOKENS,
    // What none of the seeds has: a cap never loses content, the full output stays readable.
    spillWhenTruncated: true,
    previewHeadLines: DEFAULT_PREVIEW_LINES,
    previewTailLines: DEFAULT_PREVIEW_LINES,
    oversizedFraction: DEFAULT_OVERSIZED_FRACTION,
    // Only to make a request fit: clipping what fits would hide content the clearing keeps readable.
    oversizedWhen: 'to-fit',
  },
  truncateOld: {
    // Off: an old result over 20,000 characters cut to head and tail hides the middle the agent may still
    // use, before any pressure calls for it (measured with the working set: coverage at 128k 0.94 with it,
    // 0.99 without, and the effective bill 10 % higher). Clearing under pressure and the caps on arrival
    // keep the window.
    enabled: false,
    maxChars: DEFAULT_TRUNCATE_OLD_MAX_CHARS,
    headFraction: 0.5,
  },
  clearing: {
    enabled: true,
    trigger: DEFAULT_CLEARING_TRIGGER,
    keepRecent: DEFAULT_CLEARING_KEEP_RECENT,
    keepRecentTokens: DEFAULT_WORKING_SET_MAX_TOKENS,
    keepRecentFraction: DEFAULT_WORKING_SET_FRACTION,
    minFreedTokens: DEFAULT_CLEARING_MIN_FREED_TOKENS,
    minFreedFraction: DEFAULT_CLEARING_MIN_FREED_FRACTION,
    stopAtMinimum: false,
    excludeTools: [],
    placeholder: DEFAULT_CLEARED_PLACEHOLDER,
    clearToolInputs: false,
    offload: true,
    offloadArguments: DEFAULT_OFFLOAD_ARGUMENTS,
    pointerKeysMaxChars: DEFAULT_POINTER_KEYS_MAX_CHARS,
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
    // "snapped to a turn boundary"; a turn with none in reach (one request, a hundred tool calls) is cut
    // between its messages and summarized, rather than left to snipping and dropping.
    cutAt: 'turn-or-message',
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
