import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelCallAbortedError, ModelCallError, ModelTimeoutError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { openAIErrors } from '../testing/fake-provider-server-errors.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { isContextOverflow, parseOverflowTokens } from './is-context-overflow.ts';
import type { ModelRequest } from './model-client.ts';
import { createOpenAICompatibleClient } from './openai-compatible-client.ts';
import { maxTokensFieldFor } from './openai-token-field.ts';

let server: FakeProviderServer;

beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const msg = (
  seq: number,
  role: Message['role'],
  parts: Message['parts'],
  meta: Message['meta'] = {},
): Message => ({
  id: `m${seq}`,
  seq,
  role,
  parts,
  meta,
});

const history: Message[] = [
  msg(0, 'user', [{ type: 'text', text: 'read a.ts and b.ts' }]),
  msg(1, 'assistant', [
    { type: 'reasoning', text: 'two files' },
    { type: 'text', text: 'Reading both.' },
    { type: 'tool-call', callId: 'call_a', name: 'read', args: '{"path":"a.ts"}' },
    { type: 'tool-call', callId: 'call_b', name: 'read', args: '{"path":"b.ts"}' },
  ]),
  msg(2, 'tool', [{ type: 'tool-result', callId: 'call_a', name: 'read', content: 'A', isError: false }]),
  msg(3, 'tool', [
    { type: 'tool-result', callId: 'call_b', name: 'read', content: 'no such file', isError: true },
  ]),
  msg(4, 'user', [{ type: 'text', text: 'hidden note' }], { agentVisible: false }),
];

const request: ModelRequest = {
  model: 'gpt-4o',
  system: 'You are terse.',
  messages: history,
  tools: [
    {
      name: 'read',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    { name: 'now' },
  ],
  maxOutputTokens: 512,
  temperature: 0,
};

describe('createOpenAICompatibleClient: request', () => {
  it('POSTs {baseUrl}/chat/completions with the Chat Completions body and bearer auth', async () => {
    server.enqueue(openAIReply({ content: 'done' }));
    const client = createOpenAICompatibleClient({
      baseUrl: `${server.openAIBaseUrl}/`,
      apiKey: 'sk-test',
      headers: { 'x-title': 'ctxkit' },
    });
    await client.complete(request);

    const sent = server.requests[0];
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-test');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers['x-title']).toBe('ctxkit');
    expect(sent?.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'read a.ts and b.ts' },
        {
          role: 'assistant',
          content: 'Reading both.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
            { id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b.ts"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'A' },
        { role: 'tool', tool_call_id: 'call_b', content: 'no such file' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          },
        },
        { type: 'function', function: { name: 'now' } },
      ],
      max_tokens: 512,
      temperature: 0,
    });
  });

  it('sends no auth header without a key, and no optional fields when unset', async () => {
    server.enqueue(openAIReply());
    const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, defaultModel: 'llama3' });
    await client.complete({ model: '', messages: [history[0] as Message] });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body).toEqual({
      model: 'llama3',
      messages: [{ role: 'user', content: 'read a.ts and b.ts' }],
    });
  });

  it('uses max_completion_tokens for OpenAI reasoning models, and merges extraBody', async () => {
    server.enqueue(openAIReply());
    const client = createOpenAICompatibleClient({
      baseUrl: server.openAIBaseUrl,
      extraBody: { reasoning_effort: 'low' },
      systemRole: 'developer',
    });
    await client.complete({ ...request, model: 'o3-mini', tools: [] });
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.max_completion_tokens).toBe(512);
    expect(body.max_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBe('low');
    expect(body.tools).toBeUndefined();
    expect((body.messages as unknown[])[0]).toEqual({ role: 'developer', content: 'You are terse.' });
  });

  it('echoes reasoning as reasoning_content only when asked (DeepSeek thinking with tools needs it)', async () => {
    server.enqueue(openAIReply(), openAIReply());
    await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl }).complete(request);
    await createOpenAICompatibleClient({
      baseUrl: server.openAIBaseUrl,
      reasoningField: 'reasoning_content',
    }).complete(request);
    const assistantOf = (index: number) => (sentMessages(index)[2] ?? {}) as Record<string, unknown>;
    expect(assistantOf(0).reasoning_content).toBeUndefined();
    expect(assistantOf(1).reasoning_content).toBe('two files');
  });
});

