/**
 * Which provider `ctxkit chat` talks to, with which key, and the window the model really has.
 *
 * Provider: `--provider` when given; else Anthropic when the base URL is Anthropic's or the model is a
 * Claude, or when only ANTHROPIC_API_KEY is set; else OpenAI-compatible (OpenAI, vLLM, Ollama,
 * llama.cpp, LM Studio, OpenRouter, DeepSeek…).
 *
 * Window: the one window rule every door follows (`chooseContextWindow`), with what only the chat can
 * add: the size the local server says it serves the model with, asked first (seed 002: the theoretical
 * maximum is the wrong answer). `--window` and `--max-output` reach the rule through the policy (the
 * flags are a config layer): a configured window wins but never exceeds what the server serves;
 * picoclaw's window without one is 4 × the reply reserve; an unknown model with no window under any
 * other preset is the library's UnknownModelError.
 */
import { FlagError } from '../../core/errors/index.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import {
  createAnthropicClient,
  DEFAULT_ANTHROPIC_BASE_URL,
  loadAnthropicSdkNow,
} from '../../providers/anthropic-client.ts';
import type { ModelClient } from '../../providers/model-client.ts';
import { createOpenAICompatibleClient, loadOpenAISdkNow } from '../../providers/openai-compatible-client.ts';
import { reserveDoesNotFitWindow } from '../../providers/reserve-does-not-fit.ts';
import { type ChosenWindow, chooseContextWindow } from '../../providers/resolve-context-window.ts';

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
  /** `--no-prompt-cache` sets it false: Anthropic requests go without ctxkit's cache breakpoints. */
  promptCache?: boolean;
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
      client: createAnthropicClient({
        apiKey: apiKey ?? '',
        baseUrl,
        defaultModel: model,
        ...fetchOption,
        ...(flags.promptCache === false && { promptCache: false }),
      }),
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

export interface ChatWindow extends ChosenWindow {
  /** What the server said it serves the model with, when it said. */
  served?: number;
  /**
   * The window to hand the session's calls: what the manager cannot find itself from the same policy
   * (the server's size, a configured window cut down to it); undefined when its own rule gives the same.
   */
  forCalls: number | undefined;
}

/**
 * The chat's window by the one rule, the server asked first. A `--max-output` the window cannot hold is
 * a FlagError naming it.
 */
export async function chooseChatWindow(
  connection: ModelConnection,
  policy: Policy,
  flags: { maxOutput?: string | undefined } = {},
  signal?: AbortSignal,
): Promise<ChatWindow> {
  const served = await connection.client.servedContextWindow?.(connection.model, signal ? { signal } : {});
  let chosen: ChosenWindow;
  try {
    chosen = chooseContextWindow(policy, { model: connection.model, served });
  } catch (error) {
    if (reserveDoesNotFitWindow(error) && flags.maxOutput)
      throw new FlagError(
        '--max-output',
        `must be smaller than the window (${Number(error.details.contextWindow).toLocaleString('en-US')} tokens), got ${policy.budget.maxOutputTokens.toLocaleString('en-US')}`,
        flags.maxOutput,
      );
    throw error;
  }
  return {
    ...chosen,
    ...(served !== undefined && { served }),
    forCalls: chosen.windowSource === 'served' ? chosen.contextWindow : undefined,
  };
}

/** The window as the chat's first line says it: the size, the step of the rule, and what the server has. */
export function describeChatWindow(window: ChatWindow, windowFlag: number | undefined): string {
  const size = window.contextWindow.toLocaleString('en-US');
  let from: string;
  switch (window.windowSource) {
    case 'explicit':
      from = windowFlag !== undefined ? '--window' : 'budget.contextWindow';
      break;
    case 'served':
      from = 'as the server has it loaded';
      break;
    case 'profile':
      from = 'model profile';
      break;
    case 'max-output':
      from = `4 × max output ${window.maxOutputTokens.toLocaleString('en-US')}`;
      break;
    case 'max-context-tokens':
    case 'unbounded':
      return 'window unknown: compaction by the policy’s own limits';
    default:
      from = window.windowSource;
  }
  const served =
    window.served === undefined
      ? ''
      : window.windowSource !== 'served'
        ? `; the server has ${window.served.toLocaleString('en-US')}`
        : windowFlag !== undefined && windowFlag > window.served
          ? `; --window ${windowFlag.toLocaleString('en-US')} is more than the server has loaded`
          : '';
  return `window ${size} (${from}${served})`;
}
