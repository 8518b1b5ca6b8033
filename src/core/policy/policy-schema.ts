import { z } from 'zod';
import { PRESSURE_MEASURES } from '../budget/pressure-measure.ts';

/**
 * The policy: every setting the five seeds name, under one consistent camelCase vocabulary, grouped
 * by the layer it steers (cheapest layer first, as docs/ARCHITECTURE.md orders them). Every object is strict, so
 * an unknown key is an error that names it. `0` means "off / unlimited / look it up" for counts and
 * thresholds, so presets can disable a rule without a second flag.
 *
 * Seed names (MaxMessages, keep_recent, …) are not accepted here: `parsePolicy` translates them first.
 */

const count = z.number().int().min(0);

/** The most retries an overflow's emergency path may ask for: each is one more call to the provider. */
export const MAX_EMERGENCY_RETRIES = 5;
const positiveCount = z.number().int().min(1);
const fraction = z.number().min(0).max(1);

export const BUDGET_WHEN = ['always', 'no-window'] as const;
export const PROACTIVE_ACTIONS = ['compact', 'emergency'] as const;
export const OVERSIZED_WHEN = ['always', 'to-fit'] as const;

export const BudgetSchema = z.strictObject({
  /** The model's loaded input capacity. 0 = look it up from the model profile (digitorn `max_tokens: 0`). */
  contextWindow: count,
  /** Tokens reserved for the reply, sent as the request's max_tokens (picoclaw MaxTokens, digitorn output_reserved). 0 = from the model profile. */
  maxOutputTokens: count,
  /** Compaction fires at contextWindow − reserveTokens when > 0 (tiancai ReserveTokens). */
  reserveTokens: count,
  /** An absolute token budget for the context (cowagent agent_max_context_tokens; tiancai MaxTokens). 0 = none. */
  maxContextTokens: count,
  /** `always`: a cap that applies with any window (cowagent). `no-window`: only stands in for an unknown window (tiancai). */
  maxContextTokensWhen: z.enum(BUDGET_WHEN),
  /** Decision steps (tool-call rounds) per turn (cowagent agent_max_steps). 0 = unlimited. */
  maxSteps: count,
  /** Look the window up from the model profile when contextWindow is 0 (digitorn, deepagents). `false`: window = 4 × maxOutputTokens (picoclaw). */
  detectWindow: z.boolean(),
  /**
   * Check the full budget formula before every call and compact rather than send a request that cannot
   * fit (picoclaw). Off reproduces products without the check, but ctxkit still never sends a request that
   * cannot fit: it answers as the product answers the overflow it would have met, a compaction first when
   * its emergency sequence starts with one (tiancai), else straight to the steps that need no model (drop
   * to fit, snip).
   */
  proactiveCheck: z.boolean(),
  /** What the proactive check does first: `compact` (the summarize layer) or `emergency` (the emergency sequence: picoclaw's forceCompression). */
  proactiveAction: z.enum(PROACTIVE_ACTIONS),
  /**
   * What context pressure measures, so every threshold of the policy (clearing.trigger,
   * summarize.trigger, context_pressure hooks, /context) is a fraction of the seed's own figure:
   * `input/usable` = input / (contextWindow − maxOutputTokens) (ctxkit's default, digitorn);
   * `input/window` = input / contextWindow (deepagents: "~60 % of the model's window");
   * `history/window` = history / contextWindow (picoclaw's maybeSummarize against ContextWindow alone).
   */
  pressureOf: z.enum(PRESSURE_MEASURES),
  /**
   * ctxkit's own last check, in every preset: the request about to leave `prepare()` is counted the way
   * a provider counts it (exactly when the model's tokenizer is known, else a calibrated upper bound),
   * and when it does not fit in contextWindow − maxOutputTokens it is fitted with the proactive path's
   * layers, then the emergency sequence, whatever the policy's own estimate said. The policy's counter,
   * thresholds and triggers are untouched. `false` reproduces a seed's own failure mode: a request its
   * estimate undercounts is sent as is.
   */
  finalGuard: z.boolean(),
});

export const TOKEN_COUNTERS = ['exact', 'heuristic', 'calibrated', 'auto'] as const;
export const TOKEN_ENCODINGS = ['o200k', 'cl100k'] as const;