describe('createOpenAICompatibleClient: the SDK underneath', () => {
  it("sends no credentials or organisation from the SDK's environment variables to the server", async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    vi.stubEnv('OPENAI_ORG_ID', 'org-from-env');
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj-from-env');
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:1/v1');
    server.enqueue(openAIReply(), openAIReply());
    await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl }).complete(request);
    await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, apiKey: 'sk-mine' }).complete(
      request,
    );
    const [keyless, keyed] = server.requests;
    expect(keyless?.headers.authorization).toBeUndefined();
    expect(keyed?.headers.authorization).toBe('Bearer sk-mine');
    for (const sent of [keyless, keyed]) {
      expect(sent?.headers['openai-organization']).toBeUndefined();
      expect(sent?.headers['openai-project']).toBeUndefined();
      expect(JSON.stringify(sent?.headers)).not.toContain('from-env');
    }
  });

  it('retries a 503 as the SDK does by default, and not at all with maxRetries: 0', async () => {
    server.enqueue(openAIErrors.overloaded(), openAIReply({ content: 'second time lucky' }));
    const retried = await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl }).complete(request);
    expect(retried.message.parts).toEqual([{ type: 'text', text: 'second time lucky' }]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['x-stainless-retry-count']).toBe('1');

    server.enqueue(openAIErrors.overloaded(), openAIReply());
    const error = (await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('keeps the message of an error body the SDK alone would lose (vLLM: top level, no `error` field)', async () => {
    server.enqueue({
      status: 400,
      body: {
        object: 'error',
        message:
          "This model's maximum context length is 2048 tokens. However, you requested 2300 tokens (2000 in the messages, 300 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    });
    const error = (await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.status).toBe(400);
    expect(error.providerType).toBe('BadRequestError');
    expect(error.message).toContain("This model's maximum context length is 2048 tokens.");
    expect(isContextOverflow(error)).toBe(true);
    expect(parseOverflowTokens(error)).toEqual({ requested: 2300, limit: 2048, completion: 300 });
  });

  it('maps a 413 from a proxy to an overflow', async () => {
    server.enqueue({
      status: 413,
      body: '<html><head><title>413 Request Entity Too Large</title></head></html>',
    });
    const error = (await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.status).toBe(413);
    expect(isContextOverflow(error)).toBe(true);
  });

  it('asks the server the window it serves the model with (servedContextWindow)', async () => {
    server.setServedWindows({ vllmModels: [{ id: 'qwen3-8b', maxModelLen: 32_768 }] });
    const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, apiKey: 'vllm-key' });
    expect(await client.servedContextWindow?.('qwen3-8b')).toBe(32_768);
    expect(await client.servedContextWindow?.('another-model')).toBeUndefined();
    const asked = server.requests.find((sent) => sent.path === '/v1/models');
    expect(asked?.headers.authorization).toBe('Bearer vllm-key');
  });
});

describe('maxTokensFieldFor', () => {
  it.each([
    ['gpt-4o', 'https://api.openai.com/v1', 'max_completion_tokens'],
    ['gpt-4o', 'http://127.0.0.1:11434/v1', 'max_tokens'],
    ['o1', 'https://example.openai.azure.com/openai', 'max_completion_tokens'],
    ['openai/o4-mini', 'https://openrouter.ai/api/v1', 'max_completion_tokens'],
    ['gpt-5-mini', 'http://localhost:4000', 'max_completion_tokens'],
    ['deepseek-chat', 'https://api.deepseek.com', 'max_tokens'],
  ] as const)('%s at %s → %s', (model, baseUrl, field) => {
    expect(maxTokensFieldFor(model, baseUrl)).toBe(field);
  });
});

describe('createOpenAICompatibleClient: response', () => {
  it('converts choices[0].message, finish_reason and usage (cached and reasoning tokens)', async () => {
    server.enqueue(
      openAIReply({
        id: 'chatcmpl-abc',
        model: 'deepseek-reasoner',
        created: 1_700_000_000,
        reasoningContent: 'thinking…',
        content: 'Both read.',
        toolCalls: [{ id: 'call_c', name: 'read', arguments: '{"path":"c.ts"}' }],
        finishReason: 'tool_calls',
        usage: { promptTokens: 1200, completionTokens: 80, cachedTokens: 1024, reasoningTokens: 40 },
      }),
    );
    const response = await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl }).complete(request);
    const usage = { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1024, reasoningTokens: 40 };
    expect(response).toEqual({
      message: {
        id: 'chatcmpl-abc',
        seq: 0,
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'thinking…' },
          { type: 'text', text: 'Both read.' },
          { type: 'tool-call', callId: 'call_c', name: 'read', args: '{"path":"c.ts"}' },
        ],
        meta: { model: 'deepseek-reasoner', createdAt: 1_700_000_000_000 },
        usage,
      },
      usage,
      stopReason: 'tool_calls',
      model: 'deepseek-reasoner',
    });
  });

  it('round-trips tool calls: the answer, appended with its results, is sent back as the provider wrote it', async () => {
    server.enqueue(
      openAIReply({ toolCalls: [{ id: 'call_x1', name: 'read', arguments: '{"path":"x.ts"}' }] }),
      openAIReply({ content: 'x.ts is empty' }),
    );
    const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl });
    const first = await client.complete({ model: 'gpt-4o', messages: [history[0] as Message] });
    expect(first.stopReason).toBe('tool_calls');
    const result = msg(2, 'tool', [
      { type: 'tool-result', callId: 'call_x1', name: 'read', content: '', isError: false },
    ]);
    await client.complete({
      model: 'gpt-4o',
      messages: [history[0] as Message, { ...first.message, seq: 1 }, result],
    });

    expect(sentMessages(1).slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_x1', type: 'function', function: { name: 'read', arguments: '{"path":"x.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_x1', content: '' },
    ]);
  });

  it('reads DeepSeek cache hits, and reports zero usage (not on the message) when the server sends none', async () => {
    server.enqueue(
      {
        body: {
          ...(openAIReply({ usage: null }).body as object),
          usage: {
            prompt_tokens: 50,
            completion_tokens: 5,
            total_tokens: 55,
            prompt_cache_hit_tokens: 32,
            prompt_cache_miss_tokens: 18,
          },
        },
      },
      openAIReply({ content: 'x', usage: null }),
    );
    const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl });
    expect((await client.complete(request)).usage).toEqual({
      inputTokens: 50,
      outputTokens: 5,
      cacheReadTokens: 32,
    });
    const bare = await client.complete(request);
    expect(bare.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(bare.message.usage).toBeUndefined();
  });
});

