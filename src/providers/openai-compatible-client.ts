/**
 * A ModelClient for OpenAI Chat Completions and the servers that copy it (DeepSeek, OpenRouter, Groq,
 * vLLM, Ollama, llama.cpp, LM Studio…), over the official `openai` SDK: `POST {baseUrl}/chat/completions`,
 * whole (`complete`) or streamed (`stream`).
 *
 * Message translation is the adapter's (`src/adapters/openai-chat.ts`); this file adds the request around
 * it (model, output cap, tools), reads the response's id, finish reason and usage (DeepSeek's cache figure
 * too), and turns whatever the SDK throws into ctxkit's errors (model-error-from-sdk.ts).
 *
 * Auth: the SDK insists on a key. Without one, a placeholder satisfies it and the `Authorization` header is
 * removed, so a local server sees no credentials at all; the SDK never reads `OPENAI_API_KEY`,
 * `OPENAI_ORG_ID` or `OPENAI_PROJECT_ID` from the environment either, because a key meant for OpenAI must
 * not reach whatever server `baseUrl` names.
 */
import type OpenAI from 'openai';
import { fromOpenAIChatCompletion, type ToOpenAIChatOptions, toOpenAIChat } from '../adapters/openai-chat.ts';
import { InvalidInputError, ModelCallError } from '../core/errors/index.ts';
import { isRecord } from '../core/is-record.ts';
import { isAgentVisible, type Message, type Usage } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { captureErrorBodies } from './capture-error-bodies.ts';
import { detectServedContextWindow } from './detect-served-window.ts';
import { importOptionalDependency, type OptionalDependency } from './load-optional-dependency.ts';
import { DEFAULT_MODEL_TIMEOUT_MS, guardModelCall, type ModelCallGuard } from './model-call-guard.ts';
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamEvent } from './model-client.ts';
import {
  modelErrorFromSdk,
  parseJson,
  type SdkErrorClasses,
  type SdkErrorContext,
  sdkErrorClassesOf,
} from './model-error-from-sdk.ts';
import { onceAsync } from './once-async.ts';
import {
  completionOfStream,
  createOpenAIStreamState,
  openAIStreamFinished,
  readOpenAIChunk,
} from './openai-stream.ts';
import { hostOf, type MaxTokensField, maxTokensFieldFor } from './openai-token-field.ts';
import { modelCallErrorFrom } from './read-provider-error.ts';
import { streamEventsOfResponse } from './stream-events-of-response.ts';

export const OPENAI_COMPATIBLE_PROVIDER = 'openai-compatible';

/** What the SDK is given as its key when there is none: it never leaves this process (the header is removed). */
const NO_API_KEY_PLACEHOLDER = 'ctxkit-no-api-key';

export type OpenAIReasoningField = NonNullable<ToOpenAIChatOptions['reasoningField']>;

export interface OpenAICompatibleClientOptions {
  /** The API root, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; local servers usually need none, and then none is sent. */
  apiKey?: string;
  fetch?: typeof fetch;
  /** Extra headers (OpenRouter's `HTTP-Referer`, an org header…); they win over the defaults. */
  headers?: Record<string, string>;
  /** Used when a request names no model. */
  defaultModel?: string;
  /**
   * Default DEFAULT_MODEL_TIMEOUT_MS; `0` disables. Bounds the whole of `complete` (retries included), and
   * for `stream` the wait for the answer to begin and then for each next chunk.
   */
  timeoutMs?: number;
  /** Retries of a failed attempt (connection error, 408, 409, 429, 5xx), done by the SDK. Default the SDK's own (2). */
  maxRetries?: number;
  /** Default: chosen per model and host (see openai-token-field.ts). */
  maxTokensField?: MaxTokensField | 'auto';
  /**
   * Where assistant reasoning is echoed. Default `auto`: DeepSeek's `reasoning_content` on DeepSeek
   * hosts (its thinking mode rejects tool-call turns that lose it), nowhere elsewhere, because strict
   * servers reject unknown message fields ("Additional properties are not allowed").
   */
  reasoningField?: OpenAIReasoningField | 'auto';
  /** Role for the system prompt; `developer` for servers that want it. Default `system`. */
  systemRole?: 'system' | 'developer';
  /** Fields merged into every request body (`reasoning_effort`, `thinking`, `seed`…). */
  extraBody?: Record<string, unknown>;
  /**
   * Ask streams for usage (`stream_options: {include_usage: true}`), so a streamed answer reports its
   * tokens like a whole one. Default true; turn off for a server that rejects the field.
   */
  streamUsage?: boolean;
}

