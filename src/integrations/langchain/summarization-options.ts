/**
 * `summarizationMiddleware`'s options, onto a ctxkit policy: what a LangChain user already wrote keeps
 * its meaning where ctxkit has the same setting.
 *
 * | LangChain | ctxkit |
 * |---|---|
 * | `trigger: { fraction }` | `summarize.trigger` (ctxkit measures pressure against the window less the reply's reserve) |
 * | `trigger: { tokens }` | `budget.maxContextTokens` (`always`): the request never grows past it; over it, ctxkit compacts |
 * | `trigger: { messages }` | `summarize.maxMessages` (`always`) |
 * | an array of those | each one (any of them fires, as in LangChain) |
 * | `keep: { messages }` / `{ tokens }` / `{ fraction }` | `summarize.keepRecentMessages` / `keepRecentTokens` / `keepRecentFraction`, cut at a message (never between a call and its result) |
 * | `trimTokensToSummarize` | `summarize.inputMaxTokens`, plus the tokens of ctxkit's own summary prompt |
 * | `summaryPrefix` | `summarize.prefix` |
 * | `model` | the summarizer: ctxkit's structured prompt, written by that model |
 *
 * Not mapped (an `InvalidPolicyError` names the option): a trigger that joins two conditions with AND
 * (`{ tokens: 4000, messages: 10 }`: ctxkit's triggers each fire on their own), `summaryPrompt` (ctxkit's
 * summary has fixed sections it parses back), `tokenCounter` (ctxkit counts with the model's tokenizer,
 * calibrated on reported usage) and the deprecated `maxTokensBeforeSummary` / `messagesToKeep`.
 */
import { InvalidPolicyError } from '../../core/errors/index.ts';
import type { PolicyOverride } from '../../core/policy/policy-schema.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import { DEFAULT_PROMPT_OVERHEAD_TOKENS } from '../../summarize/model-summarizer.ts';
import { buildSummaryPrompt, SUMMARY_SYSTEM_PROMPT } from '../../summarize/summary-prompt.ts';

/** LangChain's `ContextSize`: one of its fields per condition here (see the module comment). */
export interface SummarizationTrigger {
  fraction?: number;
  tokens?: number;
  messages?: number;
}

/** LangChain's `KeepSize`: exactly one field. */
export interface SummarizationKeep {
  fraction?: number;
  tokens?: number;
  messages?: number;
}

/** The options of `summarizationMiddleware` that ctxkit takes over. */
export interface SummarizationOptions {
  trigger?: SummarizationTrigger | SummarizationTrigger[];
  keep?: SummarizationKeep;
  trimTokensToSummarize?: number;
  summaryPrefix?: string;
}

/** `summarizationMiddleware` options with no ctxkit counterpart, and why: named in the error. */
export const UNMAPPED_SUMMARIZATION_OPTIONS: Readonly<Record<string, string>> = {
  summaryPrompt:
    "ctxkit's summaries follow a fixed set of sections that it parses back; pass a Summarizer to createContextManager for your own",
  tokenCounter:
    "ctxkit counts with the model's tokenizer (or one calibrated on reported usage); pass a TokenCounter to createContextManager",
  maxTokensBeforeSummary: 'deprecated in LangChain: use trigger: { tokens }',
  messagesToKeep: 'deprecated in LangChain: use keep: { messages }',
};

/**
 * Clearing must start below the summarize trigger (cheapest layer first): a trigger at or under the
 * default clearing threshold moves clearing to this share of it.
 */
export const CLEARING_SHARE_OF_TRIGGER = 0.7;
/** With a trigger and no keep: the share of the window kept verbatim, as a share of the trigger. */
export const KEEP_SHARE_OF_TRIGGER = 0.3;

let promptTokens: number | undefined;
/** Tokens of ctxkit's summary prompt around the messages (system prompt, framing), counted once. */
function summaryPromptTokens(): number {
  if (promptTokens === undefined) {
    const counter = createExactCounter('o200k');
    promptTokens =
      counter.count(SUMMARY_SYSTEM_PROMPT) +
      counter.count(
        buildSummaryPrompt({
          previous: undefined,
          transcript: '',
          instructions: undefined,
          maxTokens: 1_000,
        }),
      ) +
      DEFAULT_PROMPT_OVERHEAD_TOKENS;
  }
  return promptTokens;
}

