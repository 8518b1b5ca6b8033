import { DEFAULT_MEMORY_INDEX_MAX_TOKENS, DEFAULT_POLICY } from './default.ts';
import { defineDeviations, definePreset, FINAL_GUARD_DEVIATION } from './define-preset.ts';

/**
 * deepagents (a deepagents-based agent, "Context handling"): terminal output rendered and tail-capped
 * at 256 KB (as the kernel caps its stream, before anything else sees it), then a result over ~20k
 * tokens evicted to large_tool_results/<id> with a head/tail preview, old results cleared past ~60 % of
 * the window (langchain ContextEditingMiddleware), older turns summarized past ~85 % with the
 * transcript offloaded first; the thread is checkpointed in full; ctx % yellow at 70, red at 90. No
 * overflow recovery is documented.
 *
 * Figures the seed leaves implicit come from the stock middleware it names:
 * - ClearToolUsesEdit: keep=3, clear_at_least=0, exclude_tools=(), placeholder "[cleared]",
 *   clear_tool_inputs=False (langchain agents/middleware/context_editing.py)
 * - FilesystemMiddleware: tool_token_limit_before_evict=20000; preview 5 head + 5 tail lines
 * - create_deep_agent's summarization defaults with a model profile: trigger ("fraction", 0.85),
 *   keep ("fraction", 0.10); SummarizationMiddleware trim_tokens_to_summarize=4000
 * - count_tokens_approximately: chars_per_token=4.0, extra_tokens_per_message=3.0
 * - the summary is a HumanMessage opening "You are in the middle of a conversation that has been
 *   summarized." with the offloaded history path.
 *
 * Deviations (DEEPAGENTS_DEVIATIONS): the final guard, ctxkit's own; the summary trigger brought down to
 * the largest request that fits; the memory index capped; the tail cap applied to every tool's output.
 */

export const DEEPAGENTS_EVICT_TOKENS = 20_000;
export const DEEPAGENTS_PREVIEW_LINES = 5;
/** "tail-capped at 256 KB" (the Julia kernel's streamed output). */
export const DEEPAGENTS_TAIL_CAP_BYTES = 256 * 1024;
export const DEEPAGENTS_CLEARING_TRIGGER = 0.6;
export const DEEPAGENTS_CLEARING_KEEP = 3;
export const DEEPAGENTS_SUMMARIZE_TRIGGER = 0.85;
export const DEEPAGENTS_KEEP_FRACTION = 0.1;
export const DEEPAGENTS_TRIM_TOKENS_TO_SUMMARIZE = 4_000;
export const DEEPAGENTS_SUMMARY_PREFIX = 'You are in the middle of a conversation that has been summarized.';

