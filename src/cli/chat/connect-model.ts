/**
 * Which provider `ctxkit chat` talks to, with which key, and the window the model really has.
 *
 * Provider: `--provider` when given; else Anthropic when the base URL is Anthropic's or the model is a
 * Claude, or when only ANTHROPIC_API_KEY is set; else OpenAI-compatible (OpenAI, vLLM, Ollama,
 * llama.cpp, LM Studio, OpenRouter, DeepSeek…).
 *
 * Window: the size the server has the model loaded with, when it can tell (seed 002: the theoretical
 * maximum is the wrong answer); `--window` is honoured below that size and capped at it (a larger
 * window than the model is loaded with only overflows); without a server answer, `--window`, else the
 * profile table.
 */
import { FlagError } from '../../core/errors/index.ts';
import {
  createAnthropicClient,
  DEFAULT_ANTHROPIC_BASE_URL,
  loadAnthropicSdkNow,
} from '../../providers/anthropic-client.ts';
import type { ModelClient } from '../../providers/model-client.ts';
import { findModelProfile } from '../../providers/model-profiles.ts';
import { createOpenAICompatibleClient, loadOpenAISdkNow } from '../../providers/openai-compatible-client.ts';

export type ChatProvider = 'openai' | 'anthropic';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** The model asked for when none is named: one each provider serves. */
export const DEFAULT_MODELS: Readonly<Record<ChatProvider, string>> = {
  openai: 'gpt-4o',
  // claude-sonnet-4-5 reaches end-of-life on 2026-11-30 (the SDK warns at every call).
  anthropic: 'claude-sonnet-4-6',
};

export interface ConnectFlags {
  provider?: string;
  baseUrl?: string;
  model?: string;
}

export interface ModelConnection {
  provider: ChatProvider;
  client: ModelClient;
  model: string;
  baseUrl: string;
}

export function inferProvider(
  flags: ConnectFlags,
  env: Readonly<Record<string, string | undefined>>,
): ChatProvider {
  if (flags.provider !== undefined) {
    const provider = flags.provider.trim().toLowerCase();
    if (provider === 'openai' || provider === 'anthropic') return provider;
    throw new FlagError('--provider', `must be openai or anthropic, got ${JSON.stringify(flags.provider)}`);
  }
  if (flags.baseUrl !== undefined) return /anthropic\.com/i.test(flags.baseUrl) ? 'anthropic' : 'openai';
  if (flags.model !== undefined) return /^claude/i.test(flags.model.trim()) ? 'anthropic' : 'openai';
  if (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY) return 'anthropic';
  return 'openai';
}

/**
 * The client for the flags and environment. A hosted endpoint without its key is refused here, with
 * what to set; a local server (any `--base-url` that is not the provider's own) may need none. With a
 * `--base-url` and no `--model`, the model is the one the server lists, when it lists exactly one.
 */
export async function connectModel(
  flags: ConnectFlags,
  env: Readonly<Record<string, string | undefined>>,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<ModelConnection> {
  const provider = inferProvider(flags, env);
  const fetchOption = { fetch: fetchImpl };
  if (flags.baseUrl !== undefined && !/^https?:\/\/[^\s/]/i.test(flags.baseUrl))
    throw new FlagError('--base-url', `expected an http(s) URL, got ${JSON.stringify(flags.baseUrl)}`);
  if (provider === 'anthropic') {
    const baseUrl = flags.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL;
    const apiKey = env.ANTHROPIC_API_KEY;
    if (!apiKey && flags.baseUrl === undefined)
      throw new FlagError(
        '--provider',
        'anthropic needs a key: set ANTHROPIC_API_KEY, or point --base-url at a compatible server',
      );
    const model = flags.model?.trim() || DEFAULT_MODELS.anthropic;
    await loadAnthropicSdkNow();
    return {
      provider,
      model,
      baseUrl,
      client: createAnthropicClient({ apiKey: apiKey ?? '', baseUrl, defaultModel: model, ...fetchOption }),
    };
  }
  const baseUrl = flags.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  const apiKey = env.OPENAI_API_KEY;
  if (!apiKey && flags.baseUrl === undefined)
    throw new FlagError(
      '--base-url',
      'no model endpoint: set OPENAI_API_KEY for OpenAI, or --base-url for a local or compatible server ' +
        '(e.g. --base-url http://127.0.0.1:11434/v1 for Ollama), or ANTHROPIC_API_KEY for Anthropic',
    );
  const model =
    flags.model?.trim() ||
    (flags.baseUrl === undefined ? DEFAULT_MODELS.openai : await onlyServedModel(baseUrl, apiKey, fetchImpl));
  await loadOpenAISdkNow();
  return {
    provider,
    model,
    baseUrl,
    client: createOpenAICompatibleClient({
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      defaultModel: model,
      ...fetchOption,
    }),
  };
}

/** How long the chat waits for a server's list of models. */
export const LIST_MODELS_TIMEOUT_MS = 3_000;

/** The one model a server lists at `GET {baseUrl}/models`; a FlagError naming `--model` otherwise. */
async function onlyServedModel(
  baseUrl: string,
  apiKey: string | undefined,
  fetchImpl: typeof fetch,
): Promise<string> {
  let ids: string[] = [];
  try {
    const response = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(LIST_MODELS_TIMEOUT_MS),
    });
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    if (response.ok && Array.isArray(body.data))
      ids = body.data
        .map((entry) => entry.id)
        .filter((id): id is string => typeof id === 'string' && id !== '');
  } catch {
    // No list: asked for below.
  }
  if (ids.length === 1 && ids[0]) return ids[0];
  throw new FlagError(
    '--model',
    ids.length > 1
      ? `the server serves several models; pass one: ${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}`
      : 'pass --model: the server did not list the models it serves',
  );
}

export interface ResolvedChatWindow {
  /** undefined: neither the server, the flag nor the profile table knows; the policy's own applies. */
  contextWindow: number | undefined;
  /** `flag`: --window, under what the server has loaded when it says. */
  source: 'server' | 'flag' | 'profile' | 'policy';
  /** What the server said, when it said. */
  served?: number;
}

export async function resolveChatWindow(
  connection: ModelConnection,
  flagWindow: number | undefined,
  signal?: AbortSignal,
): Promise<ResolvedChatWindow> {
  const served = await connection.client.servedContextWindow?.(connection.model, signal ? { signal } : {});
  if (served !== undefined) {
    if (flagWindow !== undefined && flagWindow < served)
      return { contextWindow: flagWindow, source: 'flag', served };
    return { contextWindow: served, source: 'server', served };
  }
  if (flagWindow !== undefined) return { contextWindow: flagWindow, source: 'flag' };
  const profile = findModelProfile(connection.model);
  if (profile) return { contextWindow: profile.contextWindow, source: 'profile' };
  return { contextWindow: undefined, source: 'policy' };
}
