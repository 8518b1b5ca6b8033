import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelCallAbortedError, ModelCallError, ModelTimeoutError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { anthropicErrors } from '../testing/fake-provider-server-errors.ts';
import { anthropicReply } from '../testing/fake-provider-server-replies.ts';
import {
  createAnthropicClient,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_ANTHROPIC_VERSION,
} from './anthropic-client.ts';
import { isContextOverflow, parseOverflowTokens } from './is-context-overflow.ts';
import type { ModelRequest } from './model-client.ts';

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
    { type: 'reasoning', text: 'Two files, read both.', signature: 'EqQBCkYIBxgCKkD…' },
    { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy…' },
    { type: 'text', text: 'Reading both.' },
    { type: 'tool-call', callId: 'toolu_a', name: 'read', args: '{"path":"a.ts"}' },
    { type: 'tool-call', callId: 'toolu_b', name: 'read', args: '{"path":"b.ts"}' },
  ]),
  msg(2, 'tool', [{ type: 'tool-result', callId: 'toolu_a', name: 'read', content: 'A', isError: false }]),
  msg(3, 'tool', [
    { type: 'tool-result', callId: 'toolu_b', name: 'read', content: 'no such file', isError: true },
  ]),
  msg(4, 'user', [{ type: 'text', text: 'and summarise' }]),
];

const request: ModelRequest = {
  model: 'claude-sonnet-4-5',
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
  maxOutputTokens: 1024,
};

describe('createAnthropicClient: request', () => {
  it('POSTs /v1/messages with x-api-key, anthropic-version and the Messages body', async () => {
    server.enqueue(anthropicReply({ text: 'ok' }));
    await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'sk-ant-test' }).complete(
      request,
    );

    const sent = server.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe('sk-ant-test');
    expect(sent?.headers['anthropic-version']).toBe(DEFAULT_ANTHROPIC_VERSION);
    expect(DEFAULT_ANTHROPIC_VERSION).toBe('2023-06-01');
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'read a.ts and b.ts' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two files, read both.', signature: 'EqQBCkYIBxgCKkD…' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy…' },
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a.ts' } },
            { type: 'tool_use', id: 'toolu_b', name: 'read', input: { path: 'b.ts' } },
          ],
        },
        {
          // Both results and the user's next words in one user turn: roles alternate.
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
            { type: 'tool_result', tool_use_id: 'toolu_b', content: 'no such file', is_error: true },
            { type: 'text', text: 'and summarise' },
          ],
        },
      ],
      tools: [
        {
          name: 'read',
          description: 'Read a file',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
        { name: 'now', input_schema: { type: 'object', properties: {} } },
      ],
    });
  });

  it('defaults max_tokens (required by the API), takes a custom version, tolerates a /v1 base URL', async () => {
    server.enqueue(anthropicReply());
    await createAnthropicClient({
      baseUrl: `${server.anthropicBaseUrl}/v1/`,
      apiKey: 'k',
      version: '2024-01-01',
      headers: { 'anthropic-beta': 'files-api-2025-04-14' },
    }).complete({ model: 'claude-haiku-4-5', messages: [history[0] as Message] });
    const sent = server.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['anthropic-version']).toBe('2024-01-01');
    expect(sent?.headers['anthropic-beta']).toBe('files-api-2025-04-14');
    expect(sent?.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages: [{ role: 'user', content: 'read a.ts and b.ts' }],
    });
  });

  it('drops what the live API rejects: unsigned reasoning, blank text, emptied and hidden messages', async () => {
    server.enqueue(anthropicReply());
    await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).complete({
      model: 'claude-sonnet-4-5',
      messages: [
        msg(0, 'user', [
          { type: 'text', text: 'hi' },
          { type: 'text', text: '  ' },
        ]),
        // Reasoning from an OpenAI-compatible model has no signature: it cannot be echoed to Anthropic.
        msg(1, 'assistant', [{ type: 'reasoning', text: 'deepseek thoughts' }]),
        msg(2, 'assistant', [
          { type: 'reasoning', text: 'more' },
          { type: 'text', text: 'Hello.' },
        ]),
        msg(3, 'user', [{ type: 'text', text: 'secret' }], { agentVisible: false }),
        msg(4, 'user', [{ type: 'text', text: 'bye' }]),
      ],
    });
    expect(sentMessages(0)).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'bye' },
    ]);
  });
});

