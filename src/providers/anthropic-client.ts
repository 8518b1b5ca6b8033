/**
 * A ModelClient for the Anthropic Messages API over the official `@anthropic-ai/sdk`: `POST
 * {baseUrl}/v1/messages`, whole (`complete`) or streamed (`stream`), with `x-api-key` and
 * `anthropic-version`.
 *
 * Message translation is the adapter's (`src/adapters/anthropic-messages.ts`: system as a top-level field,
 * consecutive tool results merged into one user turn, thinking echoed with its signature, usage with cache
 * figures). This file adds what the live API needs beyond a faithful conversion (see sendableMessages),
 * the request fields around the messages, the response's id and stop reason, and turns whatever the SDK
 * throws into ctxkit's errors (model-error-from-sdk.ts).
 *
 * Prompt cache: a request that carries no `cache_control` (none can come from ctxkit's messages; one may
 * come through `extraBody`) gets ctxkit's breakpoints (place-anthropic-cache-marks.ts): its end, the
 * last entry the conversation's earlier requests wrote inside the prefix shared with the previous one,
 * the end of the tools and system, the block before the largest one added since. The client remembers
 * the requests it sent (a few conversations, matched by shared prefix) once their answer began.
 * `promptCache: false` sends every request unmarked.
 *
 * Headers: the key goes as `x-api-key` (what the Messages API documents and every Anthropic-compatible
 * server reads); the `Authorization: Bearer` the SDK 1.x derives from it is removed, and so is any
 * credential the SDK would otherwise find in the environment. `anthropic-version` is this client's
 * (DEFAULT_ANTHROPIC_VERSION unless set), not the SDK's newer default: the request body ctxkit writes
 * (`temperature` included) is the 2023-06-01 Messages API.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { fromAnthropicResponse, toAnthropicMessages } from '../adapters/anthropic-messages.ts';
import { placeAnthropicCacheMarks } from '../adapters/place-anthropic-cache-marks.ts';
import { createCachePrefixMemory } from '../core/cache/cache-prefix-memory.ts';
import { InvalidInputError, ModelCallError } from '../core/errors/index.ts';
import { isRecord } from '../core/is-record.ts';
import { isAgentVisible, type Message, type Part } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import {
  ANTHROPIC_ERROR_STATUSES,
  createAnthropicStreamState,
  messageOfStream,
  readAnthropicEvent,
} from './anthropic-stream.ts';
import { captureErrorBodies } from './capture-error-bodies.ts';
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
import { modelCallErrorFrom } from './read-provider-error.ts';
import { streamEventsOfResponse } from './stream-events-of-response.ts';

export const ANTHROPIC_PROVIDER = 'anthropic';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** The Messages API version ctxkit's request bodies are written for; sent on every request, as the API requires. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
/** `max_tokens` is required by the API; this stands in when a request does not say. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;
/** Tools need an `input_schema`; a tool defined without parameters takes an empty object. */
export const EMPTY_INPUT_SCHEMA: Readonly<Record<string, unknown>> = { type: 'object', properties: {} };

/** What the SDK is given as its key when there is none: it never leaves this process (no header carries it). */
const NO_API_KEY_PLACEHOLDER = 'ctxkit-no-api-key';

/** Response block types the adapter reads; others (server tool use, web search results…) are skipped. */
const KNOWN_RESPONSE_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);

export interface AnthropicClientOptions {
  /** Default DEFAULT_ANTHROPIC_BASE_URL; `/v1/messages` is appended (a trailing `/v1` is tolerated). */
  baseUrl?: string;
  /** Sent as `x-api-key`. Empty: no key is sent (an Anthropic-compatible local server). */
  apiKey: string;
  fetch?: typeof fetch;
  /** The `anthropic-version` header. Default DEFAULT_ANTHROPIC_VERSION. */
  version?: string;
  /** Extra headers (`anthropic-beta`…); they win over the defaults. */
  headers?: Record<string, string>;
  defaultModel?: string;
  /** Used when a request sets no maxOutputTokens. Default DEFAULT_ANTHROPIC_MAX_TOKENS. */
  defaultMaxTokens?: number;
  /**
   * Default DEFAULT_MODEL_TIMEOUT_MS; `0` disables. Bounds the whole of `complete` (retries included), and
   * for `stream` the wait for the answer to begin and then for each next event.
   */
  timeoutMs?: number;
  /** Retries of a failed attempt (connection error, 408, 409, 429, 5xx, 529), done by the SDK. Default the SDK's own (2). */
  maxRetries?: number;
  /** Fields merged into every request body (`thinking`, `metadata`, `tool_choice`…). */
  extraBody?: Record<string, unknown>;
  /**
   * Prompt-cache breakpoints placed by ctxkit on requests that carry no `cache_control` (at most four:
   * the request's end, what the previous requests wrote inside the prefix shared with them, the tools
   * and system, before the largest block added since). Default true; `false` sends requests without any.
   */
  promptCache?: boolean;
}

