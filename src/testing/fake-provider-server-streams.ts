/**
 * Streamed replies for the fake provider server, shaped like each provider's real server-sent events:
 *
 * - OpenAI Chat Completions (`stream: true`): `data: {chat.completion.chunk}` lines, no `event:` names. The
 *   first chunk carries `delta.role`; then `delta.content` pieces (reasoning as `delta.reasoning_content`,
 *   DeepSeek, or `delta.reasoning`, Ollama / OpenRouter / vLLM); each tool call as a first fragment with
 *   `index`, `id`, `type`, `function.name` and empty `arguments`, then `arguments` pieces under the same
 *   `index`; a chunk with `finish_reason` and an empty delta; with `stream_options.include_usage` every
 *   chunk has `usage: null` and a last one has empty `choices` and the usage; then `data: [DONE]`.
 * - Anthropic Messages: named events. `message_start` (the message with empty content and the input
 *   usage), then per block `content_block_start` (text and thinking empty, tool_use with `input: {}`,
 *   redacted_thinking whole), a `ping` after the first, `content_block_delta`s (`text_delta`,
 *   `thinking_delta` then one `signature_delta`, `input_json_delta` pieces starting with an empty one) and
 *   `content_block_stop`; then `message_delta` (stop reason, cumulative usage) and `message_stop`.
 * - Errors inside a stream, after the 200 and some deltas: OpenAI-compatible servers send `data:
 *   {"error": {...}}`; Anthropic sends `event: error` with `{"type": "error", "error": {"type", "message"}}`.
 *
 * A non-streamed reply scripted for a request that asked to stream is turned into its stream by the
 * server (`streamFormOf`), so everything scripted with the plain builders works for streaming clients too.
 */

import {
  type AnthropicReplyOptions,
  anthropicMessageBody,
  fakeId,
  type OpenAIReplyOptions,
  openAIChatCompletionBody,
} from './fake-provider-server-replies.ts';
import type { HttpReply, RecordedRequest, SseEvent } from './fake-provider-server-types.ts';

/** Code points per delta when a reply does not say. */
export const FAKE_STREAM_CHUNK_SIZE = 16;

export interface FakeStreamOptions {
  /** Text, reasoning and tool arguments are cut into deltas of this many characters. Default FAKE_STREAM_CHUNK_SIZE. */
  chunkSize?: number;
  /** Wait this long between two events (for tests that abort mid-stream). */
  chunkDelayMs?: number;
}

export interface OpenAIStreamShape extends FakeStreamOptions {
  /** The delta field reasoning streams in: `reasoning_content` (DeepSeek; default) or `reasoning` (Ollama, OpenRouter, vLLM). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /**
   * Where usage goes: a last chunk with empty `choices` (OpenAI with `include_usage`; default), on the
   * finish chunk (some compatible servers), or nowhere (OpenAI without `include_usage`).
   */
  usageIn?: 'last-chunk' | 'finish-chunk' | 'none';
}

export interface OpenAIStreamReplyOptions extends OpenAIReplyOptions, OpenAIStreamShape {}

export interface AnthropicStreamReplyOptions extends AnthropicReplyOptions, FakeStreamOptions {}

export interface StreamErrorOptions extends FakeStreamOptions {
  /** Text streamed before the error arrives. Default `'Let me look'`. */
  text?: string;
}

// ---------------------------------------------------------------- OpenAI

/** A streamed Chat Completions answer: the same options as `openAIReply`, sent as chunks. */
export function openAIStreamReply(
  options: OpenAIStreamReplyOptions = {},
  http: Omit<HttpReply, 'body' | 'events'> = {},
): HttpReply {
  return streamReply(
    openAIStreamEvents(openAIChatCompletionBody(options), options),
    { 'x-request-id': fakeId('req_', 32) },
    options,
    http,
  );
}