describe('createAnthropicClient: the SDK underneath', () => {
  it('sends no credentials without a key, not even those in the environment', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-from-env');
    vi.stubEnv('ANTHROPIC_AUTH_TOKEN', 'token-from-env');
    server.enqueue(anthropicReply());
    await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: '' }).complete({
      model: 'claude-haiku-4-5',
      messages: [history[0] as Message],
    });
    const sent = server.requests[0];
    expect(sent?.headers['x-api-key']).toBeUndefined();
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.headers['anthropic-version']).toBe(DEFAULT_ANTHROPIC_VERSION);
    expect(JSON.stringify(sent?.headers)).not.toContain('from-env');
  });

  it('retries a 529 as the SDK does by default (the error tests turn them off)', async () => {
    server.enqueue(anthropicErrors.overloaded(), anthropicReply({ text: 'there' }));
    const response = await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).complete({
      model: 'claude-haiku-4-5',
      messages: [history[0] as Message],
    });
    expect(response.message.parts).toEqual([{ type: 'text', text: 'there' }]);
    expect(server.requests).toHaveLength(2);
  });

  it('surfaces stop_reason model_context_window_exceeded unchanged', async () => {
    server.enqueue(anthropicReply({ text: 'cut', stopReason: 'model_context_window_exceeded' }));
    const response = await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).complete({
      model: 'claude-haiku-4-5',
      messages: [history[0] as Message],
    });
    expect(response.stopReason).toBe('model_context_window_exceeded');
  });

  it('has no served window to ask about', () => {
    expect(
      createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).servedContextWindow,
    ).toBeUndefined();
  });
});

describe('createAnthropicClient: response', () => {
  it('converts content blocks, stop_reason and usage with cache figures', async () => {
    server.enqueue(
      anthropicReply({
        id: 'msg_01abc',
        model: 'claude-sonnet-4-5-20250929',
        content: [
          { type: 'thinking', thinking: 'Need c.ts.', signature: 'sig-c' },
          { type: 'text', text: 'Reading c.ts.' },
          { type: 'tool_use', id: 'toolu_c', name: 'read', input: { path: 'c.ts' } },
        ],
        usage: {
          inputTokens: 50,
          outputTokens: 120,
          cacheReadInputTokens: 9000,
          cacheCreationInputTokens: 300,
        },
      }),
    );
    const response = await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).complete(
      request,
    );
    // input_tokens excludes cached input; ctxkit's inputTokens is the whole prompt: 50 + 9000 + 300.
    const usage = { inputTokens: 9350, outputTokens: 120, cacheReadTokens: 9000, cacheWriteTokens: 300 };
    expect(response).toEqual({
      message: {
        id: 'msg_01abc',
        seq: 0,
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Need c.ts.', signature: 'sig-c' },
          { type: 'text', text: 'Reading c.ts.' },
          { type: 'tool-call', callId: 'toolu_c', name: 'read', args: '{"path":"c.ts"}' },
        ],
        meta: { model: 'claude-sonnet-4-5-20250929' },
        usage,
      },
      usage,
      stopReason: 'tool_use',
      model: 'claude-sonnet-4-5-20250929',
    });
  });

  it('round-trips a tool call and echoes the thinking block with its signature', async () => {
    server.enqueue(
      anthropicReply({
        content: [
          { type: 'thinking', thinking: 'Check x.', signature: 'sig-x-opaque' },
          { type: 'tool_use', id: 'toolu_x', name: 'read', input: { path: 'x.ts', lines: [1, 2] } },
        ],
      }),
      anthropicReply({ text: 'x.ts has two lines.' }),
    );
    const client = createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' });
    const first = await client.complete({ model: 'claude-sonnet-4-5', messages: [history[0] as Message] });
    const result = msg(2, 'tool', [
      { type: 'tool-result', callId: 'toolu_x', name: 'read', content: 'l1\nl2', isError: false },
    ]);
    const second = await client.complete({
      model: 'claude-sonnet-4-5',
      messages: [history[0] as Message, { ...first.message, seq: 1 }, result],
    });
    expect(second.stopReason).toBe('end_turn');
    expect(sentMessages(1).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Check x.', signature: 'sig-x-opaque' },
          { type: 'tool_use', id: 'toolu_x', name: 'read', input: { path: 'x.ts', lines: [1, 2] } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'l1\nl2' }] },
    ]);
  });

  it('skips block types it does not model (server tools) instead of failing', async () => {
    server.enqueue({
      body: {
        ...(anthropicReply({ text: 'Found it.' }).body as object),
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          { type: 'text', text: 'Found it.' },
        ],
      },
    });
    const response = await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).complete(
      request,
    );
    expect(response.message.parts).toEqual([{ type: 'text', text: 'Found it.' }]);
  });
});