interface AnthropicToolWire {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** `@anthropic-ai/sdk` is an optional package: only those who call a model through this client install it. */
const ANTHROPIC_SDK: Readonly<OptionalDependency> = {
  packageName: '@anthropic-ai/sdk',
  feature: 'the Anthropic model client',
};

/**
 * Loaded on the first call rather than with ctxkit, so that a user who never calls a model needs no SDK.
 * Not exported: its type is the SDK's, which ctxkit's declarations must not name.
 */
const loadAnthropicSdk = () => importOptionalDependency<typeof import('@anthropic-ai/sdk')>(ANTHROPIC_SDK);

/** Loads the SDK now, so a program (the chat) can say at start that it is missing, not at the first call. */
export async function loadAnthropicSdkNow(): Promise<void> {
  await loadAnthropicSdk();
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const root = (options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  const url = `${root}/v1/messages`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const capture = captureErrorBodies(options.fetch ?? globalThis.fetch);
  const cacheMemory = options.promptCache === false ? undefined : createCachePrefixMemory();
  const sdkOf = onceAsync(async () => {
    const sdk = await loadAnthropicSdk();
    const client = new sdk.default({
      baseURL: root,
      // Passing a key makes it the SDK's only credential: it reads none from the environment.
      apiKey: options.apiKey || NO_API_KEY_PLACEHOLDER,
      fetch: capture.fetch,
      ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
      defaultHeaders: {
        authorization: null,
        ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
        'anthropic-version': options.version ?? DEFAULT_ANTHROPIC_VERSION,
        ...options.headers,
      },
    });
    return { client, errors: sdkErrorClassesOf(sdk) };
  });

  const errorContext = (
    guard: ModelCallGuard,
    request: ModelRequest,
    classes: SdkErrorClasses,
  ): SdkErrorContext => ({
    provider: ANTHROPIC_PROVIDER,
    url,
    timeoutMs,
    guard,
    signal: request.signal,
    capture,
    classes,
    // The Anthropic SDK keeps the whole error body (`{type: 'error', error: {type, message}}`).
    bodyOf: (error) => error.error,
    inStreamStatus: (body) => {
      const type = isRecord(body) && isRecord(body.error) ? body.error.type : undefined;
      return typeof type === 'string' ? ANTHROPIC_ERROR_STATUSES[type] : undefined;
    },
  });

  /** The request's body, and what to call once its answer has begun (the cache memory's record of it). */
  function requestBody(
    request: ModelRequest,
    streaming: boolean,
  ): { model: string; body: Record<string, unknown>; sent: () => void } {
    const model = request.model || options.defaultModel;
    if (!model)
      throw new InvalidInputError('no model: set request.model or defaultModel', { field: 'model' });
    const { system, messages } = toAnthropicMessages({
      system: request.system ? [request.system] : [],
      messages: sendableMessages(request.messages),
    });
    const body = {
      model,
      max_tokens: request.maxOutputTokens ?? options.defaultMaxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      ...(system !== undefined && { system }),
      messages,
      ...(request.tools && request.tools.length > 0 && { tools: request.tools.map(toAnthropicTool) }),
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(streaming && { stream: true }),
      ...options.extraBody,
    };
    if (cacheMemory === undefined) return { model, body, sent: () => undefined };
    const placed = placeAnthropicCacheMarks(body, { model, memory: cacheMemory });
    return { model, body: placed.body, sent: placed.remember };
  }

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    const { model, body, sent } = requestBody(request, false);
    // Before the guard: a missing SDK is not a failed model call, and its error must reach the caller as is.
    const sdk = await sdkOf();
    const guard = guardModelCall({ provider: ANTHROPIC_PROVIDER, url, signal: request.signal, timeoutMs });
    try {
      const { data, response } = await guard.run(
        sdk.client.messages
          .create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, {
            signal: guard.signal,
            timeout: guard.sdkTimeoutMs,
          })
          .withResponse(),
      );
      sent();
      const json: unknown = typeof data === 'string' ? parseJson(data) : data;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      return readMessage(json, text, response.status, response.headers, model);
    } catch (error) {
      throw modelErrorFromSdk(error, errorContext(guard, request, sdk.errors));
    } finally {
      guard.dispose();
    }
  }

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
    const { model, body, sent } = requestBody(request, true);
    const sdk = await sdkOf();
    const guard = guardModelCall({ provider: ANTHROPIC_PROVIDER, url, signal: request.signal, timeoutMs });
    try {
      const { data: events, response } = await guard.run(
        sdk.client.messages
          .create(body as unknown as Anthropic.MessageCreateParamsStreaming, {
            signal: guard.signal,
            timeout: guard.sdkTimeoutMs,
          })
          .withResponse(),
      );
      sent();
      if (/json/i.test(response.headers.get('content-type') ?? '')) {
        // A server that ignored `stream: true` (or a 200 carrying an error body): one JSON answer.
        const text = await guard.run(response.text());
        yield* streamEventsOfResponse(
          readMessage(parseJson(text), text, response.status, response.headers, model),
        );
        return;
      }
      const state = createAnthropicStreamState();
      for await (const item of guard.each(events)) yield* readAnthropicEvent(state, item);
      if (!state.stopped) {
        throw new ModelCallError(`${ANTHROPIC_PROVIDER}: the stream ended before the message did`, {
          status: response.status,
          body: messageOfStream(state),
        });
      }
      const message = messageOfStream(state);
      yield {
        type: 'response',
        response: readMessage(message, JSON.stringify(message), response.status, response.headers, model),
      };
    } catch (error) {
      throw modelErrorFromSdk(error, errorContext(guard, request, sdk.errors));
    } finally {
      guard.dispose();
    }
  }

  return { provider: ANTHROPIC_PROVIDER, complete, stream };
}

