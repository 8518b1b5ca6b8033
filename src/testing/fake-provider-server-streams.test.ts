import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { type FakeProviderServer, startFakeProviderServer } from './fake-provider-server.ts';
import { anthropicErrors, openAIErrors } from './fake-provider-server-errors.ts';
import { replyFromMessage } from './fake-provider-server-message-reply.ts';
import { anthropicReply, openAIReply } from './fake-provider-server-replies.ts';
import {
  anthropicStreamError,
  anthropicStreamReply,
  openAIStreamError,
  openAIStreamReply,
} from './fake-provider-server-streams.ts';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const OPENAI_STREAM = {
  model: 'gpt-4o',
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
  stream_options: { include_usage: true },
};
const ANTHROPIC_STREAM = {
  model: 'claude-haiku-4-5',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
};

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });

interface Sse {
  event?: string;
  data: string;
}

/** Splits an SSE body into its events, as a client would. */
function parseSse(text: string): Sse[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const out: Sse = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) out.event = line.slice(7);
        else if (line.startsWith('data: ')) out.data = line.slice(6);
      }
      return out;
    });
}

async function eventsOf(response: Response): Promise<Sse[]> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await response.text());
}

const json = (event: Sse | undefined) => JSON.parse(event?.data ?? 'null') as Record<string, unknown>;

describe('fake provider server: OpenAI streams', () => {
  it('sends chat.completion.chunk objects: role first, content pieces, finish, usage, [DONE]', async () => {
    server.enqueue(
      openAIStreamReply({
        content: 'Hello, streaming world',
        chunkSize: 8,
        usage: { promptTokens: 30, completionTokens: 5, cachedTokens: 16 },
      }),
    );
    const events = await eventsOf(await post('/v1/chat/completions', OPENAI_STREAM));
    expect(events.every((event) => event.event === undefined)).toBe(true);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(json);
    expect(new Set(chunks.map((chunk) => chunk.object))).toEqual(new Set(['chat.completion.chunk']));
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]).toMatchObject({
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      usage: null,
    });
    const pieces = chunks.flatMap((chunk) => {
      const [choice] = chunk.choices as { delta: { content?: string } }[];
      return choice?.delta.content ? [choice.delta.content] : [];
    });
    expect(pieces).toEqual(['Hello, s', 'treaming', ' world']);
    expect(chunks.at(-2)).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }], usage: null });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 30, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 16 } },
    });
  });

  it('streams reasoning in the field asked for, and tool calls as index/id/name then argument pieces', async () => {
    server.enqueue(
      openAIStreamReply({
        reasoningContent: 'think',
        reasoningField: 'reasoning',
        toolCalls: [{ id: 'call_1', name: 'read', arguments: '{"path":"a.ts"}' }],
        chunkSize: 6,
      }),
    );
    const chunks = (await eventsOf(await post('/v1/chat/completions', OPENAI_STREAM))).slice(0, -1).map(json);
    const deltas = chunks.map(
      (chunk) => (chunk.choices as { delta?: Record<string, unknown> }[])[0]?.delta ?? {},
    );
    expect(deltas[0]).toEqual({ role: 'assistant', content: null, refusal: null });
    expect(deltas).toContainEqual({ reasoning: 'think' });
    expect(deltas).toContainEqual({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '' } }],
    });
    const args = deltas.flatMap((delta) => {
      const call = (delta.tool_calls as { id?: string; function: { arguments: string } }[] | undefined)?.[0];
      return call && call.id === undefined ? [call.function.arguments] : [];
    });
    expect(args).toEqual(['{"path', '":"a.t', 's"}']);
    expect(chunks.at(-2)).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
  });

  it('streams a plain reply to a stream request, with the usage chunk only when asked for', async () => {
    server.enqueue(openAIReply({ content: 'plain' }), openAIReply({ content: 'plain' }));
    const withUsage = (await eventsOf(await post('/v1/chat/completions', OPENAI_STREAM)))
      .slice(0, -1)
      .map(json);
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 100 } });
    const { stream_options: _, ...noUsage } = OPENAI_STREAM;
    const without = (await eventsOf(await post('/v1/chat/completions', noUsage))).slice(0, -1).map(json);
    expect(without.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(without.at(-1)).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
  });

  it('sends an error inside a 200 stream, after some content', async () => {
    server.enqueue(openAIStreamError(openAIErrors.contextLengthExceeded({ limit: 100, requested: 120 })));
    const response = await post('/v1/chat/completions', OPENAI_STREAM);
    expect(response.status).toBe(200);
    const events = await eventsOf(response);
    expect(events.some((event) => event.data.includes('"content":"Let me look"'))).toBe(true);
    expect(json(events.at(-1))).toEqual({
      error: {
        message:
          "This model's maximum context length is 100 tokens. However, your messages resulted in 120 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
  });
});

describe('fake provider server: Anthropic streams', () => {
  it('sends named events in the API order, each named as its type', async () => {
    server.enqueue(
      anthropicStreamReply({
        content: [
          { type: 'thinking', thinking: 'hmm, ok', signature: 'sig-1' },
          { type: 'text', text: 'Hi there' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
        ],
        chunkSize: 4,
        usage: { inputTokens: 10, outputTokens: 7, cacheReadInputTokens: 500 },
      }),
    );
    const events = await eventsOf(await post('/v1/messages', ANTHROPIC_STREAM));
    for (const event of events) expect(json(event).type).toBe(event.event);
    const names = events.map((event) => event.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(names.filter((name) => name === 'content_block_start')).toHaveLength(3);
    expect(names.filter((name) => name === 'content_block_stop')).toHaveLength(3);
    expect(json(events[0])).toMatchObject({
      message: {
        content: [],
        stop_reason: null,
        usage: { input_tokens: 10, cache_read_input_tokens: 500, output_tokens: 1 },
      },
    });
    const deltas = events
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => json(event).delta);
    expect(deltas).toContainEqual({ type: 'thinking_delta', thinking: 'hmm,' });
    expect(deltas).toContainEqual({ type: 'signature_delta', signature: 'sig-1' });
    expect(deltas).toContainEqual({ type: 'text_delta', text: 'Hi t' });
    expect(deltas).toContainEqual({ type: 'input_json_delta', partial_json: '' });
    expect(json(events.at(-2))).toMatchObject({
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 7 },
    });
  });

  it('sends an error event inside a 200 stream, after some text', async () => {
    server.enqueue(anthropicStreamError(anthropicErrors.overloaded()));
    const response = await post('/v1/messages', ANTHROPIC_STREAM);
    expect(response.status).toBe(200);
    const events = await eventsOf(response);
    expect(events.map((event) => event.event)).toContain('content_block_delta');
    expect(events.at(-1)?.event).toBe('error');
    expect(json(events.at(-1))).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });

  it('answers replyFromMessage in stream form when the request streams, and whole when it does not', async () => {
    const message: Pick<Message, 'parts'> = { parts: [{ type: 'text', text: 'from a message' }] };
    server.enqueue(replyFromMessage(message), replyFromMessage(message), anthropicReply({ text: 'x' }));
    const streamed = await eventsOf(await post('/v1/messages', ANTHROPIC_STREAM));
    expect(streamed[0]?.event).toBe('message_start');
    const { stream: _, ...whole } = ANTHROPIC_STREAM;
    const plain = await post('/v1/messages', whole);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.json()).toMatchObject({ content: [{ type: 'text', text: 'from a message' }] });
  });

  it('records that the client went away in the middle of a stream', async () => {
    server.enqueue(anthropicStreamReply({ text: 'z'.repeat(100), chunkSize: 5, chunkDelayMs: 100 }));
    const controller = new AbortController();
    const response = await post('/v1/messages', ANTHROPIC_STREAM, controller.signal);
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await waitFor(() => server.requests[0]?.clientAborted === true);
    expect(server.requests[0]?.clientAborted).toBe(true);

    server.enqueue(anthropicStreamReply({ text: 'whole' }));
    await (await post('/v1/messages', ANTHROPIC_STREAM)).text();
    expect(server.requests[1]?.clientAborted).toBeUndefined();
  });
});

