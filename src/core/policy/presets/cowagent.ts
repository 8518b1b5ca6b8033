import { DEFAULT_POLICY } from './default.ts';
import { defineDeviations, definePreset, FINAL_GUARD_DEVIATION } from './define-preset.ts';

/**
 * cowagent (cowagent, "Short-term Memory"): turn trimming with an LLM summary written to the daily
 * memory file and injected into the first kept user message; old tool results truncated at 20,000
 * characters; text compression below 5 turns; overflow: summarize to memory, aggressive limits,
 * then clear; restore max(3, turns / 6) turns as text; sessions cleaned after 30 days.
 * It has no on-arrival normalization, no clearing, no archiving and no pressure-triggered summary.
 * Deviations (COWAGENT_DEVIATIONS): the final guard, ctxkit's own, fits a request the estimate let past
 * the window before it is sent.
 */

/** "agent_max_context_tokens | Maximum context token budget | 50000". */
export const COWAGENT_MAX_CONTEXT_TOKENS = 50_000;
/** "agent_max_context_turns | Maximum conversation turns in context | 20". */
export const COWAGENT_MAX_CONTEXT_TURNS = 20;
/** "agent_max_steps | Maximum decision steps per turn (tool call count) | 15". */
export const COWAGENT_MAX_STEPS = 15;
/** "Results exceeding 20,000 characters are truncated, keeping only the beginning and end". */
export const COWAGENT_TRUNCATE_OLD_MAX_CHARS = 20_000;
/** "Fewer than 5 turns: All turns undergo text compression". */
export const COWAGENT_COMPRESS_BELOW_TURNS = 5;
/** "tool results limited to 10K chars, user text to 10K, max 5 turns". */
export const COWAGENT_EMERGENCY_TOOL_RESULT_MAX_CHARS = 10_000;
export const COWAGENT_EMERGENCY_USER_TEXT_MAX_CHARS = 10_000;
export const COWAGENT_EMERGENCY_MAX_TURNS = 5;
/** "Restores the most recent max(3, max_context_turns / 6) turns". */
export const COWAGENT_RESTORE_MIN_TURNS = 3;
export const COWAGENT_RESTORE_TURN_DIVISOR = 6;
/** "Sessions older than 30 days are automatically cleaned up". */
export const COWAGENT_MAX_IDLE_DAYS = 30;

export const COWAGENT_POLICY = definePreset(DEFAULT_POLICY, {
  budget: {
    maxContextTokens: COWAGENT_MAX_CONTEXT_TOKENS,
    // A budget that applies whatever the window ("if tokens still exceed the budget").
    maxContextTokensWhen: 'always',
    maxSteps: COWAGENT_MAX_STEPS,
    proactiveCheck: false,
    // ctxkit's addition, not the seed's: the final request is counted as the provider counts it and fitted
    // when this seed's own estimate let it past the window. `finalGuard: false` restores the seed's
    // failure mode (a request its estimate undercounts is sent as is).
    finalGuard: true,
  },
  toolOutput: { enabled: false },
  truncateOld: { enabled: true, maxChars: COWAGENT_TRUNCATE_OLD_MAX_CHARS, headFraction: 0.5 },
  clearing: { enabled: false },
  archive: { strategy: 'off' },
  trim: {
    enabled: true,
    maxTurns: COWAGENT_MAX_CONTEXT_TURNS,
    // "The oldest half of complete turns is trimmed".
    fraction: 0.5,
    injectSummary: true,
    writeMemory: true,
  },
  summarize: {
    // No pressure trigger: summaries come from turn trimming, "asynchronously … from the next turn onward".
    auto: false,
    runOn: 'turn_end',
    placement: 'first-user-message',
    cutAt: 'turn',
    offloadTranscript: false,
  },
  // "All turns undergo text compression": every finished turn, the last one included. A turn still in
  // progress (its final reply has not come: the request just arrived, or a call waits for or has just
  // had its result) keeps its tool chain. That is ctxkit's reading, for the reason cowagent's own code
  // gives: it trims once per user message, before the agent loop, "not during tool steps", because a
  // chain stripped mid-execution makes the model repeat the calls it has just made. ctxkit prepares
  // before every model call, so it leaves the unfinished turn alone instead.
  compressText: { enabled: true, belowTurns: COWAGENT_COMPRESS_BELOW_TURNS },
  emergency: {
    enabled: true,
    // "1. All current messages are summarized and written to memory 2. Aggressive trimming is applied".
    sequence: ['summarize-to-memory', 'limit-sizes'],
    maxRetries: 1,
    // "3. If still overflowing, the entire conversation context is cleared".
    resetWhenStillOver: true,
    // The whole context, summary included: the view is empty and the turn is not retried (the log and
    // the memory file keep everything).
    resetScope: 'all',
    toolResultMaxChars: COWAGENT_EMERGENCY_TOOL_RESULT_MAX_CHARS,
    userTextMaxChars: COWAGENT_EMERGENCY_USER_TEXT_MAX_CHARS,
    maxTurns: COWAGENT_EMERGENCY_MAX_TURNS,
  },
  restore: {
    // "Only retains each turn's user text and Agent final reply".
    mode: 'text',
    minTurns: COWAGENT_RESTORE_MIN_TURNS,
    turnDivisor: COWAGENT_RESTORE_TURN_DIVISOR,
  },
  retention: { maxIdleDays: COWAGENT_MAX_IDLE_DAYS },
  // Memory is written to the daily file and "can still be retrieved via memory search": the seed puts no
  // memory index in the request. (Skills keep the default: they appear only when the caller gives some.)
  indexes: { memory: { ...DEFAULT_POLICY.indexes.memory, show: false } },
});

/** Where this preset does not do what the seed says, and why (shown by `ctxkit config` and `/context`). */
export const COWAGENT_DEVIATIONS = defineDeviations([FINAL_GUARD_DEVIATION]);
