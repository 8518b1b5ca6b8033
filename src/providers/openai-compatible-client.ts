/**
 * A ModelClient for OpenAI Chat Completions and the servers that copy it (DeepSeek, OpenRouter, Groq,
 * vLLM, Ollama, llama.cpp, LM Studio…): `POST {baseUrl}/chat/completions`, non-streaming.
 *
 * Message translation is the adapter's (`src/adapters/openai-chat.ts`); this file adds the request around
 * it (model, output cap, tools) and reads the response's id, finish reason and usage.
 */

import { fromOpenAIChatCompletion, type ToOpenAIChatOptions, toOpenAIChat } from '../adapters/openai-chat.ts';
import { InvalidInputError, ModelCallError } from '../core/errors/index.ts';
import { isAgentVisible, type Message, type Usage } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { ModelClient, ModelRequest, ModelResponse } from './model-client.ts';
import { hostOf, type MaxTokensField, maxTokensFieldFor } from './openai-token-field.ts';
import { DEFAULT_MODEL_TIMEOUT_MS, postModelRequest } from './post-json.ts';
import { modelCallErrorFrom } from './read-provider-error.ts';

export const OPENAI_COMPATIBLE_PROVIDER = 'openai-compatible';

export type OpenAIReasoningField = NonNullable<ToOpenAIChatOptions['reasoningField']>;

export interface OpenAICompatibleClientOptions {
  /** The API root, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; local servers usually need none. */
  apiKey?: string;
  fetch?: typeof fetch;
  /** Extra headers (OpenRouter's `HTTP-Referer`, an org header…); they win over the defaults. */
  headers?: Record<string, string>;
  /** Used when a request names no model. */
  defaultModel?: string;
  /** Default DEFAULT_MODEL_TIMEOUT_MS; `0` disables. */
  timeoutMs?: number;
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
}

interface OpenAIToolWire {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export function createOpenAICompatibleClient(options: OpenAICompatibleClientOptions): ModelClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const reasoningField = resolveReasoningField(options.reasoningField ?? 'auto', options.baseUrl);
  const headers: Record<string, string> = {
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...options.headers,
  };

  return {
    provider: OPENAI_COMPATIBLE_PROVIDER,
    async complete(request: ModelRequest): Promise<ModelResponse> {
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
          {
            system: request.system ? [request.system] : [],
            messages: request.messages.filter(isAgentVisible),
          },
          { systemRole: options.systemRole ?? 'system', reasoningField },
        ),
        ...(request.tools && request.tools.length > 0 && { tools: request.tools.map(toOpenAITool) }),
        ...(request.maxOutputTokens !== undefined && { [maxTokensField]: request.maxOutputTokens }),
        ...(request.temperature !== undefined && { temperature: request.temperature }),
        ...options.extraBody,
      };
      const response = await postModelRequest({
        fetch: doFetch,
        provider: OPENAI_COMPATIBLE_PROVIDER,
        url,
        headers,
        body,
        signal: request.signal,
        timeoutMs,
      });
      return readCompletion(response.json, response.text, response.status, response.headers, model);
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
      const errorStatus = typeof code === 'number' && code >= 400 && code < 600 ? code : status;
      throw modelCallErrorFrom(OPENAI_COMPATIBLE_PROVIDER, errorStatus, text, json, headers);
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
