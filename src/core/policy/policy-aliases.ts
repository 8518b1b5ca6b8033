import { InvalidPolicyError } from '../errors/index.ts';
import { seedValueError } from './policy-issues.ts';
import { PICOCLAW_UNSET_MAX_TOKENS } from './presets/picoclaw.ts';

/**
 * The seeds' own setting names, and what each means in ctxkit's vocabulary. A name may set several
 * ctxkit fields when its meaning carries a rule with it (cowagent's agent_max_context_tokens is a cap
 * that always applies; tiancai's MaxTokens only stands in for an unknown window).
 *
 * Two names mean different things in different products, so they are translated per dialect:
 * - `MaxTokens`: tiancai compact.Config.MaxTokens is the fallback token *limit* when no window
 *   is set → budget.maxContextTokens; picoclaw MaxTokens is the *output* limit sent as the
 *   request's max_tokens → budget.maxOutputTokens.
 * - `max_tokens`: digitorn runtime.context.max_tokens is the *context window* (0 =
 *   auto-detect) → budget.contextWindow; in picoclaw's config.json it is the output limit →
 *   budget.maxOutputTokens. (Inside digitorn's summary_brain it is the summary model's output cap.)
 */

export const SEED_DIALECTS = ['cowagent', 'tiancai', 'deepagents', 'digitorn', 'picoclaw'] as const;
export type SeedDialect = (typeof SEED_DIALECTS)[number];
/** `ctxkit` accepts only ctxkit's names; `auto` infers the dialect from the seed names present. */
export type PolicyDialect = 'ctxkit' | 'auto' | SeedDialect;
export const POLICY_DIALECTS: readonly PolicyDialect[] = ['auto', 'ctxkit', ...SEED_DIALECTS];

export const SEED_OF_DIALECT: Readonly<Record<SeedDialect, string>> = {
  cowagent: '000',
  tiancai: '001',
  deepagents: '002',
  digitorn: '003',
  picoclaw: '004',
};

export interface AliasMeaning {
  /** The ctxkit field the name stands for (for messages and suggestions). */
  target: string;
  /** The ctxkit fields it sets, path → value, for the value written under the seed's name. */
  translate: (value: unknown, writtenKey: string) => Record<string, unknown>;
  /**
   * ctxkit path → key as written, for fields inside the value that the name renames
   * (`summarize.model.maxTokens` → `runtime.context.summary_brain.max_tokens`), so errors name the seed's key.
   */
  subkeys?: (value: unknown, writtenKey: string) => Record<string, string>;
}

export interface SeedAlias {
  name: string;
  meanings: Partial<Record<SeedDialect, AliasMeaning>>;
}

/** Maps the value only when it has the expected type; otherwise zod reports the original value. */
function to(
  target: string,
  also: Record<string, unknown> = {},
  map: (value: unknown, writtenKey: string) => unknown = (value) => value,
): AliasMeaning {
  return { target, translate: (value, writtenKey) => ({ [target]: map(value, writtenKey), ...also }) };
}

/** tiancai's ToolSummaryStrategy values → archive.strategy. */
export const ARCHIVE_STRATEGY_ALIASES: Readonly<Record<string, string>> = {
  llm: 'model',
  heuristic: 'extractive',
};
/** digitorn's `truncate` strategy is ctxkit's `drop` (no model call). */
export const SUMMARIZE_STRATEGY_ALIASES: Readonly<Record<string, string>> = { truncate: 'drop' };

/** tiancai `ToolSummaryStrategy string // llm, heuristic, off`. */
export const TIANCAI_TOOL_SUMMARY_STRATEGIES = ['llm', 'heuristic', 'off'] as const;
/** tiancai `TruncateMode string // "head" or "head_tail"`. */
export const TIANCAI_TRUNCATE_MODES = ['head', 'head_tail'] as const;
/** digitorn `strategy: summarize # truncate | summarize` (also a compact_context hook's `strategy`). */
export const DIGITORN_STRATEGIES = ['truncate', 'summarize'] as const;

/**
 * A name that takes one of the seed's own values: anything else is refused in the seed's words (its
 * values, not ctxkit's), so a tiancai user reads `llm | heuristic | off`, never `model | extractive`.
 */
function oneOf(
  target: string,
  values: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): AliasMeaning {
  return {
    target,
    translate: (value, writtenKey) => {
      if (typeof value !== 'string' || !values.includes(value))
        throw seedValueError(writtenKey, values, value, target);
      return { [target]: aliases[value] ?? value };
    },
  };
}

/**
 * picoclaw's summarize_token_percent is a percentage (75), ctxkit's trigger a fraction (0.75). Checked
 * here: the schema would report the fraction (1.5), not the percentage the user wrote (150).
 */
