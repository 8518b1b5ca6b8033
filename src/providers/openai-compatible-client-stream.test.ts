import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelCallAbortedError, ModelCallError, ModelTimeoutError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { openAIErrors } from '../testing/fake-provider-server-errors.ts';
import { openAIChatCompletionBody, openAIReply } from '../testing/fake-provider-server-replies.ts';
import {
  openAIStreamError,
  openAIStreamEvents,
  openAIStreamReply,
} from '../testing/fake-provider-server-streams.ts';
import { isContextOverflow, parseOverflowTokens } from './is-context-overflow.ts';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from './model-client.ts';
import { createOpenAICompatibleClient } from './openai-compatible-client.ts';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const user: Message = {
  id: 'u1',
  seq: 0,
  role: 'user',
  parts: [{ type: 'text', text: 'read a.ts' }],
  meta: {},
};
const request: ModelRequest = {
  model: 'gpt-4o',
  system: 'You are terse.',
  messages: [user],
  tools: [{ name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
  maxOutputTokens: 256,
};

const client = (options: Partial<Parameters<typeof createOpenAICompatibleClient>[0]> = {}) =>
  createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, maxRetries: 0, ...options });

async function collect(events: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The events before a failure, and the failure. */
async function collectUntilError(
  events: AsyncIterable<ModelStreamEvent>,
): Promise<{ seen: ModelStreamEvent[]; error: unknown }> {
  const seen: ModelStreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

const textOf = (events: ModelStreamEvent[], type: 'text-delta' | 'reasoning-delta') =>
  events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');

function responseOf(events: ModelStreamEvent[]): ModelResponse {
  const last = events.at(-1);
  if (last?.type !== 'response')
    throw new Error(`the stream did not end with a response: ${JSON.stringify(last)}`);
  return last.response;
}

describe('createOpenAICompatibleClient: stream', () => {
  it('streams text in pieces and ends with the response complete gives for the same answer', async () => {
    const answer = {
      id: 'chatcmpl-same',
      created: 1_700_000_000,
      content: 'Both files read; a.ts exports one function.',
      usage: { promptTokens: 1200, completionTokens: 80, cachedTokens: 1024, reasoningTokens: 40 },
    };
    server.enqueue(openAIReply(answer), openAIReply(answer));
    const whole = await client().complete(request);
    const events = await collect(client().stream(request));

    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(textOf(events, 'text-delta')).toBe(answer.content);
    expect(responseOf(events)).toEqual(whole);
    expect(responseOf(events).usage).toEqual({
      inputTokens: 1200,
      outputTokens: 80,
      cacheReadTokens: 1024,
      reasoningTokens: 40,
    });
    // The same body, asking for a stream with usage.
    const [plain, streamed] = server.requests.map((sent) => sent.body as Record<string, unknown>);
    expect(streamed).toEqual({ ...plain, stream: true, stream_options: { include_usage: true } });
  });

  it.each(['reasoning_content', 'reasoning'] as const)(
    'streams reasoning sent as delta.%s',
    async (field) => {
      server.enqueue(
        openAIStreamReply({
          reasoningContent: 'Two files; read a first.',
          content: 'Reading.',
          reasoningField: field,
        }),
      );
      const events = await collect(client().stream(request));
      expect(textOf(events, 'reasoning-delta')).toBe('Two files; read a first.');
      expect(events.findIndex((event) => event.type === 'reasoning-delta')).toBeLessThan(
        events.findIndex((event) => event.type === 'text-delta'),
      );
      expect(responseOf(events).message.parts).toEqual([
        { type: 'reasoning', text: 'Two files; read a first.' },
        { type: 'text', text: 'Reading.' },
      ]);
    },
  );

  it('streams tool calls: a start with id and name, then the arguments in pieces', async () => {
    server.enqueue(
      openAIStreamReply({
        chunkSize: 5,
        toolCalls: [
          { id: 'call_a', name: 'read', arguments: '{"path":"a.ts"}' },
          { id: 'call_b', name: 'read', arguments: '{"path":"b/c/d.ts"}' },
        ],
      }),
    );
    const events = await collect(client().stream(request));
    const starts = events.filter((event) => event.type === 'tool-call-start');
    expect(starts).toEqual([
      { type: 'tool-call-start', callId: 'call_a', name: 'read' },
      { type: 'tool-call-start', callId: 'call_b', name: 'read' },
    ]);
    const argsOf = (callId: string) =>
      events.flatMap((event) =>
        event.type === 'tool-call-delta' && event.callId === callId ? [event.argsDelta] : [],
      );
    expect(argsOf('call_b').length).toBeGreaterThan(1);
    expect(argsOf('call_a').join('')).toBe('{"path":"a.ts"}');
    expect(argsOf('call_b').join('')).toBe('{"path":"b/c/d.ts"}');
    const response = responseOf(events);
    expect(response.stopReason).toBe('tool_calls');
    expect(response.message.parts).toEqual([
      { type: 'tool-call', callId: 'call_a', name: 'read', args: '{"path":"a.ts"}' },
      { type: 'tool-call', callId: 'call_b', name: 'read', args: '{"path":"b/c/d.ts"}' },
    ]);
  });

  it('reads a tool call sent whole in one fragment, and gives a call without id one', async () => {
    const completion = openAIChatCompletionBody({ content: null, finishReason: 'tool_calls', usage: null });
    const base = { id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'llama3' };
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] }),
    });
    server.enqueue({
      events: [
        chunk({ role: 'assistant', content: null }),
        chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'now', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        { data: '[DONE]' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    const events = await collect(client().stream(request));
    const start = events.find((event) => event.type === 'tool-call-start');
    expect(start).toMatchObject({ name: 'now', callId: expect.stringMatching(/^call_/) });
    const parts = responseOf(events).message.parts;
    expect(parts).toEqual([
      { type: 'tool-call', callId: (start as { callId: string }).callId, name: 'now', args: '{}' },
    ]);
  });

  it('reads usage on the finish chunk, and DeepSeek cache hits in the usage chunk', async () => {
    server.enqueue(
      openAIStreamReply({
        content: 'a',
        usage: { promptTokens: 10, completionTokens: 2 },
        usageIn: 'finish-chunk',
      }),
      {
        events: openAIStreamEvents({
          ...openAIChatCompletionBody({ content: 'b', usage: null }),
          usage: {
            prompt_tokens: 50,
            completion_tokens: 5,
            prompt_cache_hit_tokens: 32,
            prompt_cache_miss_tokens: 18,
          },
        }),
      },
    );
    expect(responseOf(await collect(client().stream(request))).usage).toEqual({
      inputTokens: 10,
      outputTokens: 2,
      cacheReadTokens: 0,
      reasoningTokens: 0,
    });
    expect(responseOf(await collect(client().stream(request))).usage).toEqual({
      inputTokens: 50,
      outputTokens: 5,
      cacheReadTokens: 32,
    });
  });

  it('asks for no usage when streamUsage is off, and then reports zeros (not on the message)', async () => {
    server.enqueue(openAIReply({ content: 'ok' }));
    const events = await collect(client({ streamUsage: false }).stream(request));
    expect(server.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(responseOf(events).usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(responseOf(events).message.usage).toBeUndefined();
  });

  it('reads a server that ignores stream: true and answers one JSON body', async () => {
    server.enqueue({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(openAIChatCompletionBody({ content: 'whole answer', reasoningContent: 'hm' })),
    });
    const events = await collect(client().stream(request));
    expect(events.map((event) => event.type)).toEqual(['reasoning-delta', 'text-delta', 'response']);
    expect(responseOf(events).message.parts).toEqual([
      { type: 'reasoning', text: 'hm' },
      { type: 'text', text: 'whole answer' },
    ]);
  });

  it('fails, instead of answering half, when the stream ends before the finish reason', async () => {
    const events = openAIStreamEvents(openAIChatCompletionBody({ content: 'cut off in the middle of' }), {
      chunkSize: 4,
    });
    server.enqueue({ events: events.slice(0, 3) });
    const { seen, error } = await collectUntilError(client().stream(request));
    expect(textOf(seen, 'text-delta')).toBe('cut off ');
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).message).toContain('stream ended before the model finished');
  });
});

describe('createOpenAICompatibleClient: stream errors', () => {
  it('an overflow error inside the stream, after a 200 and some text, is an overflow with its figures', async () => {
    server.enqueue(openAIStreamError(openAIErrors.contextLengthExceeded({ limit: 8192, requested: 9000 })));
    const { seen, error } = await collectUntilError(client().stream(request));
    expect(textOf(seen, 'text-delta')).toBe('Let me look');
    expect(seen.some((event) => event.type === 'response')).toBe(false);
    expect(error).toBeInstanceOf(ModelCallError);
    const failure = error as ModelCallError;
    expect(failure.providerCode).toBe('context_length_exceeded');
    expect(failure.message).toContain("This model's maximum context length is 8192 tokens.");
    expect(isContextOverflow(failure)).toBe(true);
    expect(parseOverflowTokens(failure)).toEqual({ requested: 9000, limit: 8192 });
  });

  it('an overflow inside a llama.cpp stream keeps its figures and the status its code names', async () => {
    server.enqueue(
      openAIStreamError({
        body: {
          error: {
            code: 400,
            message: 'the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: 5000,
            n_ctx: 4096,
          },
        },
      }),
    );
    const { error } = await collectUntilError(client().stream(request));
    expect((error as ModelCallError).status).toBe(400);
    expect(isContextOverflow(error)).toBe(true);
    expect(parseOverflowTokens(error)).toEqual({ requested: 5000, limit: 4096 });
  });

  it.each([
    ['a TPM rate limit', openAIErrors.rateLimitTokens(), 'rate_limit_exceeded'],
    ['overload', openAIErrors.overloaded(), undefined],
  ])('%s inside the stream is a ModelCallError that is not an overflow', async (_name, reply, code) => {
    server.enqueue(openAIStreamError(reply));
    const { error } = await collectUntilError(client().stream(request));
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).providerCode).toBe(code);
    expect(isContextOverflow(error)).toBe(false);
  });

  it('errors answered before the stream begins read as for complete: overflow, 413', async () => {
    server.enqueue(
      openAIErrors.contextLengthExceeded({ limit: 128_000, requested: 140_000 }),
      { status: 413, body: '<html><head><title>413 Request Entity Too Large</title></head></html>' },
      openAIErrors.rateLimitTokens(),
    );
    const overflow = (await collectUntilError(client().stream(request))).error as ModelCallError;
    expect(overflow.status).toBe(400);
    expect(isContextOverflow(overflow)).toBe(true);
    const tooLarge = (await collectUntilError(client().stream(request))).error as ModelCallError;
    expect(tooLarge.status).toBe(413);
    expect(isContextOverflow(tooLarge)).toBe(true);
    const limited = (await collectUntilError(client().stream(request))).error as ModelCallError;
    expect(limited.status).toBe(429);
    expect(isContextOverflow(limited)).toBe(false);
  });

  it('a 200 carrying an error body, answered to a stream request, is the error it is', async () => {
    server.enqueue({
      body: { error: { code: 400, message: "This endpoint's maximum context length is 8192 tokens." } },
    });
    const { seen, error } = await collectUntilError(client().stream(request));
    expect(seen).toEqual([]);
    expect((error as ModelCallError).status).toBe(400);
    expect(isContextOverflow(error)).toBe(true);
  });
});