export const TokensSchema = z.strictObject({
  /** `auto`: exact when the model's tokenizer is known, otherwise calibrated. */
  counter: z.enum(TOKEN_COUNTERS),
  /** Exact tokenizer encoding; unset = from the model profile. */
  encoding: z.enum(TOKEN_ENCODINGS).optional(),
  /** The heuristic's ratio (tiancai, digitorn: 4; picoclaw: 2.5), and the calibrated counter's starting point. */
  charsPerToken: z.number().positive(),
  /** Flat estimate per media item (tiancai: ~1200). */
  mediaTokens: count,
  /** Tokens of framing per message (role label, JSON structure). */
  messageOverhead: count,
  /** Count each tool call's `type` ("function") as text, as picoclaw's estimateMessageTokens does. */
  countToolCallType: z.boolean(),
  /** Estimate = last reported usage + estimate of the messages after it (tiancai, deepagents, digitorn). `false`: heuristic over everything (picoclaw). */
  anchorOnUsage: z.boolean(),
});

export const TRUNCATE_MODES = ['head', 'tail', 'head_tail'] as const;

export const ToolOutputSchema = z.strictObject({
  /** Normalize each tool result as it is appended (tiancai, deepagents). */
  enabled: z.boolean(),
  /** Render terminal output through an emulator: progress bars collapse to their final frame, ANSI goes (deepagents). */
  renderTerminal: z.boolean(),
  /** Caps applied in tiancai's order: lines, then characters (runes), then bytes. 0 = no cap. */
  maxLines: count,
  maxBytes: count,
  maxChars: count,
  truncateMode: z.enum(TRUNCATE_MODES),
  /**
   * Apply the caps before the spill check, so the capped output is what is measured, stored and
   * previewed (deepagents: the kernel tail-caps its stream at 256 KB, then eviction sees that result).
   * `false`: spill first and cap only what stays inline (tiancai's order).
   */
  capBeforeSpill: z.boolean(),
  /** Spill to a blob (sha256 + pointer) past this many characters (tiancai LargeOutputThreshold, runes). 0 = off. */
  spillThresholdChars: count,
  /** Spill past this many tokens (deepagents eviction, ~20k tokens). 0 = off. */
  spillThresholdTokens: count,
  /** Spill instead of truncating whenever a cap would cut content, so nothing is lost (ctxkit's own). */
  spillWhenTruncated: z.boolean(),
  /** Lines of the spilled output kept inline as a preview (deepagents: 5 + 5). */
  previewHeadLines: count,
  previewTailLines: count,
  /**
   * A single message larger than this fraction of the budget (window − output reserve) is clipped with a
   * marker (digitorn: 25 %), when `oversizedWhen` says. 0 = off.
   */
  oversizedFraction: fraction,
  /**
   * `always`: before every call, whether or not the request fits (digitorn: "a single huge tool result
   * blowing past 25% of the budget" is clipped by truncate_oversized_messages). `to-fit`: only while the
   * request cannot fit, as the first cut of the snip step (ctxkit's default).
   */
  oversizedWhen: z.enum(OVERSIZED_WHEN),
});

export const TruncateOldSchema = z.strictObject({
  /** Before each call, results in earlier turns over maxChars keep head + tail + notice (cowagent). */
  enabled: z.boolean(),
  maxChars: positiveCount,
  /** Share of maxChars kept from the head; the rest from the tail. */
  headFraction: fraction,
});

export const ClearingSchema = z.strictObject({
  /** Replace old tool results with a placeholder as the window fills (deepagents, langchain ContextEditingMiddleware). */
  enabled: z.boolean(),
  /** Pressure (fraction of the window) at which clearing starts. */
  trigger: fraction,
  /** Newest tool results kept verbatim (ClearToolUsesEdit keep=3). */
  keepRecent: count,
  /**
   * The working set (ctxkit's own): the newest tool output is kept verbatim while it fits this many
   * tokens (opencode protects the newest 40,000), whatever `keepRecent` says. 0: no token budget.
   */
  keepRecentTokens: count,
  /**
   * … a budget that scales with the window: this fraction of the usable window (window − output reserve),
   * at most `keepRecentTokens` when that is set. 0: `keepRecentTokens` alone.
   */
  keepRecentFraction: fraction,
  /** Clear only if it frees at least this many tokens (ClearToolUsesEdit clear_at_least). */
  minFreedTokens: count,
  /**
   * … and at least this fraction of the usable window (ctxkit's own): each clearing breaks the prompt
   * cache from the first cleared result on, so it should buy real room, not a few hundred tokens.
   */
  minFreedFraction: fraction,
  /** Stop at the minimum (LangChain) rather than clear every eligible result in one cache break. */
  stopAtMinimum: z.boolean(),
  /** Tool names never cleared. */
  excludeTools: z.array(z.string().min(1)),
  placeholder: z.string().min(1),
  /** Also blank the arguments of the tool call whose result was cleared. */
  clearToolInputs: z.boolean(),
  /**
   * Offload instead of forget (ctxkit's own): a cleared result is stored as a blob and its place holds a
   * short pointer the agent can follow, so clearing loses nothing and may start early.
   */
  offload: z.boolean(),
  /**
   * With `offload`, also offload long string arguments of calls older than the kept results (a file's
   * whole content, a long patch): those are the agent's own edits, so this hides what it wrote from it.
   */
  offloadArguments: z.boolean(),
  /**
   * What an offloaded result's pointer keeps of it, in characters (ctxkit's own): its first error line,
   * then the `file:line` references, paths, hashes and identifiers it names, so the agent often needs no
   * read-back. 0: the pointer names the tool, the size, the first line and the ref only.
   */
  pointerKeysMaxChars: count,
});

