/**
 * A ModelClient for the Anthropic Messages API: `POST {baseUrl}/v1/messages`, non-streaming, with
 * `x-api-key` and `anthropic-version`.
 *
 * Message translation is the adapter's (`src/adapters/anthropic-messages.ts`: system as a top-level field,
 * consecutive tool results merged into one user turn, thinking echoed with its signature, usage with cache
 * figures). This file adds what the live API needs beyond a faithful conversion (see sendableMessages),
 * the request fields around the messages, and the response's id and stop reason.
 */

import { fromAnthropicResponse, toAnthropicMessages } from '../adapters/anthropic-messages.ts';
import { InvalidInputError, ModelCallError } from '../core/errors/index.ts';
import { isAgentVisible, type Message, type Part } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { ModelClient, ModelRequest, ModelResponse } from './model-client.ts';
import { DEFAULT_MODEL_TIMEOUT_MS, postModelRequest } from './post-json.ts';
import { modelCallErrorFrom } from './read-provider-error.ts';

export const ANTHROPIC_PROVIDER = 'anthropic';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** The only version the Messages API has had; sent on every request, as the API requires. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
/** `max_tokens` is required by the API; this stands in when a request does not say. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;
/** Tools need an `input_schema`; a tool defined without parameters takes an empty object. */
export const EMPTY_INPUT_SCHEMA: Readonly<Record<string, unknown>> = { type: 'object', properties: {} };

/** Response block types the adapter reads; others (server tool use, web search results…) are skipped. */
const KNOWN_RESPONSE_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);

export interface AnthropicClientOptions {
  /** Default DEFAULT_ANTHROPIC_BASE_URL; `/v1/messages` is appended (a trailing `/v1` is tolerated). */
  baseUrl?: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** The `anthropic-version` header. Default DEFAULT_ANTHROPIC_VERSION. */
  version?: string;
  /** Extra headers (`anthropic-beta`…); they win over the defaults. */
  headers?: Record<string, string>;
  defaultModel?: string;
  /** Used when a request sets no maxOutputTokens. Default DEFAULT_ANTHROPIC_MAX_TOKENS. */
  defaultMaxTokens?: number;
  /** Default DEFAULT_MODEL_TIMEOUT_MS; `0` disables. */
  timeoutMs?: number;
  /** Fields merged into every request body (`thinking`, `metadata`, `tool_choice`…). */
  extraBody?: Record<string, unknown>;
}

interface AnthropicToolWire {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const root = (options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  const url = `${root}/v1/messages`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const headers: Record<string, string> = {
    'x-api-key': options.apiKey,
    'anthropic-version': options.version ?? DEFAULT_ANTHROPIC_VERSION,
    ...options.headers,
  };

  return {
    provider: ANTHROPIC_PROVIDER,
    async complete(request: ModelRequest): Promise<ModelResponse> {
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
        ...options.extraBody,
      };
      const response = await postModelRequest({
        fetch: doFetch,
        provider: ANTHROPIC_PROVIDER,
        url,
        headers,
        body,
        signal: request.signal,
        timeoutMs,
      });
      return readMessage(response.json, response.text, response.status, response.headers, model);
    },
  };
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