export const DEEPAGENTS_POLICY = definePreset(DEFAULT_POLICY, {
  budget: {
    // The seed sends what its window allows: default's cap on input is ctxkit's own.
    maxContextTokens: 0,
    // "sized from the model profile … the model's real loaded size".
    contextWindow: 0,
    detectWindow: true,
    proactiveCheck: false,
    // "passes ~60% of the model's window", "reaches ~85% of the window": the whole window, not the window
    // less the reply's reserve. One deviation, for users: a trigger past the largest request that fits
    // (85 % with more than 15 % reserved, e.g. a 200k profile reserving 64k) fires at that point instead
    // (reachableThreshold), since past it the request no longer fits and only a drop without a summary
    // could make it fit.
    pressureOf: 'input/window',
    // ctxkit's addition, not the seed's: the final request is counted as the provider counts it and fitted
    // when this seed's own estimate let it past the window. `finalGuard: false` restores the seed's
    // failure mode (a request its estimate undercounts is sent as is).
    finalGuard: true,
  },
  tokens: {
    counter: 'heuristic',
    charsPerToken: 4,
    messageOverhead: 3,
    // "the last call's usage_metadata is exactly what the conversation costs to send".
    anchorOnUsage: true,
  },
  toolOutput: {
    enabled: true,
    // "rendered through a terminal emulator (so progress bars collapse to their final state …)".
    renderTerminal: true,
    maxLines: 0,
    maxBytes: DEEPAGENTS_TAIL_CAP_BYTES,
    maxChars: 0,
    truncateMode: 'tail',
    // The kernel caps its stream before the result exists; eviction (FilesystemMiddleware) then sees the
    // capped result, so a stream past 256 KB is capped and, still over ~20k tokens, evicted as capped.
    capBeforeSpill: true,
    spillThresholdChars: 0,
    spillThresholdTokens: DEEPAGENTS_EVICT_TOKENS,
    spillWhenTruncated: false,
    previewHeadLines: DEEPAGENTS_PREVIEW_LINES,
    previewTailLines: DEEPAGENTS_PREVIEW_LINES,
    oversizedFraction: 0,
  },
  truncateOld: { enabled: false },
  clearing: {
    enabled: true,
    trigger: DEEPAGENTS_CLEARING_TRIGGER,
    keepRecent: DEEPAGENTS_CLEARING_KEEP,
    // ClearToolUsesEdit counts results, not tokens.
    keepRecentTokens: 0,
    keepRecentFraction: 0,
    minFreedTokens: 0,
    minFreedFraction: 0,
    // LangChain stops clearing once clear_at_least is reached.
    stopAtMinimum: true,
    // The seed's "attempt log is never cleared" is not a tool; no tool is excluded by default.
    excludeTools: [],
    placeholder: '[cleared]',
    clearToolInputs: false,
    // ContextEditingMiddleware forgets: the seed re-derives cleared results by re-reading files.
    offload: false,
  },
  archive: { strategy: 'off' },
  trim: { enabled: false },
  summarize: {
    auto: true,
    strategy: 'summarize',
    // Middleware: checked as each model call is prepared.
    runOn: 'before_call',
    trigger: DEEPAGENTS_SUMMARIZE_TRIGGER,
    maxMessages: 0,
    keepRecentTokens: 0,
    keepRecentFraction: DEEPAGENTS_KEEP_FRACTION,
    keepRecentTurns: 0,
    keepRecentMessages: 0,
    // "the newest turns stay verbatim"; the stock cutoff never splits an AI/Tool pair.
    cutAt: 'message',
    toolResultMaxChars: 0,
    inputMaxTokens: DEEPAGENTS_TRIM_TOKENS_TO_SUMMARIZE,
    maxSummaryTokens: 0,
    placement: 'user-message',
    prefix: DEEPAGENTS_SUMMARY_PREFIX,
    // "The summarized turns are offloaded to conversation_history/<thread>.md first … the summary embeds that path".
    offloadTranscript: true,
    recentToolDigest: false,
    cooldownSeconds: 0,
  },
  compressText: { enabled: false },
  emergency: { enabled: false, sequence: [], maxRetries: 0, resetWhenStillOver: false },
  // "Conversation state lives in checkpoints.sqlite per session".
  restore: { mode: 'full' },
  display: { warnAt: 0.7, dangerAt: 0.9 },
  indexes: {
    // "The skills index: every skill's name and description. Skill bodies are not in the context until
    // the agent reads one": every skill, uncapped (deepagents' SkillsMiddleware lists them all).
    skills: { show: true, maxTokens: 0 },
    // "The memory index MEMORY.md (see memory). Individual notes enter only when read." One deviation, for
    // users: capped as in `default`. The seed's MEMORY.md is curated by the agent; ctxkit's gains a line
    // with every note it writes, so uncapped it would grow into the window. Clipped, the newest lines stay
    // and a notice names the read_memory call that shows the rest.
    memory: { show: true, maxTokens: DEFAULT_MEMORY_INDEX_MAX_TOKENS },
  },
});

/** Where this preset does not do what the seed says, and why (shown by `ctxkit config` and `/context`). */
export const DEEPAGENTS_DEVIATIONS = defineDeviations([
  FINAL_GUARD_DEVIATION,
  {
    setting: 'summarize.trigger',
    seed: 'summarize when the conversation reaches ~85 % of the window',
    ctxkit:
      'at the largest request that fits when that comes first (a reply reserve over 15 % of the window, e.g. a 200k profile reserving 64k)',
    why: 'past that point the request no longer fits, and only a drop without a summary could make it fit',
  },
  {
    setting: 'indexes.memory.maxTokens',
    seed: 'the memory index MEMORY.md in every request, whole',
    ctxkit: `clipped to ${DEFAULT_MEMORY_INDEX_MAX_TOKENS.toLocaleString('en-US')} tokens: its first and newest lines, with a notice naming the read_memory call that shows the rest`,
    why: 'the seed’s MEMORY.md is curated by the agent; ctxkit’s gains a line with every note it writes, so uncapped it would grow into the window',
  },
  {
    setting: 'toolOutput.maxBytes',
    seed: 'the Julia kernel’s streamed output is rendered and tail-capped at 256 KB before eviction sees it',
    ctxkit: 'every tool’s output is rendered and tail-capped at 256 KB before eviction sees it',
    why: 'ctxkit cannot tell the kernel’s output from another tool’s; for another tool past 256 KB, the offloaded file holds its last 256 KB rather than all of it (the session log keeps it whole)',
  },
]);
