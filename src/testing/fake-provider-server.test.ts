import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { type FakeProviderServer, startFakeProviderServer } from './fake-provider-server.ts';
import { anthropicErrors, openAIErrors, providerError } from './fake-provider-server-errors.ts';
import { replyFromMessage } from './fake-provider-server-message-reply.ts';
import { anthropicReply, openAIReply } from './fake-provider-server-replies.ts';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });

/** The smallest bodies the real APIs accept. */
const OPENAI_BODY = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const ANTHROPIC_BODY = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
};

describe('fake provider server', () => {
  it('listens on loopback only', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.openAIBaseUrl).toBe(`${server.url}/v1`);
    expect(server.anthropicBaseUrl).toBe(server.url);
  });

  it('records every request with its format, headers and parsed body', async () => {
    server.enqueue(
      openAIReply({ content: 'a' }),
      openAIReply({ content: 'b' }),
      anthropicReply({ text: 'c' }),
    );
    await post('/v1/chat/completions', { model: 'm', messages: [] }, { authorization: 'Bearer k' });
    await post('/chat/completions', { model: 'm2', messages: [] });
    await post('/v1/messages', ANTHROPIC_BODY, { 'x-api-key': 'k2' });

    expect(server.requests.map((request) => [request.path, request.format])).toEqual([
      ['/v1/chat/completions', 'openai'],
      ['/chat/completions', 'openai'],
      ['/v1/messages', 'anthropic'],
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k');
    expect(server.requests[0]?.body).toEqual({ model: 'm', messages: [] });
    expect(server.requests[2]?.headers['x-api-key']).toBe('k2');
    expect(server.pending()).toBe(0);
  });

  it('answers scripted replies in order, shaped like the providers', async () => {
    server.enqueue(
      openAIReply({ content: 'hello', usage: { promptTokens: 12, completionTokens: 3, cachedTokens: 8 } }),
      anthropicReply({ text: 'hi', usage: { inputTokens: 5, outputTokens: 2, cacheReadInputTokens: 100 } }),
    );
    const openAI = (await (await post('/v1/chat/completions', OPENAI_BODY)).json()) as Record<
      string,
      unknown
    >;
    expect(openAI).toMatchObject({
      object: 'chat.completion',
      model: expect.any(String),
      created: expect.any(Number),
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'hello', refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 3,
        total_tokens: 15,
        prompt_tokens_details: { cached_tokens: 8, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(openAI.id).toMatch(/^chatcmpl-[A-Za-z0-9]{29}$/);

    const response = await post('/v1/messages', ANTHROPIC_BODY);
    expect(response.headers.get('request-id')).toMatch(/^req_011C/);
    const anthropic = (await response.json()) as Record<string, unknown>;
    expect(anthropic).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 5,
        output_tokens: 2,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 0,
        service_tier: 'standard',
      },
    });
    expect(anthropic.id).toMatch(/^msg_01/);
  });

  it('answers 500 naming the request when no reply is left, and uses a fallback when set', async () => {
    const missing = await post('/v1/messages', ANTHROPIC_BODY);
    expect(missing.status).toBe(500);
    expect(await missing.text()).toContain('no scripted reply for POST /v1/messages');

    server.setFallback(providerError('rate-limit'));
    expect((await post('/v1/messages', ANTHROPIC_BODY)).status).toBe(429);
    expect((await post('/v1/chat/completions', OPENAI_BODY)).status).toBe(429);
  });

  it('rejects what the real APIs reject, without using a scripted reply', async () => {
    server.enqueue(anthropicReply());
    const noMaxTokens = await post('/v1/messages', { model: 'claude-sonnet-4-6', messages: [] });
    expect(noMaxTokens.status).toBe(400);
    expect(await noMaxTokens.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    const noVersion = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify(ANTHROPIC_BODY),
    });
    expect(((await noVersion.json()) as { error: { message: string } }).error.message).toBe(
      'anthropic-version: header is required',
    );
    const noModel = await post('/v1/chat/completions', { messages: [] });
    expect(((await noModel.json()) as { error: { message: string } }).error.message).toBe(
      'you must provide a model parameter',
    );
    expect(server.requests).toHaveLength(3);
    expect(server.pending()).toBe(1);
  });

  it('answers 404 for unknown routes, still recording them', async () => {
    const response = await post('/v1/embeddings', {});
    expect(response.status).toBe(404);
    expect(server.requests.at(-1)?.format).toBe('unknown');
  });

  it('renders a ctxkit message in the format of the request', async () => {
    const message: Message = {
      id: 'a1',
      seq: 0,
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'think', signature: 'sig-1' },
        { type: 'text', text: 'calling' },
        { type: 'tool-call', callId: 'call_1', name: 'read', args: '{"path":"a.ts"}' },
      ],
      meta: {},
      usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 800, cacheWriteTokens: 100 },
    };
    server.enqueue(replyFromMessage(message), replyFromMessage(message));

    const openAI = (await (await post('/v1/chat/completions', OPENAI_BODY)).json()) as {
      choices: unknown[];
      usage: unknown;
    };
    expect(openAI.choices[0]).toMatchObject({
      message: {
        content: 'calling',
        reasoning_content: 'think',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
    expect(openAI.usage).toMatchObject({
      prompt_tokens: 1000,
      completion_tokens: 50,
      prompt_tokens_details: { cached_tokens: 800 },
    });

    const anthropic = (await (await post('/v1/messages', ANTHROPIC_BODY)).json()) as Record<string, unknown>;
    expect(anthropic).toMatchObject({
      content: [
        { type: 'thinking', thinking: 'think', signature: 'sig-1' },
        { type: 'text', text: 'calling' },
        { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.ts' } },
      ],
      stop_reason: 'tool_use',
      // Anthropic's input_tokens is the uncached part: 1000 - 800 - 100.
      usage: {
        input_tokens: 100,
        cache_read_input_tokens: 800,
        cache_creation_input_tokens: 100,
        output_tokens: 50,
      },
    });
  });

  it("sends the providers' error bodies with their statuses", async () => {
    server.enqueue(
      openAIErrors.contextLengthExceeded({ limit: 100, requested: 120 }),
      anthropicErrors.requestTooLarge(),
    );
    const openAI = await post('/v1/chat/completions', OPENAI_BODY);
    expect(openAI.status).toBe(400);
    expect(await openAI.json()).toEqual({
      error: {
        message:
          "This model's maximum context length is 100 tokens. However, your messages resulted in 120 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
    const anthropic = await post('/v1/messages', ANTHROPIC_BODY);
    expect(anthropic.status).toBe(413);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it('closes promptly even with a delayed reply in flight', async () => {
    server.enqueue({ ...openAIReply(), delayMs: 60_000 });
    const inFlight = post('/v1/chat/completions', OPENAI_BODY).catch((error: unknown) => error);
    await waitFor(() => server.requests.length === 1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await inFlight).toBeInstanceOf(Error);
    await server.close(); // idempotent
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}