export const ARCHIVE_STRATEGIES = ['model', 'extractive', 'off'] as const;

export const ArchiveSchema = z.strictObject({
  /** Archive the oldest results while more than this many are visible (tiancai ToolCallCutoff). */
  toolCallCutoff: positiveCount,
  /** How the digest is written: a model call, a local extractive digest, or no archiving (tiancai llm | heuristic | off). */
  strategy: z.enum(ARCHIVE_STRATEGIES),
  /** Model digest: input clipped to this many characters, output to this many runes (tiancai). */
  inputMaxChars: positiveCount,
  outputMaxChars: positiveCount,
  /** Extractive digest clipped to this many runes, head + tail (tiancai). */
  extractiveMaxChars: positiveCount,
});

export const TrimSchema = z.strictObject({
  /** Trim whole turns when there are more than maxTurns (cowagent). */
  enabled: z.boolean(),
  maxTurns: positiveCount,
  /** Share of the turns trimmed each time (cowagent: the oldest half). */
  fraction: z.number().gt(0).max(1),
  /** Inject the summary of the trimmed turns into the first kept user message (cowagent). */
  injectSummary: z.boolean(),
  /** Write the summary of trimmed turns to the daily memory file (cowagent). */
  writeMemory: z.boolean(),
});

export const SUMMARIZE_STRATEGIES = ['summarize', 'drop'] as const;
export const HOOK_EVENTS = ['turn_start', 'turn_end', 'before_call'] as const;
export const SUMMARY_PLACEMENTS = [
  'own-message',
  'user-message',
  'first-user-message',
  'system-message',
  'system-prompt',
] as const;
export const MESSAGES_WHEN = ['always', 'no-token-limit'] as const;
export const CUT_AT = ['turn', 'message', 'turn-or-message'] as const;