/** The policy override the options mean; an option ctxkit cannot honour is an `InvalidPolicyError`. */
export function summarizationPolicy(
  options: SummarizationOptions & Record<string, unknown>,
  clearingTrigger: number,
): PolicyOverride {
  for (const [key, reason] of Object.entries(UNMAPPED_SUMMARIZATION_OPTIONS))
    if (options[key] !== undefined) throw new InvalidPolicyError(key, `not supported: ${reason}`);
  const summarize: NonNullable<PolicyOverride['summarize']> = {};
  const budget: NonNullable<PolicyOverride['budget']> = {};
  const clearing: NonNullable<PolicyOverride['clearing']> = {};

  const triggers =
    options.trigger === undefined ? [] : Array.isArray(options.trigger) ? options.trigger : [options.trigger];
  triggers.forEach((trigger, index) => {
    const key = triggers.length > 1 ? `trigger[${index}]` : 'trigger';
    const set = Object.entries(trigger ?? {}).filter(([, value]) => value !== undefined);
    if (set.length !== 1) {
      throw new InvalidPolicyError(
        key,
        set.length === 0
          ? 'give one of fraction, tokens or messages'
          : `ctxkit's triggers fire each on its own: give one of ${set.map(([name]) => name).join(', ')} per condition, as an array for any of them`,
      );
    }
    const [name, value] = set[0] as [string, unknown];
    switch (name) {
      case 'fraction': {
        const fraction = checked(`${key}.fraction`, value, (n) => n > 0 && n <= 1, 'a number in (0, 1]');
        summarize.trigger = Math.min(summarize.trigger ?? 1, fraction);
        break;
      }
      case 'tokens': {
        const tokens = Math.floor(checked(`${key}.tokens`, value, (n) => n >= 1, 'a positive number'));
        budget.maxContextTokens = Math.min(budget.maxContextTokens ?? Number.POSITIVE_INFINITY, tokens);
        budget.maxContextTokensWhen = 'always';
        break;
      }
      case 'messages': {
        const messages = checked(
          `${key}.messages`,
          value,
          (n) => Number.isInteger(n) && n >= 1,
          'a positive integer',
        );
        summarize.maxMessages = Math.min(summarize.maxMessages ?? Number.POSITIVE_INFINITY, messages);
        summarize.maxMessagesWhen = 'always';
        break;
      }
      default:
        throw new InvalidPolicyError(`${key}.${name}`, 'unknown: expected fraction, tokens or messages');
    }
  });
  if (summarize.trigger !== undefined && clearingTrigger >= summarize.trigger) {
    clearing.trigger = Math.round(summarize.trigger * CLEARING_SHARE_OF_TRIGGER * 1000) / 1000;
  }

  if (options.keep !== undefined) {
    const set = Object.entries(options.keep).filter(([, value]) => value !== undefined);
    if (set.length !== 1)
      throw new InvalidPolicyError('keep', 'give exactly one of fraction, tokens or messages');
    const [name, value] = set[0] as [string, unknown];
    const none = { keepRecentTokens: 0, keepRecentFraction: 0, keepRecentTurns: 0, keepRecentMessages: 0 };
    switch (name) {
      case 'messages':
        none.keepRecentMessages = checked(
          'keep.messages',
          value,
          (n) => Number.isInteger(n) && n >= 1,
          'a positive integer',
        );
        break;
      case 'tokens':
        none.keepRecentTokens = Math.floor(checked('keep.tokens', value, (n) => n >= 1, 'a positive number'));
        break;
      case 'fraction':
        none.keepRecentFraction = checked(
          'keep.fraction',
          value,
          (n) => n > 0 && n <= 1,
          'a number in (0, 1]',
        );
        break;
      default:
        throw new InvalidPolicyError(`keep.${name}`, 'unknown: expected fraction, tokens or messages');
    }
    Object.assign(summarize, none, { cutAt: 'message' as const });
  }
  if (options.keep === undefined && summarize.trigger !== undefined) {
    // Without a keep, what stays verbatim must leave the context under the trigger once summarized, or every
    // call past it summarizes again: 30 % of the trigger's share of the window, the summary beside it
    // (measured: 40 turns at 8k with the trigger at 0.5 summarize 11 times, where keep 20 messages does 28).
    Object.assign(summarize, {
      keepRecentTokens: 0,
      keepRecentTurns: 0,
      keepRecentMessages: 0,
      keepRecentFraction: Math.round(summarize.trigger * KEEP_SHARE_OF_TRIGGER * 1000) / 1000,
      cutAt: 'message' as const,
    });
  }
  if (options.trimTokensToSummarize !== undefined) {
    // LangChain's figure is the messages given to the summarizer; ctxkit's bound is the whole request, so
    // its own prompt is added on top.
    summarize.inputMaxTokens =
      Math.floor(
        checked('trimTokensToSummarize', options.trimTokensToSummarize, (n) => n >= 1, 'a positive number'),
      ) + summaryPromptTokens();
  }
  if (options.summaryPrefix !== undefined) {
    if (typeof options.summaryPrefix !== 'string')
      throw new InvalidPolicyError('summaryPrefix', 'must be a string');
    summarize.prefix = options.summaryPrefix;
  }
  return {
    ...(Object.keys(summarize).length > 0 && { summarize }),
    ...(Object.keys(budget).length > 0 && { budget }),
    ...(Object.keys(clearing).length > 0 && { clearing }),
  };
}

function checked(key: string, value: unknown, ok: (n: number) => boolean, expected: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value))
    throw new InvalidPolicyError(key, `must be ${expected}, got ${JSON.stringify(value)}`);
  return value;
}