/** The chunks a `chat.completion` body is streamed as. */
export function openAIStreamEvents(
  completion: Record<string, unknown>,
  shape: OpenAIStreamShape = {},
): SseEvent[] {
  const size = shape.chunkSize ?? FAKE_STREAM_CHUNK_SIZE;
  const usageIn = shape.usageIn ?? 'last-chunk';
  const usage = completion.usage;
  const choice = recordAt(completion.choices, 0);
  const message = isRecord(choice.message) ? choice.message : {};
  const chunks: Record<string, unknown>[] = [];
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    service_tier: completion.service_tier ?? 'default',
    system_fingerprint: completion.system_fingerprint ?? null,
  };
  const withUsageField = usageIn === 'last-chunk' && usage !== undefined;
  const chunk = (delta: Record<string, unknown>, finishReason: unknown = null) =>
    chunks.push({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(withUsageField && { usage: null }),
    });

  chunk({ role: 'assistant', content: typeof message.content === 'string' ? '' : null, refusal: null });
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string') {
    for (const piece of pieces(reasoning, size))
      chunk({ [shape.reasoningField ?? 'reasoning_content']: piece });
  }
  if (typeof message.content === 'string')
    for (const piece of pieces(message.content, size)) chunk({ content: piece });
  if (typeof message.refusal === 'string')
    for (const piece of pieces(message.refusal, size)) chunk({ refusal: piece });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  calls.forEach((call, index) => {
    const fn = isRecord(call.function) ? call.function : {};
    chunk({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: fn.name, arguments: '' } }],
    });
    const args = typeof fn.arguments === 'string' ? fn.arguments : '';
    for (const piece of pieces(args, size))
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunks.push({
    ...base,
    choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: choice.finish_reason ?? 'stop' }],
    ...(withUsageField && { usage: null }),
    ...(usageIn === 'finish-chunk' && usage !== undefined && { usage }),
  });
  if (withUsageField) chunks.push({ ...base, choices: [], usage });
  return [...chunks.map((data) => ({ data: JSON.stringify(data) })), { data: '[DONE]' }];
}

/**
 * A 200 stream that fails part-way, as OpenAI-compatible servers (vLLM, llama.cpp, OpenRouter) send it:
 * some content, then `data: {"error": {...}}` with the error body of `error` (one of `openAIErrors`).
 */
export function openAIStreamError(error: HttpReply, options: StreamErrorOptions = {}): HttpReply {
  const completion = openAIChatCompletionBody({ content: options.text ?? 'Let me look', usage: null });
  const events = openAIStreamEvents(completion, { ...options, usageIn: 'none' });
  // The start and the content, without the finish chunk and [DONE].
  const started = events.slice(0, -2);
  return streamReply([...started, { data: JSON.stringify(error.body) }], error.headers ?? {}, options, {});
}

// ---------------------------------------------------------------- Anthropic

/** A streamed Messages answer: the same options as `anthropicReply`, sent as events. */
export function anthropicStreamReply(
  options: AnthropicStreamReplyOptions = {},
  http: Omit<HttpReply, 'body' | 'events'> = {},
): HttpReply {
  return streamReply(
    anthropicStreamEvents(anthropicMessageBody(options), options),
    { 'request-id': fakeId('req_011C') },
    options,
    http,
  );
}