describe('createOpenAICompatibleClient: stream abort and timeout', () => {
  it('an abort mid-stream rejects at once, and the server sees the connection closed', async () => {
    server.enqueue(openAIStreamReply({ content: 'x'.repeat(400), chunkSize: 10, chunkDelayMs: 200 }));
    const controller = new AbortController();
    const seen: ModelStreamEvent[] = [];
    let aborted = 0;
    const reading = (async () => {
      for await (const event of client().stream({ ...request, signal: controller.signal })) {
        seen.push(event);
        if (event.type === 'text-delta' && aborted === 0) {
          aborted = Date.now();
          setTimeout(() => controller.abort(new Error('user pressed ctrl-c')), 10);
        }
      }
    })().catch((caught: unknown) => caught);
    const error = await reading;
    expect(error).toBeInstanceOf(ModelCallAbortedError);
    expect(((error as ModelCallAbortedError).reason as Error).message).toBe('user pressed ctrl-c');
    // Promptly: well before the next chunk (200 ms apart), let alone the 40 the answer has.
    expect(Date.now() - aborted).toBeLessThan(150);
    expect(seen.filter((event) => event.type === 'text-delta').length).toBeLessThan(3);
    await waitFor(() => server.requests[0]?.clientAborted === true);
    expect(server.requests[0]?.clientAborted).toBe(true);
  });

  it('an already aborted signal sends nothing', async () => {
    const { error } = await collectUntilError(client().stream({ ...request, signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(ModelCallAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('a caller that stops reading closes the connection', async () => {
    server.enqueue(openAIStreamReply({ content: 'y'.repeat(400), chunkSize: 10, chunkDelayMs: 50 }));
    for await (const event of client().stream(request)) if (event.type === 'text-delta') break;
    await waitFor(() => server.requests[0]?.clientAborted === true);
    expect(server.requests[0]?.clientAborted).toBe(true);
  });

  it('times out a stream that stalls between chunks, but not a slow reader', async () => {
    server.enqueue(
      openAIStreamReply({ content: 'z'.repeat(64), chunkSize: 8, chunkDelayMs: 2_000 }),
      openAIStreamReply({ content: 'w'.repeat(64), chunkSize: 8 }),
    );
    const started = Date.now();
    const { seen, error } = await collectUntilError(client({ timeoutMs: 150 }).stream(request));
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as ModelTimeoutError).timeoutMs).toBe(150);
    // The answer began at once (headers, first chunk); the wait for the second one timed out.
    expect(seen).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_500);

    const events: ModelStreamEvent[] = [];
    for await (const event of client({ timeoutMs: 150 }).stream(request)) {
      events.push(event);
      if (events.length < 4) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(textOf(events, 'text-delta')).toBe('w'.repeat(64));
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}