describe('createAnthropicClient: errors', () => {
  it('maps "prompt is too long" to an overflow, with its figures', async () => {
    server.enqueue(anthropicErrors.promptTooLong({ tokens: 210_000, limit: 200_000 }));
    const error = (await createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.status).toBe(400);
    expect(error.providerType).toBe('invalid_request_error');
    expect(error.providerCode).toBeUndefined();
    expect(error.message).toContain('prompt is too long: 210000 tokens > 200000 maximum');
    expect(isContextOverflow(error)).toBe(true);
    expect(parseOverflowTokens(error)).toEqual({ requested: 210_000, limit: 200_000 });
  });

  it('maps input + max_tokens over the window and 413 request_too_large to overflows', async () => {
    server.enqueue(
      anthropicErrors.contextLimitExceeded({ input: 190_000, maxTokens: 20_000 }),
      anthropicErrors.requestTooLarge(),
    );
    const client = createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' });
    const limit = (await client.complete(request).catch((caught: unknown) => caught)) as ModelCallError;
    expect(isContextOverflow(limit)).toBe(true);
    expect(parseOverflowTokens(limit)).toEqual({ requested: 210_000, limit: 200_000, completion: 20_000 });
    const tooLarge = (await client.complete(request).catch((caught: unknown) => caught)) as ModelCallError;
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.providerType).toBe('request_too_large');
    expect(isContextOverflow(tooLarge)).toBe(true);
  });

  it.each([
    ['rate limit', anthropicErrors.rateLimit(), 429, 'rate_limit_error'],
    ['overloaded', anthropicErrors.overloaded(), 529, 'overloaded_error'],
    ['bad key', anthropicErrors.authentication(), 401, 'authentication_error'],
  ])('maps %s, which is not an overflow', async (_name, reply, status, type) => {
    server.enqueue(reply);
    const error = (await createAnthropicClient({
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'k',
      maxRetries: 0,
    })
      .complete(request)
      .catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.status).toBe(status);
    expect(error.providerType).toBe(type);
    expect(error.details.body).toMatchObject({ type: 'error', request_id: expect.stringMatching(/^req_/) });
    expect(isContextOverflow(error)).toBe(false);
  });
});

describe('createAnthropicClient: abort and timeout', () => {
  it('stops when the caller aborts', async () => {
    server.enqueue({ ...anthropicReply(), delayMs: 30_000 });
    const controller = new AbortController();
    const pending = createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' }).complete({
      ...request,
      signal: controller.signal,
    });
    await waitFor(() => server.requests.length === 1);
    controller.abort();
    expect(await pending.catch((caught: unknown) => caught)).toBeInstanceOf(ModelCallAbortedError);
  });

  it('times out with a typed error', async () => {
    server.enqueue({ ...anthropicReply(), delayMs: 30_000 });
    const error = await createAnthropicClient({
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'k',
      timeoutMs: 100,
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
