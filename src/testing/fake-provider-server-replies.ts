/**
 * Successful replies for the fake provider server, shaped like the providers' real non-streaming bodies:
 * - OpenAI Chat Completions: `{id: 'chatcmpl-…', object: 'chat.completion', created, model, choices:
 *   [{index, message: {role, content, refusal, annotations, tool_calls?}, logprobs, finish_reason}],
 *   usage: {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details, completion_tokens_details},
 *   service_tier, system_fingerprint}`; `reasoning_content` only when asked for (DeepSeek's field);
 * - Anthropic Messages: `{id: 'msg_…', type: 'message', role: 'assistant', model, content: [blocks],
 *   stop_reason, stop_sequence, usage: {input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
 *   cache_creation: {ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}, output_tokens, service_tier}}`.
 */
import { randomBytes } from 'node:crypto';
import type { Message, Usage } from '../core/message.ts';
import type { HttpReply } from './fake-provider-server-types.ts';

export const FAKE_OPENAI_MODEL = 'gpt-4o-2024-08-06';
export const FAKE_ANTHROPIC_MODEL = 'claude-sonnet-4-6';
/** Figures used when a reply does not give its own usage. */
export const FAKE_DEFAULT_USAGE: Readonly<Usage> = { inputTokens: 100, outputTokens: 20 };

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random id in the providers' style: `chatcmpl-…`, `call_…`, `msg_01…`, `toolu_01…`, `req_…`. */
export function fakeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const byte of bytes) out += BASE62[byte % BASE62.length];
  return out;
}

// ---------------------------------------------------------------- OpenAI

export interface FakeOpenAIToolCall {
  /** Default a fresh `call_…` id. */
  id?: string;
  name: string;
  /** The arguments as JSON text, as OpenAI sends them. */
  arguments: string;
}

export interface FakeOpenAIUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

export interface OpenAIReplyOptions {
  content?: string | null;
  toolCalls?: FakeOpenAIToolCall[];
  /** DeepSeek-style reasoning; omitted from the message when unset, as OpenAI itself does. */
  reasoningContent?: string;
  refusal?: string;
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  model?: string;
  id?: string;
  /** Unix seconds. */
  created?: number;
  /** `null` leaves usage out (some compatible servers do). */
  usage?: FakeOpenAIUsage | null;
}