describe('fake provider server: window routes', () => {
  it('answers as Ollama, vLLM and llama.cpp do, from what it is configured with', async () => {
    server.setServedWindows({
      ollamaShow: { 'llama3.2': { contextLength: 131_072, numCtx: 8_192 } },
      ollamaPs: [{ model: 'llama3.2', contextLength: 8_192 }],
      vllmModels: [{ id: 'qwen', maxModelLen: 32_768 }],
      llamaCppNCtx: 4_096,
    });
    const show = (await (await post('/api/show', { model: 'llama3.2:latest' })).json()) as Record<
      string,
      unknown
    >;
    expect(show.parameters).toMatch(/^num_ctx {24}8192$/m);
    expect(show.model_info).toMatchObject({
      'general.architecture': 'llama',
      'llama.context_length': 131_072,
    });
    const missing = await post('/api/show', { model: 'nope' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "model 'nope' not found" });
    const ps = (await (await fetch(`${server.url}/api/ps`)).json()) as { models: unknown[] };
    expect(ps.models[0]).toMatchObject({
      name: 'llama3.2:latest',
      model: 'llama3.2:latest',
      context_length: 8_192,
    });
    expect(await (await fetch(`${server.url}/v1/models`)).json()).toMatchObject({
      object: 'list',
      data: [{ id: 'qwen', object: 'model', owned_by: 'vllm', max_model_len: 32_768 }],
    });
    expect(await (await fetch(`${server.url}/props`)).json()).toMatchObject({
      default_generation_settings: { n_ctx: 4_096 },
      total_slots: 1,
    });
    expect(server.pending()).toBe(0);
  });

  it('answers 404 on the routes it is not configured for', async () => {
    for (const path of ['/api/ps', '/v1/models', '/props'])
      expect((await fetch(`${server.url}${path}`)).status).toBe(404);
    expect((await post('/api/show', { model: 'm' })).status).toBe(404);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}