export const SummaryModelSchema = z.strictObject({
  /** A cheaper model dedicated to summaries (digitorn summary_brain). */
  provider: z.string().min(1).optional(),
  model: z.string().min(1),
  backend: z.string().min(1).optional(),
  baseUrl: z.url().optional(),
  /** Name of the environment variable holding the API key; never the key itself. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: positiveCount.optional(),
});

export const SummarizeSchema = z.strictObject({
  /** Compact automatically (tiancai AutoCompact, digitorn auto_compact). */
  auto: z.boolean(),
  /** `summarize` costs one model call; `drop` cuts old turns and injects a reminder, no model call (digitorn truncate). */
  strategy: z.enum(SUMMARIZE_STRATEGIES),
  /** When the automatic check runs: after a turn (tiancai, picoclaw, async), at turn start (digitorn), before each call (deepagents). */
  runOn: z.enum(HOOK_EVENTS),
  /** Pressure (fraction of the window) that fires it (deepagents: 0.85, digitorn: 0.75, picoclaw: 75 %). 0 = no fraction trigger. */
  trigger: fraction,
  /** Message-count trigger (tiancai MaxMessages, picoclaw threshold). 0 = none. */
  maxMessages: count,
  /** `always`: count OR pressure (picoclaw). `no-token-limit`: only when no token threshold exists (tiancai). */
  maxMessagesWhen: z.enum(MESSAGES_WHEN),
  /**
   * What stays verbatim. The first non-zero rule wins, in this order: tokens, fraction, turns,
   * messages (tiancai prefers KeepRecentTokens over KeepRecent).
   */
  keepRecentTokens: count,
  keepRecentFraction: fraction,
  keepRecentTurns: count,
  keepRecentMessages: count,
  /** keepRecentTokens is clamped to this fraction of the effective token limit (tiancai: half). */
  keepRecentTokensMaxFraction: fraction,
  /**
   * Where the cut may fall. Never between a tool call and its result either way; `turn` snaps to a user
   * message (picoclaw); `turn-or-message` does too, and cuts between messages when no user message is
   * in reach (one request, a hundred tool calls), instead of leaving the turn to the lossy steps.
   */
  cutAt: z.enum(CUT_AT),
  /** Tool results are clipped to this many runes in the summarizer's input (tiancai: 1800). 0 = no clip. */
  toolResultMaxChars: count,
  /** The summarizer's input is trimmed to this many tokens (langchain trim_tokens_to_summarize). 0 = no trim. */
  inputMaxTokens: count,
  /** Hard cap on the summary (digitorn summary_max_tokens). 0 = uncapped. */
  maxSummaryTokens: count,
  placement: z.enum(SUMMARY_PLACEMENTS),
  /** The first line of the summary message (tiancai: "[Previous conversation summary]"). */
  prefix: z.string(),
  /** Write the summarized turns to conversation_history/<session>.md and put the path in the summary (deepagents). */
  offloadTranscript: z.boolean(),
  /** Append a "[Compaction tool digest]" of the tool results archived in the kept window (tiancai). */
  recentToolDigest: z.boolean(),
  /** Minimum seconds between two automatic compactions (digitorn hook cooldown). */
  cooldownSeconds: z.number().min(0),
  model: SummaryModelSchema.optional(),
});

export const CompressTextSchema = z.strictObject({
  /** When still over budget with fewer than belowTurns turns, keep each turn's first user text + final reply (cowagent). */
  enabled: z.boolean(),
  belowTurns: positiveCount,
});

export const EMERGENCY_STEPS = [
  'summarize-to-memory',
  'limit-sizes',
  'compact',
  'truncate',
  'drop-fraction',
  'drop-to-fit',
] as const;

/** What the emergency reset clears (see `emergency.resetScope`). */
export const RESET_SCOPES = ['all', 'before-last-turn'] as const;
export const DEFAULT_RESET_SCOPE: (typeof RESET_SCOPES)[number] = 'before-last-turn';

export const EmergencySchema = z.strictObject({
  /** Recover when the provider reports a context overflow anyway. */
  enabled: z.boolean(),
  /**
   * Steps run in order before the retry:
   * - `summarize-to-memory`: summarize everything to the memory file (cowagent)
   * - `limit-sizes`: clip tool results / user text, keep maxTurns turns (cowagent)
   * - `compact`: the summarize layer, as usual (tiancai)
   * - `truncate`: drop with a reminder, keeping max(minKeepRecent, keepRecent / 2) messages, no model call (digitorn)
   * - `drop-fraction`: drop the oldest dropFraction of the turns, note it in the summary (picoclaw)
   * - `drop-to-fit`: keep the newest turns that fit beside the summary, no model call (ctxkit)
   */
  sequence: z.array(z.enum(EMERGENCY_STEPS)),
  /**
   * Retries after recovery (tiancai maxCompactionRecoveries = 1; picoclaw's loop retries twice), at most
   * MAX_EMERGENCY_RETRIES: every door sends a retry while the plan allows one.
   */
  maxRetries: count.max(MAX_EMERGENCY_RETRIES),
  /** Still overflowing after the retries: clear the context (cowagent). */
  resetWhenStillOver: z.boolean(),
  /**
   * What that reset clears: `all` empties the view, summary included, and the turn is not retried: the
   * next request starts from the user's next message (cowagent: "the entire conversation context is
   * cleared"); `before-last-turn` keeps the turn being answered and the summary, and the turn is retried
   * (ctxkit's default).
   */
  resetScope: z.enum(RESET_SCOPES),
  toolResultMaxChars: positiveCount,
  userTextMaxChars: positiveCount,
  maxTurns: positiveCount,
  minKeepRecent: positiveCount,
  dropFraction: z.number().gt(0).max(1),
});

/** digitorn: "The context_pressure condition is (_eval_context_pressure). Default threshold 0.75." */
export const DEFAULT_CONTEXT_PRESSURE_THRESHOLD = 0.75;