interface OpenAIToolWire {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** `openai` is an optional package: only those who call a model through this client install it. */
const OPENAI_SDK: Readonly<OptionalDependency> = {
  packageName: 'openai',
  feature: 'the OpenAI-compatible model client',
};

/**
 * Loaded on the first call rather than with ctxkit, so that a user who never calls a model needs no SDK.
 * Not exported: its type is the SDK's, which ctxkit's declarations must not name.
 */
const loadOpenAISdk = () => importOptionalDependency<typeof import('openai')>(OPENAI_SDK);

/** Loads the SDK now, so a program (the chat) can say at start that it is missing, not at the first call. */
export async function loadOpenAISdkNow(): Promise<void> {
  await loadOpenAISdk();
}

export function createOpenAICompatibleClient(options: OpenAICompatibleClientOptions): ModelClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const url = `${baseUrl}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const reasoningField = resolveReasoningField(options.reasoningField ?? 'auto', options.baseUrl);
  const capture = captureErrorBodies(options.fetch ?? globalThis.fetch);
  const sdkOf = onceAsync(async () => {
    const sdk = await loadOpenAISdk();
    const client = new sdk.default({
      baseURL: baseUrl,
      apiKey: options.apiKey || NO_API_KEY_PLACEHOLDER,
      // Explicit nulls: the SDK would otherwise read these from the environment and send them to any server.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      fetch: capture.fetch,
      ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
      defaultHeaders: { ...(options.apiKey ? {} : { authorization: null }), ...options.headers },
    });
    return { client, errors: sdkErrorClassesOf(sdk) };
  });

  const errorContext = (
    guard: ModelCallGuard,
    request: ModelRequest,
    classes: SdkErrorClasses,
  ): SdkErrorContext => ({
    provider: OPENAI_COMPATIBLE_PROVIDER,
    url,
    timeoutMs,
    guard,
    signal: request.signal,
    capture,
    classes,
    // openai-node keeps `body.error` of an HTTP error, and `data.error` of an error inside a stream.
    bodyOf: (error) => (error.error === undefined ? undefined : { error: error.error }),
    inStreamStatus: (body) =>
      statusOfCode(isRecord(body) && isRecord(body.error) ? body.error.code : undefined),
  });

  function requestBody(
    request: ModelRequest,
    streaming: boolean,
  ): { model: string; body: Record<string, unknown> } {
    const model = request.model || options.defaultModel;
    if (!model)
      throw new InvalidInputError('no model: set request.model or defaultModel', { field: 'model' });
    const maxTokensField =
      !options.maxTokensField || options.maxTokensField === 'auto'
        ? maxTokensFieldFor(model, options.baseUrl)
        : options.maxTokensField;
    const body = {
      model,
      messages: toOpenAIChat(
        // Hidden messages never reach the model, even if a caller hands in a raw log instead of a view.
        { system: request.system ? [request.system] : [], messages: request.messages.filter(isAgentVisible) },
        { systemRole: options.systemRole ?? 'system', reasoningField },
      ),
      ...(request.tools && request.tools.length > 0 && { tools: request.tools.map(toOpenAITool) }),
      ...(request.maxOutputTokens !== undefined && { [maxTokensField]: request.maxOutputTokens }),
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(streaming && { stream: true }),
      ...(streaming && options.streamUsage !== false && { stream_options: { include_usage: true } }),
      ...options.extraBody,
    };
    return { model, body };
  }

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    const { model, body } = requestBody(request, false);
    // Before the guard: a missing SDK is not a failed model call, and its error must reach the caller as is.
    const sdk = await sdkOf();
    const guard = guardModelCall({
      provider: OPENAI_COMPATIBLE_PROVIDER,
      url,
      signal: request.signal,
      timeoutMs,
    });
    try {
      const { data, response } = await guard.run(
        sdk.client.chat.completions
          .create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, {
            signal: guard.signal,
            timeout: guard.sdkTimeoutMs,
          })
          .withResponse(),
      );
      const { json, text } = jsonAndText(data);
      return readCompletion(json, text, response.status, response.headers, model);
    } catch (error) {
      throw modelErrorFromSdk(error, errorContext(guard, request, sdk.errors));
    } finally {
      guard.dispose();
    }
  }

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const { model, body } = requestBody(request, true);
    const sdk = await sdkOf();
    const guard = guardModelCall({
      provider: OPENAI_COMPATIBLE_PROVIDER,
      url,
      signal: request.signal,
      timeoutMs,
    });
    try {
      const { data: chunks, response } = await guard.run(
        sdk.client.chat.completions
          .create(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming, {
            signal: guard.signal,
            timeout: guard.sdkTimeoutMs,
          })
          .withResponse(),
      );
      if (!isEventStream(response)) {
        // A server that ignored `stream: true` (or a 200 carrying an error body): one JSON answer.
        const text = await guard.run(response.text());
        yield* streamEventsOfResponse(
          readCompletion(parseJson(text), text, response.status, response.headers, model),
        );
        return;
      }
      const state = createOpenAIStreamState();
      for await (const item of guard.each(chunks)) yield* readOpenAIChunk(state, item);
      if (!openAIStreamFinished(state)) {
        throw new ModelCallError(
          `${OPENAI_COMPATIBLE_PROVIDER}: the stream ended before the model finished`,
          {
            status: response.status,
            body: completionOfStream(state),
          },
        );
      }
      const completion = completionOfStream(state);
      yield {
        type: 'response',
        response: readCompletion(
          completion,
          JSON.stringify(completion),
          response.status,
          response.headers,
          model,
        ),
      };
    } catch (error) {
      throw modelErrorFromSdk(error, errorContext(guard, request, sdk.errors));
    } finally {
      guard.dispose();
    }
  }

  return {
    provider: OPENAI_COMPATIBLE_PROVIDER,
    complete,
    stream,
    servedContextWindow(model, call) {
      return detectServedContextWindow({
        baseUrl,
        model,
        ...(options.fetch && { fetch: options.fetch }),
        ...(call?.signal && { signal: call.signal }),
        headers: { ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }), ...options.headers },
      });
    },
  };
}

function toOpenAITool(tool: ToolDefinition): OpenAIToolWire {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      ...(tool.parameters !== undefined && { parameters: tool.parameters }),
    },
  };
}

function resolveReasoningField(field: OpenAIReasoningField | 'auto', baseUrl: string): OpenAIReasoningField {
  if (field !== 'auto') return field;
  return hostOf(baseUrl).endsWith('deepseek.com') ? 'reasoning_content' : 'none';
}

/** The SDK hands back parsed JSON, or the text of a body that was not labelled JSON. */
function jsonAndText(data: unknown): { json: unknown; text: string } {
  return typeof data === 'string'
    ? { json: parseJson(data), text: data }
    : { json: data, text: JSON.stringify(data) };
}

function isEventStream(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return !/json/i.test(type);
}

/** A numeric `code` in the HTTP range is the status the error stands for (OpenRouter, vLLM, llama.cpp). */
function statusOfCode(code: unknown): number | undefined {
  return typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 600 ? code : undefined;
}

function readCompletion(
  json: unknown,
  text: string,
  status: number,
  headers: Headers,
  model: string,
): ModelResponse {
  const body = isRecord(json) ? json : undefined;
  // Some servers (OpenRouter, llama.cpp behind proxies) answer 200 with an error body instead of choices.
  if (!body || !Array.isArray(body.choices)) {
    if (body && body.error !== undefined) {
      const code = isRecord(body.error) ? body.error.code : undefined;
      throw modelCallErrorFrom(OPENAI_COMPATIBLE_PROVIDER, statusOfCode(code) ?? status, text, json, headers);
    }
    throw new ModelCallError(`${OPENAI_COMPATIBLE_PROVIDER}: response has no choices`, {
      status,
      body: json ?? text,
    });
  }
  let input: ReturnType<typeof fromOpenAIChatCompletion>;
  try {
    input = fromOpenAIChatCompletion(json);
  } catch (error) {
    throw new ModelCallError(
      `${OPENAI_COMPATIBLE_PROVIDER}: unexpected response shape: ${error instanceof Error ? error.message : String(error)}`,
      { status, body: json },
      { cause: error },
    );
  }
  const choice = body.choices[0];
  const finishReason =
    isRecord(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : 'unknown';
  const usage = input.usage ? withDeepSeekCache(input.usage, body.usage) : undefined;
  const created = typeof body.created === 'number' ? body.created * 1000 : undefined;
  const answeredBy = typeof body.model === 'string' && body.model !== '' ? body.model : model;
  const message: Message = {
    id: typeof body.id === 'string' && body.id !== '' ? body.id : `chatcmpl-${crypto.randomUUID()}`,
    seq: 0,
    role: 'assistant',
    parts: input.parts,
    meta: { ...input.meta, model: answeredBy, ...(created !== undefined && { createdAt: created }) },
    ...(usage && { usage }),
  };
  // Usage is required by ModelResponse; zeros when the server sent none (the message then carries none,
  // so the token estimate is not anchored on figures nobody reported).
  return {
    message,
    usage: usage ?? { inputTokens: 0, outputTokens: 0 },
    stopReason: finishReason,
    model: answeredBy,
  };
}

/** DeepSeek reports its cache hits as `prompt_cache_hit_tokens` rather than `prompt_tokens_details.cached_tokens`. */
function withDeepSeekCache(usage: Usage, raw: unknown): Usage {
  if (usage.cacheReadTokens !== undefined || !isRecord(raw)) return usage;
  const hit = raw.prompt_cache_hit_tokens;
  return typeof hit === 'number' ? { ...usage, cacheReadTokens: hit } : usage;
}
