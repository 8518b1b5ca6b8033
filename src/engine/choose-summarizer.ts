import { MissingApiKeyError } from '../core/errors/index.ts';
import type { Policy, SummaryModel } from '../core/policy/policy-schema.ts';
import { createAnthropicClient } from '../providers/anthropic-client.ts';
import type { ModelClient } from '../providers/model-client.ts';
import { findModelProfile } from '../providers/model-profiles.ts';
import { createOpenAICompatibleClient } from '../providers/openai-compatible-client.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../providers/resolve-context-window.ts';
import { createExtractiveSummarizer } from '../summarize/extractive-summarizer.ts';
import { createModelSummarizer } from '../summarize/model-summarizer.ts';
import type { Summarizer } from '../summarize/summarizer.ts';

/** Where a provider's OpenAI-compatible API lives, for a summary model that names a provider and no URL. */
export const PROVIDER_BASE_URLS: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  deepseek: 'https://api.deepseek.com/v1',
  groq: 'https://api.groq.com/openai/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  mistral: 'https://api.mistral.ai/v1',
  ollama: 'http://127.0.0.1:11434/v1',
};

/** Input the summarizer may send when neither the policy nor the model profile says: well under any window. */
export const DEFAULT_SUMMARY_INPUT_TOKENS = 24_000;

export interface SummarizerChoice {
  /** The agent's own model client and model name: used for summaries when the policy names no summary model. */
  client?: ModelClient;
  model?: string;
  env?: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  /**
   * The agent's model's window and output reserve, when known (a local server's loaded size, `--window`):
   * summaries by the agent's own model are cut to fit it, not the profile's (or the default) size.
   */
  contextWindow?: number;
  maxOutputTokens?: number;
}

/**
 * Which summarizer compactions use (digitorn: `summary_brain` if set, else the agent's main brain;
 * DESIGN: extractive when no model is configured). A model summarizer has no fallback of its own: when
 * it fails, the engine falls back to the drop layer, as digitorn says.
 */
export function chooseSummarizer(policy: Policy, choice: SummarizerChoice = {}): Summarizer {
  const dedicated = policy.summarize.model;
  if (dedicated) {
    return createModelSummarizer({
      client: clientFor(dedicated, choice),
      model: dedicated.model,
      maxInputTokens: inputBudget(policy, dedicated.model),
      ...(dedicated.temperature !== undefined ? { temperature: dedicated.temperature } : {}),
      // digitorn: summary_brain.max_tokens caps the summary model's reply, beside summary_max_tokens.
      ...(dedicated.maxTokens !== undefined ? { maxOutputTokens: dedicated.maxTokens } : {}),
    });
  }
  if (choice.client && choice.model) {
    return createModelSummarizer({
      client: choice.client,
      model: choice.model,
      maxInputTokens: inputBudget(policy, choice.model, choice),
    });
  }
  return createExtractiveSummarizer();
}

function inputBudget(
  policy: Policy,
  model: string,
  window: Pick<SummarizerChoice, 'contextWindow' | 'maxOutputTokens'> = {},
): number {
  if (policy.summarize.inputMaxTokens > 0) return policy.summarize.inputMaxTokens;
  const profile = findModelProfile(model);
  const contextWindow = window.contextWindow ?? profile?.contextWindow;
  if (contextWindow === undefined) return DEFAULT_SUMMARY_INPUT_TOKENS;
  const reserve =
    window.maxOutputTokens ??
    Math.min(profile?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, Math.floor(contextWindow / 4));
  // Leave room for the summary itself and a margin for the summary model's own tokenizer.
  return Math.max(1_000, Math.floor((contextWindow - reserve) * 0.8));
}

function clientFor(model: SummaryModel, choice: SummarizerChoice): ModelClient {
  const env = choice.env ?? process.env;
  const apiKey = model.apiKeyEnv ? env[model.apiKeyEnv] : undefined;
  if (model.apiKeyEnv && !apiKey) throw new MissingApiKeyError(model.apiKeyEnv);
  const kind = (model.backend ?? model.provider ?? 'openai').toLowerCase();
  const fetchOption = choice.fetch ? { fetch: choice.fetch } : {};
  if (kind === 'anthropic') {
    return createAnthropicClient({
      apiKey: apiKey ?? '',
      ...(model.baseUrl ? { baseUrl: model.baseUrl } : {}),
      defaultModel: model.model,
      ...fetchOption,
    });
  }
  const baseUrl =
    model.baseUrl ??
    PROVIDER_BASE_URLS[(model.provider ?? 'openai').toLowerCase()] ??
    PROVIDER_BASE_URLS.openai;
  return createOpenAICompatibleClient({
    baseUrl: baseUrl ?? 'https://api.openai.com/v1',
    ...(apiKey ? { apiKey } : {}),
    defaultModel: model.model,
    ...fetchOption,
  });
}