export function openAIChatCompletionBody(options: OpenAIReplyOptions = {}): Record<string, unknown> {
  const toolCalls = options.toolCalls ?? [];
  const usage =
    options.usage === null
      ? undefined
      : (options.usage ?? {
          promptTokens: FAKE_DEFAULT_USAGE.inputTokens,
          completionTokens: FAKE_DEFAULT_USAGE.outputTokens,
        });
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: options.content === undefined ? (toolCalls.length > 0 ? null : '') : options.content,
    ...(options.reasoningContent !== undefined && { reasoning_content: options.reasoningContent }),
    ...(toolCalls.length > 0 && {
      tool_calls: toolCalls.map((call) => ({
        id: call.id ?? fakeId('call_'),
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    }),
    refusal: options.refusal ?? null,
    annotations: [],
  };
  return {
    id: options.id ?? fakeId('chatcmpl-', 29),
    object: 'chat.completion',
    created: options.created ?? Math.floor(Date.now() / 1000),
    model: options.model ?? FAKE_OPENAI_MODEL,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: options.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(usage && {
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
        prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: usage.reasoningTokens ?? 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    }),
    service_tier: 'default',
    system_fingerprint: 'fp_fake000000',
  };
}

export function openAIReply(options: OpenAIReplyOptions = {}, http: Omit<HttpReply, 'body'> = {}): HttpReply {
  return {
    ...http,
    headers: { 'x-request-id': fakeId('req_', 32), ...http.headers },
    body: openAIChatCompletionBody(options),
  };
}

// ---------------------------------------------------------------- Anthropic

export type FakeAnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  /** `id` defaults to a fresh `toolu_01…`. */
  | { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> };

export interface FakeAnthropicUsage {
  /** Uncached input only, as Anthropic reports it. */
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
}

export interface AnthropicReplyOptions {
  /** Shortcut for a single text block. */
  text?: string;
  content?: FakeAnthropicBlock[];
  /** Default `tool_use` when there is a tool_use block, else `end_turn`. */
  stopReason?: string;
  stopSequence?: string | null;
  model?: string;
  id?: string;
  usage?: FakeAnthropicUsage;
}

export function anthropicMessageBody(options: AnthropicReplyOptions = {}): Record<string, unknown> {
  const blocks: FakeAnthropicBlock[] = [
    ...(options.text !== undefined ? [{ type: 'text' as const, text: options.text }] : []),
    ...(options.content ?? []),
  ];
  const usage = options.usage ?? {
    inputTokens: FAKE_DEFAULT_USAGE.inputTokens,
    outputTokens: FAKE_DEFAULT_USAGE.outputTokens,
  };
  const cacheCreation = usage.cacheCreationInputTokens ?? 0;
  return {
    id: options.id ?? fakeId('msg_01'),
    type: 'message',
    role: 'assistant',
    model: options.model ?? FAKE_ANTHROPIC_MODEL,
    content: blocks.map((block) => {
      switch (block.type) {
        case 'tool_use':
          return {
            type: 'tool_use',
            id: block.id ?? fakeId('toolu_01'),
            name: block.name,
            input: block.input,
          };
        case 'thinking':
          return {
            type: 'thinking',
            thinking: block.thinking,
            signature: block.signature ?? fakeSignature(),
          };
        default:
          return block;
      }
    }),
    stop_reason:
      options.stopReason ?? (blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: options.stopSequence ?? null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: usage.cacheReadInputTokens ?? 0,
      cache_creation: { ephemeral_5m_input_tokens: cacheCreation, ephemeral_1h_input_tokens: 0 },
      output_tokens: usage.outputTokens,
      service_tier: 'standard',
    },
  };
}

export function anthropicReply(
  options: AnthropicReplyOptions = {},
  http: Omit<HttpReply, 'body'> = {},
): HttpReply {
  return {
    ...http,
    headers: { 'request-id': fakeId('req_011C'), ...http.headers },
    body: anthropicMessageBody(options),
  };
}

/** Thinking signatures are opaque base64; this one only has the look. */
export function fakeSignature(): string {
  return randomBytes(96).toString('base64');
}

// ---------------------------------------------------------------- from a ctxkit message

export interface ReplyFromMessageOptions {
  model?: string;
  /** The provider's stop reason; default chosen from the message (tool calls or not). */
  stopReason?: string;
  /** Default `message.usage`, else FAKE_DEFAULT_USAGE. `inputTokens` is the whole prompt, cache included. */
  usage?: Usage;
  /** OpenAI format: echo reasoning parts as DeepSeek's `reasoning_content`. Default true. */
  reasoningContent?: boolean;
}

export function openAIReplyFromMessage(
  message: Pick<Message, 'parts'> & { usage?: Usage | undefined },
  options: ReplyFromMessageOptions = {},
): HttpReply {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: FakeOpenAIToolCall[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'reasoning' && part.redactedData === undefined) reasoning.push(part.text);
    else if (part.type === 'tool-call')
      toolCalls.push({ id: part.callId, name: part.name, arguments: part.args });
  }
  const usage = options.usage ?? message.usage ?? FAKE_DEFAULT_USAGE;
  return openAIReply({
    content: texts.length > 0 ? texts.join('\n') : toolCalls.length > 0 ? null : '',
    toolCalls,
    ...(reasoning.length > 0 &&
      options.reasoningContent !== false && { reasoningContent: reasoning.join('\n') }),
    ...(options.stopReason !== undefined && { finishReason: options.stopReason }),
    ...(options.model !== undefined && { model: options.model }),
    usage: {
      promptTokens: usage.inputTokens,
      completionTokens: usage.outputTokens,
      ...(usage.cacheReadTokens !== undefined && { cachedTokens: usage.cacheReadTokens }),
      ...(usage.reasoningTokens !== undefined && { reasoningTokens: usage.reasoningTokens }),
    },
  });
}

export function anthropicReplyFromMessage(
  message: Pick<Message, 'parts'> & { usage?: Usage | undefined },
  options: ReplyFromMessageOptions = {},
): HttpReply {
  const content: FakeAnthropicBlock[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') content.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning') {
      content.push(
        part.redactedData !== undefined
          ? { type: 'redacted_thinking', data: part.redactedData }
          : {
              type: 'thinking',
              thinking: part.text,
              ...(part.signature !== undefined && { signature: part.signature }),
            },
      );
    } else if (part.type === 'tool-call') {
      content.push({ type: 'tool_use', id: part.callId, name: part.name, input: inputOf(part.args) });
    }
  }
  const usage = options.usage ?? message.usage ?? FAKE_DEFAULT_USAGE;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return anthropicReply({
    content,
    ...(options.stopReason !== undefined && { stopReason: options.stopReason }),
    ...(options.model !== undefined && { model: options.model }),
    usage: {
      // Anthropic's input_tokens excludes the cached part; ctxkit's inputTokens includes it.
      inputTokens: Math.max(0, usage.inputTokens - cacheRead - cacheWrite),
      outputTokens: usage.outputTokens,
      cacheReadInputTokens: cacheRead,
      cacheCreationInputTokens: cacheWrite,
    },
  });
}

function inputOf(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Not an object: the model would never have produced it for Anthropic; send an empty input.
  }
  return {};
}