export const ContextPressureConditionSchema = z.strictObject({
  type: z.literal('context_pressure'),
  /** Unset = {@link DEFAULT_CONTEXT_PRESSURE_THRESHOLD}. */
  threshold: fraction.default(DEFAULT_CONTEXT_PRESSURE_THRESHOLD),
});
export const TurnCountConditionSchema = z.strictObject({
  type: z.literal('turn_count'),
  every: positiveCount,
});
export const ToolCallsConditionSchema = z.strictObject({
  type: z.literal('tool_calls'),
  threshold: positiveCount,
});

export const HookConditionSchema = z.discriminatedUnion('type', [
  ContextPressureConditionSchema,
  TurnCountConditionSchema,
  ToolCallsConditionSchema,
]);

export const CompactContextActionSchema = z.strictObject({
  type: z.literal('compact_context'),
  /** Unset = summarize.strategy. */
  strategy: z.enum(SUMMARIZE_STRATEGIES).optional(),
  /** Messages kept verbatim; unset = the summarize layer's keep rules. */
  keepRecent: count.optional(),
  /** Unset = summarize.maxSummaryTokens. */
  summaryMaxTokens: count.optional(),
});

export const HookSchema = z.strictObject({
  id: z.string().min(1),
  on: z.enum(HOOK_EVENTS),
  condition: HookConditionSchema,
  action: CompactContextActionSchema,
  /** Seconds before the hook may fire again (digitorn `cooldown: 30.0`). Unset = no cooldown. */
  cooldownSeconds: z.number().min(0).optional(),
});

export const RESTORE_MODES = ['full', 'text', 'snapshot'] as const;

export const RestoreSchema = z.strictObject({
  /** `full`: the whole checkpoint (deepagents). `text`: last turns as user text + final reply (cowagent). `snapshot`: replay the compaction snapshot (digitorn). */
  mode: z.enum(RESTORE_MODES),
  /** `text` mode restores max(minTurns, trim.maxTurns / turnDivisor) turns (cowagent). */
  minTurns: positiveCount,
  turnDivisor: positiveCount,
});

export const RetentionSchema = z.strictObject({
  /** Sessions idle longer are deleted (cowagent: 30 days). 0 = keep forever. */
  maxIdleDays: count,
});

export const DisplaySchema = z.strictObject({
  /** Context-percentage colours in status bars (deepagents: yellow at 70 %, red at 90 %). */
  warnAt: fraction,
  dangerAt: fraction,
});

export const PromptIndexSchema = z.strictObject({
  /** Put the index in every request, in the system prompt after the caller's prompt. */
  show: z.boolean(),
  /**
   * Tokens it may take there (counted in the system prompt's tokens, so every budget sees it); past it,
   * whole lines are left out and a notice says how to read them all. 0 = no cap.
   */
  maxTokens: count,
});

/**
 * What enters every request beside the caller's system prompt (deepagents, "What enters the context"):
 * indexes whose entries the agent reads on demand with a tool.
 */
export const IndexesSchema = z.strictObject({
  /** Every skill's name and description, from the ContextManager's `skills` source (`read_skill` reads a body). */
  skills: PromptIndexSchema,
  /** The memory index MEMORY.md, when the memory sink keeps one (`read_memory` reads a note). */
  memory: PromptIndexSchema,
});

const policyShape = {
  /** The model the agent talks to; selects the profile (window, max output, tokenizer). */
  model: z.string().min(1).optional(),
  budget: BudgetSchema,
  tokens: TokensSchema,
  toolOutput: ToolOutputSchema,
  truncateOld: TruncateOldSchema,
  clearing: ClearingSchema,
  archive: ArchiveSchema,
  trim: TrimSchema,
  summarize: SummarizeSchema,
  compressText: CompressTextSchema,
  emergency: EmergencySchema,
  hooks: z.array(HookSchema),
  restore: RestoreSchema,
  retention: RetentionSchema,
  display: DisplaySchema,
  indexes: IndexesSchema,
};

/** The sections of a policy, in layer order. */
export const POLICY_SECTIONS = Object.keys(policyShape) as readonly (keyof typeof policyShape)[];

/** The shape alone (no cross-field rules): the basis for walking paths and for the override schema. */
export const PolicyShapeSchema = z.strictObject(policyShape);