/** The events a Message body is streamed as. */
export function anthropicStreamEvents(
  message: Record<string, unknown>,
  shape: FakeStreamOptions = {},
): SseEvent[] {
  const size = shape.chunkSize ?? FAKE_STREAM_CHUNK_SIZE;
  const usage = isRecord(message.usage) ? message.usage : {};
  const output = typeof usage.output_tokens === 'number' ? usage.output_tokens : 0;
  const events: SseEvent[] = [];
  const send = (event: string, data: Record<string, unknown>) =>
    events.push({ event, data: JSON.stringify({ type: event, ...data }) });

  send('message_start', {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: Math.min(1, output) },
    },
  });
  const blocks = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
  blocks.forEach((block, index) => {
    const delta = (body: Record<string, unknown>) => send('content_block_delta', { index, delta: body });
    switch (block.type) {
      case 'text':
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        if (index === 0) send('ping', {});
        for (const piece of pieces(String(block.text ?? ''), size))
          delta({ type: 'text_delta', text: piece });
        break;
      case 'thinking':
        send('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
        if (index === 0) send('ping', {});
        for (const piece of pieces(String(block.thinking ?? ''), size))
          delta({ type: 'thinking_delta', thinking: piece });
        if (typeof block.signature === 'string')
          delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'tool_use':
        send('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        if (index === 0) send('ping', {});
        delta({ type: 'input_json_delta', partial_json: '' });
        for (const piece of pieces(JSON.stringify(block.input ?? {}), size))
          delta({ type: 'input_json_delta', partial_json: piece });
        break;
      default:
        // redacted_thinking and server tool blocks arrive whole in their start.
        send('content_block_start', { index, content_block: block });
        if (index === 0) send('ping', {});
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: message.stop_reason ?? 'end_turn', stop_sequence: message.stop_sequence ?? null },
    usage: {
      input_tokens: usage.input_tokens ?? null,
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
      output_tokens: output,
    },
  });
  send('message_stop', {});
  return events;
}

/**
 * A 200 stream that fails part-way, as Anthropic sends it: the message start, some text, then `event:
 * error` with the error body of `error` (one of `anthropicErrors`; `overloaded()` is the usual one).
 */
export function anthropicStreamError(error: HttpReply, options: StreamErrorOptions = {}): HttpReply {
  const message = anthropicMessageBody({ text: options.text ?? 'Let me look' });
  const events = anthropicStreamEvents(message, options);
  // Up to the last text delta: no block stop, message delta or message stop.
  const lastDelta = events.findLastIndex((event) => event.event === 'content_block_delta');
  const started = events.slice(0, lastDelta + 1);
  return streamReply(
    [...started, { event: 'error', data: JSON.stringify(error.body) }],
    error.headers ?? {},
    options,
    {},
  );
}

// ---------------------------------------------------------------- from a plain reply

/** Did the request ask for a streamed answer? */
export function isStreamRequest(request: RecordedRequest): boolean {
  return isRecord(request.body) && request.body.stream === true;
}

/**
 * A successful non-streamed reply (a `chat.completion` or a Message body) in the stream form a streaming
 * request gets; any other reply (errors, raw strings, replies already streamed) unchanged. OpenAI sends the
 * usage chunk only when the request asked for it (`stream_options.include_usage`), as the real API does.
 */
export function streamFormOf(request: RecordedRequest, reply: HttpReply): HttpReply {
  if (!isStreamRequest(request) || reply.events !== undefined) return reply;
  if ((reply.status ?? 200) >= 300 || !isRecord(reply.body)) return reply;
  const { body, ...rest } = reply;
  if (request.format === 'openai' && body.object === 'chat.completion') {
    const options =
      isRecord(request.body) && isRecord(request.body.stream_options) ? request.body.stream_options : {};
    return {
      ...rest,
      events: openAIStreamEvents(body, { usageIn: options.include_usage === true ? 'last-chunk' : 'none' }),
    };
  }
  if (request.format === 'anthropic' && body.type === 'message')
    return { ...rest, events: anthropicStreamEvents(body) };
  return reply;
}

function streamReply(
  events: SseEvent[],
  headers: Record<string, string>,
  options: FakeStreamOptions,
  http: Omit<HttpReply, 'body' | 'events'>,
): HttpReply {
  return {
    ...(options.chunkDelayMs !== undefined && { eventDelayMs: options.chunkDelayMs }),
    ...http,
    headers: { ...headers, ...http.headers },
    events,
  };
}

/** `text` cut into pieces of `size` code points (a surrogate pair is never split). */
function pieces(text: string, size: number): string[] {
  const points = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let start = 0; start < points.length; start += step)
    out.push(points.slice(start, start + step).join(''));
  return out;
}

function recordAt(value: unknown, index: number): Record<string, unknown> {
  const item = Array.isArray(value) ? value[index] : undefined;
  return isRecord(item) ? item : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