/**
 * The history as the live API accepts it, which is stricter than the format:
 * - hidden messages are never sent;
 * - reasoning without a signature (from another provider, or a replay) cannot be echoed: the API
 *   requires the signature of every thinking block it is sent, so such parts are dropped;
 * - empty or whitespace-only text blocks are rejected ("text content blocks must contain non-whitespace
 *   text"), so they are dropped;
 * - a message left with no parts is dropped ("all messages must have non-empty content"); the API joins
 *   the consecutive same-role turns this may leave.
 */
export function sendableMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (!isAgentVisible(message)) continue;
    const parts = message.parts.filter(isSendablePart);
    if (parts.length === 0) continue;
    out.push(parts.length === message.parts.length ? message : { ...message, parts });
  }
  return out;
}

function isSendablePart(part: Part): boolean {
  if (part.type === 'text') return part.text.trim() !== '';
  if (part.type === 'reasoning') return part.redactedData !== undefined || part.signature !== undefined;
  return true;
}

function toAnthropicTool(tool: ToolDefinition): AnthropicToolWire {
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    input_schema: tool.parameters ?? { ...EMPTY_INPUT_SCHEMA },
  };
}

function readMessage(
  json: unknown,
  text: string,
  status: number,
  headers: Headers,
  model: string,
): ModelResponse {
  const body = isRecord(json) ? json : undefined;
  if (!body || !Array.isArray(body.content)) {
    if (body && body.type === 'error')
      throw modelCallErrorFrom(ANTHROPIC_PROVIDER, status, text, json, headers);
    throw new ModelCallError(`${ANTHROPIC_PROVIDER}: response has no content`, {
      status,
      body: json ?? text,
    });
  }
  const content = body.content.filter(
    (block) => isRecord(block) && KNOWN_RESPONSE_BLOCKS.has(String(block.type)),
  );
  let input: ReturnType<typeof fromAnthropicResponse>;
  try {
    input = fromAnthropicResponse({ ...body, content });
  } catch (error) {
    throw new ModelCallError(
      `${ANTHROPIC_PROVIDER}: unexpected response shape: ${error instanceof Error ? error.message : String(error)}`,
      { status, body: json },
      { cause: error },
    );
  }
  const answeredBy = typeof body.model === 'string' && body.model !== '' ? body.model : model;
  const message: Message = {
    id: typeof body.id === 'string' && body.id !== '' ? body.id : `msg_${crypto.randomUUID()}`,
    seq: 0,
    role: 'assistant',
    parts: input.parts,
    meta: { ...input.meta, model: answeredBy },
    ...(input.usage && { usage: input.usage }),
  };
  return {
    message,
    usage: input.usage ?? { inputTokens: 0, outputTokens: 0 },
    stopReason: typeof body.stop_reason === 'string' ? body.stop_reason : 'unknown',
    model: answeredBy,
  };
}