/** A complete policy, with the rules that tie fields together. */
export const PolicySchema = PolicyShapeSchema.superRefine((policy, context) => {
  const { budget, display, clearing, summarize, emergency, hooks } = policy;
  if (budget.contextWindow > 0 && budget.maxOutputTokens >= budget.contextWindow) {
    context.addIssue({
      code: 'custom',
      path: ['budget', 'maxOutputTokens'],
      message: `must be smaller than budget.contextWindow (${budget.contextWindow})`,
    });
  }
  if (display.warnAt > display.dangerAt) {
    context.addIssue({
      code: 'custom',
      path: ['display', 'warnAt'],
      message: `must not exceed display.dangerAt (${display.dangerAt})`,
    });
  }
  // Cheapest first: clearing that only starts after summarization would never get a chance to run.
  if (clearing.enabled && summarize.auto && summarize.trigger > 0 && clearing.trigger >= summarize.trigger) {
    context.addIssue({
      code: 'custom',
      path: ['clearing', 'trigger'],
      message: `must be below summarize.trigger (${summarize.trigger}): clearing is the cheaper layer and runs first`,
    });
  }
  if (emergency.enabled && emergency.sequence.length === 0 && !emergency.resetWhenStillOver) {
    context.addIssue({
      code: 'custom',
      path: ['emergency', 'sequence'],
      message: 'must name at least one step when emergency recovery is enabled',
    });
  }
  const seen = new Set<string>();
  hooks.forEach((hook, index) => {
    if (seen.has(hook.id)) {
      context.addIssue({
        code: 'custom',
        path: ['hooks', index, 'id'],
        message: `duplicate hook id "${hook.id}"`,
      });
    }
    seen.add(hook.id);
  });
});

/**
 * An override: any subset of the fields, each section partial, strict at every level. Arrays
 * (`hooks`, `excludeTools`, `emergency.sequence`) are replaced whole when merged.
 */
export const PolicyOverrideSchema = z.strictObject({
  model: policyShape.model,
  budget: BudgetSchema.partial().optional(),
  tokens: TokensSchema.partial().optional(),
  toolOutput: ToolOutputSchema.partial().optional(),
  truncateOld: TruncateOldSchema.partial().optional(),
  clearing: ClearingSchema.partial().optional(),
  archive: ArchiveSchema.partial().optional(),
  trim: TrimSchema.partial().optional(),
  summarize: SummarizeSchema.extend({ model: SummaryModelSchema.partial().optional() }).partial().optional(),
  compressText: CompressTextSchema.partial().optional(),
  emergency: EmergencySchema.partial().optional(),
  hooks: z.array(HookSchema).optional(),
  restore: RestoreSchema.partial().optional(),
  retention: RetentionSchema.partial().optional(),
  display: DisplaySchema.partial().optional(),
  indexes: z
    .strictObject({
      skills: PromptIndexSchema.partial().optional(),
      memory: PromptIndexSchema.partial().optional(),
    })
    .optional(),
});

export type Policy = z.infer<typeof PolicySchema>;
export type PolicyOverride = z.infer<typeof PolicyOverrideSchema>;
export type BudgetPolicy = Policy['budget'];
export type TokensPolicy = Policy['tokens'];
export type ToolOutputPolicy = Policy['toolOutput'];
export type TruncateOldPolicy = Policy['truncateOld'];
export type ClearingPolicy = Policy['clearing'];
export type ArchivePolicy = Policy['archive'];
export type TrimPolicy = Policy['trim'];
export type SummarizePolicy = Policy['summarize'];
export type SummaryModel = z.infer<typeof SummaryModelSchema>;
export type CompressTextPolicy = Policy['compressText'];
export type EmergencyPolicy = Policy['emergency'];
export type EmergencyStep = (typeof EMERGENCY_STEPS)[number];
export type ResetScope = (typeof RESET_SCOPES)[number];
export type Hook = z.infer<typeof HookSchema>;
export type HookCondition = z.infer<typeof HookConditionSchema>;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export type CompactContextAction = z.infer<typeof CompactContextActionSchema>;
export type RestorePolicy = Policy['restore'];
export type RetentionPolicy = Policy['retention'];
export type DisplayPolicy = Policy['display'];
export type IndexesPolicy = Policy['indexes'];
export type PromptIndexPolicy = Policy['indexes']['skills'];
export type SummarizeStrategy = (typeof SUMMARIZE_STRATEGIES)[number];
export type ArchiveStrategy = (typeof ARCHIVE_STRATEGIES)[number];
export type TokenCounterKind = (typeof TOKEN_COUNTERS)[number];
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];