describe('createOpenAICompatibleClient: errors', () => {
  it('maps a context overflow to a ModelCallError the overflow check recognises, with its figures', async () => {
    server.enqueue(openAIErrors.contextLengthExceeded({ limit: 128_000, requested: 140_000 }));
    const error = await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl })
      .complete(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    const callError = error as ModelCallError;
    expect(callError.code).toBe('model_call_failed');
    expect(callError.status).toBe(400);
    expect(callError.providerCode).toBe('context_length_exceeded');
    expect(callError.providerType).toBe('invalid_request_error');
    expect(callError.message).toContain("This model's maximum context length is 128000 tokens.");
    expect(isContextOverflow(callError)).toBe(true);
    expect(parseOverflowTokens(callError)).toEqual({ requested: 140_000, limit: 128_000 });
  });

  it.each([
    ['TPM rate limit', openAIErrors.rateLimitTokens(), 429, 'rate_limit_exceeded'],
    ['request too large for TPM', openAIErrors.requestTooLargeForTpm(), 429, 'rate_limit_exceeded'],
    ['quota', openAIErrors.insufficientQuota(), 429, 'insufficient_quota'],
    ['bad key', openAIErrors.invalidApiKey(), 401, 'invalid_api_key'],
  ])('maps %s, which is not an overflow', async (_name, reply, status, code) => {
    server.enqueue(reply);
    const error = (await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.status).toBe(status);
    expect(error.providerCode).toBe(code);
    expect(isContextOverflow(error)).toBe(false);
  });

  it('treats a 200 carrying an error body as the error it is', async () => {
    server.enqueue({
      body: { error: { code: 400, message: "This endpoint's maximum context length is 8192 tokens." } },
    });
    const error = (await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.status).toBe(400);
    expect(isContextOverflow(error)).toBe(true);
  });

  it('keeps a non-JSON error body as the message', async () => {
    server.enqueue({ status: 502, body: '<html>Bad Gateway</html>' });
    const error = (await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.status).toBe(502);
    expect(error.message).toContain('<html>Bad Gateway</html>');
  });

  it('maps a connection failure to a ModelCallError without status', async () => {
    const url = server.url;
    await server.close();
    const error = (await createOpenAICompatibleClient({ baseUrl: `${url}/v1`, maxRetries: 0 })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.status).toBeUndefined();
  });
});

describe('createOpenAICompatibleClient: abort and timeout', () => {
  it('stops when the caller aborts, with a typed error', async () => {
    server.enqueue({ ...openAIReply(), delayMs: 30_000 });
    const controller = new AbortController();
    const pending = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl }).complete({
      ...request,
      signal: controller.signal,
    });
    await waitFor(() => server.requests.length === 1);
    controller.abort(new Error('user pressed ctrl-c'));
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallAbortedError);
    expect((error as ModelCallAbortedError).code).toBe('model_call_aborted');
    expect(((error as ModelCallAbortedError).reason as Error).message).toBe('user pressed ctrl-c');
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl })
      .complete({ ...request, signal: AbortSignal.abort() })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it('times out with a typed error', async () => {
    server.enqueue({ ...openAIReply(), delayMs: 30_000 });
    const started = Date.now();
    const error = await createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, timeoutMs: 100 })
      .complete(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as ModelTimeoutError).code).toBe('model_timeout');
    expect((error as ModelTimeoutError).timeoutMs).toBe(100);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('times out even through a fetch that ignores its signal', async () => {
    const neverAnswers: typeof fetch = () => new Promise<Response>(() => {});
    const error = await createOpenAICompatibleClient({
      baseUrl: 'http://127.0.0.1:1/v1',
      fetch: neverAnswers,
      timeoutMs: 50,
    })
      .complete(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTimeoutError);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The `messages` of the n-th request the server received. */
function sentMessages(index: number): unknown[] {
  const body = server.requests[index]?.body as { messages?: unknown[] } | undefined;
  return body?.messages ?? [];
}