function percentToFraction(value: unknown, writtenKey: string): unknown {
  if (typeof value !== 'number') return value;
  if (!Number.isFinite(value) || value < 0 || value > 100) {
    throw new InvalidPolicyError(
      writtenKey,
      `must be a percentage from 0 to 100, got a number (${value}) (sets summarize.trigger)`,
    );
  }
  return value / 100;
}

/** `{{secret.DEEPSEEK_API_KEY}}` → `DEEPSEEK_API_KEY`. A literal key is refused: policies get logged and shared. */
function apiKeyEnvFrom(value: unknown, writtenKey: string): unknown {
  if (typeof value !== 'string') return value;
  const template = /^\s*\{\{\s*(?:secret|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$/.exec(value);
  if (template?.[1] !== undefined) return template[1];
  throw new InvalidPolicyError(
    writtenKey,
    'a literal API key does not belong in a policy; write "{{secret.NAME}}" (or set summarize.model.apiKeyEnv) and put the key in that environment variable',
  );
}

/** digitorn's summary_brain (the AgentBrain shape) → summarize.model. Unknown fields pass through so they are reported. */
function summaryModelFrom(value: unknown, writtenKey: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const brain = value as Record<string, unknown>;
  const model: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(brain)) {
    switch (key) {
      case 'max_tokens':
        model.maxTokens = field;
        break;
      case 'base_url':
      case 'api_base':
        model.baseUrl = field;
        break;
      case 'api_key':
        model.apiKeyEnv = apiKeyEnvFrom(field, `${writtenKey}.${key}`);
        break;
      case 'config': {
        if (field === null || typeof field !== 'object' || Array.isArray(field)) {
          model.config = field;
          break;
        }
        for (const [configKey, configField] of Object.entries(field as Record<string, unknown>)) {
          if (configKey === 'api_key')
            model.apiKeyEnv = apiKeyEnvFrom(configField, `${writtenKey}.config.api_key`);
          else if (configKey === 'base_url' || configKey === 'api_base') model.baseUrl = configField;
          else model[`config.${configKey}`] = configField;
        }
        break;
      }
      default:
        model[key] = field;
    }
  }
  return model;
}

/** The summary_brain fields renamed on the way to summarize.model, each with the key as written. */
function summaryBrainSubkeys(value: unknown, writtenKey: string): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const written: Record<string, string> = {};
  const brain = value as Record<string, unknown>;
  for (const key of Object.keys(brain)) {
    if (key === 'max_tokens') written['summarize.model.maxTokens'] = `${writtenKey}.${key}`;
    else if (key === 'base_url' || key === 'api_base')
      written['summarize.model.baseUrl'] = `${writtenKey}.${key}`;
    else if (key === 'api_key') written['summarize.model.apiKeyEnv'] = `${writtenKey}.${key}`;
  }
  const config = brain.config;
  if (config !== null && typeof config === 'object' && !Array.isArray(config)) {
    for (const key of Object.keys(config)) {
      if (key === 'api_key') written['summarize.model.apiKeyEnv'] = `${writtenKey}.config.${key}`;
      else if (key === 'base_url' || key === 'api_base')
        written['summarize.model.baseUrl'] = `${writtenKey}.config.${key}`;
    }
  }
  return written;
}

/** Digitorn keeps exactly keep_recent messages; the other keep rules (which take precedence) are cleared. */
const KEEP_ONLY_MESSAGES = {
  'summarize.keepRecentTokens': 0,
  'summarize.keepRecentFraction': 0,
  'summarize.keepRecentTurns': 0,
};

const digitornKeepRecent = to('summarize.keepRecentMessages', KEEP_ONLY_MESSAGES);

/** picoclaw's MaxTokens (and config.json max_tokens): 0 means unset, which picoclaw reads as 8192. */
const picoclawMaxTokens = to('budget.maxOutputTokens', {}, (value) =>
  value === 0 ? PICOCLAW_UNSET_MAX_TOKENS : value,
);

export const SEED_ALIASES: readonly SeedAlias[] = [
  // cowagent, cowagent config.json / `/config`.
  {
    name: 'agent_max_context_tokens',
    meanings: { cowagent: to('budget.maxContextTokens', { 'budget.maxContextTokensWhen': 'always' }) },
  },
  { name: 'agent_max_context_turns', meanings: { cowagent: to('trim.maxTurns', { 'trim.enabled': true }) } },
  { name: 'agent_max_steps', meanings: { cowagent: to('budget.maxSteps') } },
  // tiancai, compact.Config.
  {
    name: 'MaxMessages',
    meanings: { tiancai: to('summarize.maxMessages', { 'summarize.maxMessagesWhen': 'no-token-limit' }) },
  },
  {
    name: 'MaxTokens',
    meanings: {
      tiancai: to('budget.maxContextTokens', { 'budget.maxContextTokensWhen': 'no-window' }),
      picoclaw: picoclawMaxTokens,
    },
  },
  { name: 'KeepRecent', meanings: { tiancai: to('summarize.keepRecentMessages') } },
  { name: 'KeepRecentTokens', meanings: { tiancai: to('summarize.keepRecentTokens') } },
  { name: 'ReserveTokens', meanings: { tiancai: to('budget.reserveTokens') } },
  { name: 'ToolCallCutoff', meanings: { tiancai: to('archive.toolCallCutoff') } },
  {
    name: 'ToolSummaryStrategy',
    meanings: {
      tiancai: oneOf('archive.strategy', TIANCAI_TOOL_SUMMARY_STRATEGIES, ARCHIVE_STRATEGY_ALIASES),
    },
  },
  { name: 'AutoCompact', meanings: { tiancai: to('summarize.auto') } },
  // tiancai, ToolOutputLimits.
  { name: 'MaxLines', meanings: { tiancai: to('toolOutput.maxLines') } },
  { name: 'MaxBytes', meanings: { tiancai: to('toolOutput.maxBytes') } },
  { name: 'MaxChars', meanings: { tiancai: to('toolOutput.maxChars') } },
  { name: 'LargeOutputThreshold', meanings: { tiancai: to('toolOutput.spillThresholdChars') } },
  { name: 'TruncateMode', meanings: { tiancai: oneOf('toolOutput.truncateMode', TIANCAI_TRUNCATE_MODES) } },
  // deepagents: the stock middleware's own parameter names.
  { name: 'tool_token_limit_before_evict', meanings: { deepagents: to('toolOutput.spillThresholdTokens') } },
  { name: 'clear_at_least', meanings: { deepagents: to('clearing.minFreedTokens') } },
  { name: 'exclude_tools', meanings: { deepagents: to('clearing.excludeTools') } },
  { name: 'clear_tool_inputs', meanings: { deepagents: to('clearing.clearToolInputs') } },
  { name: 'trim_tokens_to_summarize', meanings: { deepagents: to('summarize.inputMaxTokens') } },
  // digitorn, runtime.context (ContextConfig).
  {
    name: 'max_tokens',
    meanings: { digitorn: to('budget.contextWindow'), picoclaw: picoclawMaxTokens },
  },
  { name: 'output_reserved', meanings: { digitorn: to('budget.maxOutputTokens') } },
  {
    name: 'strategy',
    meanings: { digitorn: oneOf('summarize.strategy', DIGITORN_STRATEGIES, SUMMARIZE_STRATEGY_ALIASES) },
  },
  { name: 'keep_recent', meanings: { digitorn: digitornKeepRecent } },
  { name: 'keep_last', meanings: { digitorn: digitornKeepRecent } },
  { name: 'compression_trigger', meanings: { digitorn: to('summarize.trigger') } },
  { name: 'summary_max_tokens', meanings: { digitorn: to('summarize.maxSummaryTokens') } },
  { name: 'auto_compact', meanings: { digitorn: to('summarize.auto') } },
  {
    name: 'summary_brain',
    meanings: {
      digitorn: { ...to('summarize.model', {}, summaryModelFrom), subkeys: summaryBrainSubkeys },
    },
  },
  // picoclaw (Go field names) and picoclaw's config.json (agents.defaults.*).
  { name: 'ContextWindow', meanings: { picoclaw: to('budget.contextWindow') } },
  { name: 'context_window', meanings: { picoclaw: to('budget.contextWindow') } },
  {
    name: 'summarize_message_threshold',
    meanings: { picoclaw: to('summarize.maxMessages', { 'summarize.maxMessagesWhen': 'always' }) },
  },
  { name: 'summarize_token_percent', meanings: { picoclaw: to('summarize.trigger', {}, percentToFraction) } },
];

export const SEED_ALIAS_BY_NAME: ReadonlyMap<string, SeedAlias> = new Map(
  SEED_ALIASES.map((alias) => [alias.name, alias]),
);

/** `tiancai: summarize.keepRecentMessages` / `tiancai: budget.maxContextTokens; picoclaw: budget.maxOutputTokens`. */
export function describeAlias(alias: SeedAlias): string {
  return Object.entries(alias.meanings)
    .map(([dialect, meaning]) => `${dialect}: ${meaning?.target}`)
    .join('; ');
}

/** Every seed name with what it means, for "did you mean" at the top level of a policy. */
export const TOP_LEVEL_ALIAS_NOTES: ReadonlyMap<string, string> = new Map(
  SEED_ALIASES.map((alias) => [alias.name, describeAlias(alias)]),
);

/** Hook spellings from digitorn's YAML, accepted inside `hooks` whatever the dialect. */
export const HOOK_KEY_ALIASES: Readonly<Record<string, string>> = { cooldown: 'cooldownSeconds' };
export const HOOK_ACTION_KEY_ALIASES: Readonly<Record<string, string>> = {
  keep_recent: 'keepRecent',
  keep_last: 'keepRecent',
  summary_max_tokens: 'summaryMaxTokens',
};
