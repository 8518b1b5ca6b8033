import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { fromOpenAIChat } from '../adapters/openai-chat.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import { RequestMeasurer } from '../replay/measure-request.ts';
import type { HttpReply, RecordedRequest } from '../testing/fake-provider-server.ts';
import { anthropicErrors, openAIErrors } from '../testing/fake-provider-server-errors.ts';
import { anthropicReply, openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';

const KEY = 'sk-test-SECRETKEY-0123456789';
let harness: ProxyHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startProxyHarness>[0] = {}): Promise<ProxyHarness> {
  harness = await startProxyHarness(options);
  return harness;
}

const modelRequests = (h: ProxyHarness): RecordedRequest[] =>
  h.upstream.requests.filter((request) => request.format !== 'unknown');

/** A conversation whose last tool result is far larger than a 16k window: it is offloaded on arrival. */
function bigToolConversation(): unknown[] {
  const lines = Array.from({ length: 4000 }, (_, index) => `line ${index}: value_${index * 7} ok`);
  lines[2345] = 'line 2345: NEEDLE_7f3a the answer is 42';
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find the needle in the log.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: lines.join('\n') },
  ];
}

const tools = [
  {
    type: 'function',
    function: {
      name: 'read_log',
      description: 'read the log',
      parameters: { type: 'object', properties: {} },
    },
  },
];

describe('the OpenAI route', () => {
  it('forwards the client body with its unknown fields, and the client key, to the upstream', async () => {
    const h = await start();
    h.upstream.enqueue(openAIReply({ content: 'done' }));
    const body = {
      model: 'gpt-4o',
      temperature: 0.3,
      user: 'u-1',
      metadata: { team: 'a' },
      custom_vendor_field: { nested: [1, 2] },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi', name: 'alice' },
      ],
    };
    const response = await postJson(`${h.proxy.url}/v1/chat/completions`, body, {
      authorization: `Bearer ${KEY}`,
    });
    expect(response.status).toBe(200);
    expect(
      (response.json as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content,
    ).toBe('done');
    const sent = modelRequests(h)[0];
    expect(sent?.body).toEqual(body);
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(response.headers.get('x-ctxkit-session')).toMatch(/^conv_/);
    expect(Number(response.headers.get('x-ctxkit-input-tokens'))).toBeGreaterThan(0);
    expect(response.headers.get('x-ctxkit-edits')).toBe('0');
  });

  it('sends only what fits the window and answers read-backs itself (not streamed)', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    let readRef: string | undefined;
    h.upstream.enqueue(
      (request) => {
        const text = JSON.stringify(request.body);
        readRef = /large_tool_results\/[A-Za-z0-9_-]+/.exec(text)?.[0];
        return openAIReply({
          content: null,
          toolCalls: [
            {
              id: 'call_rb',
              name: READ_OFFLOADED_TOOL,
              arguments: JSON.stringify({ ref: readRef, search: 'NEEDLE' }),
            },
          ],
        });
      },
      (request) => {
        const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
        const result = messages.at(-1);
        return openAIReply({
          content: `found: ${String(result?.content).includes('NEEDLE_7f3a the answer is 42')}`,
        });
      },
    );
    const client = new OpenAI({ baseURL: `${h.proxy.url}/v1`, apiKey: KEY });
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: bigToolConversation() as never, tools: tools as never })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('found: true');
    expect(data.choices[0]?.message.tool_calls).toBeUndefined();
    const [first, second] = modelRequests(h);
    expect(readRef).toBeDefined();
    // The first request offered the read-back tool beside the client's own and pointed at the offloaded log.
    const firstBody = first?.body as { tools: Array<{ function: { name: string } }> } | undefined;
    const firstTools = firstBody?.tools.map((t) => t.function.name);
    expect(firstTools).toEqual(['read_log', READ_OFFLOADED_TOOL]);
    expect(first?.rawBody.length).toBeLessThan(40_000);
    expect(second?.rawBody).toContain('NEEDLE_7f3a');
    expect(Number(response.headers.get('x-ctxkit-tokens-saved'))).toBeGreaterThan(10_000);
  });

  it('streams the answer after a read-back round as one message', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    h.upstream.enqueue(
      (request) => {
        const ref = /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(request.body))?.[0];
        return openAIReply({
          content: 'Let me read it. ',
          toolCalls: [{ name: READ_OFFLOADED_TOOL, arguments: JSON.stringify({ ref, search: 'NEEDLE' }) }],
        });
      },
      openAIReply({ content: 'The answer is 42.' }),
    );
    const client = new OpenAI({ baseURL: `${h.proxy.url}/v1`, apiKey: KEY });
    const stream = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: bigToolConversation() as never,
      tools: tools as never,
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Let me read it. The answer is 42.');
    expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(final.choices[0]?.finish_reason).toBe('stop');
    expect(modelRequests(h)).toHaveLength(2);
    expect(modelRequests(h)[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('recovers an overflow the upstream reports and retries once, fitted to the limit it names, before the client sees anything', async () => {
    const h = await start({ contextWindow: 128_000, detectWindow: false });
    h.upstream.enqueue(
      openAIErrors.contextLengthExceeded({ limit: 3_000, requested: 9_000 }),
      openAIReply({ content: 'ok' }),
    );
    const notes = Array.from({ length: 14 }, (_, index) => [
      {
        role: 'user',
        content: `note ${index}: ${Array.from({ length: 150 }, (_, word) => `w${index}_${word}`).join(' ')}`,
      },
      { role: 'assistant', content: `noted ${index}` },
    ]).flat();
    const messages = [...notes, { role: 'user', content: 'what was in note 13?' }];
    const response = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'gpt-4o', messages },
      { authorization: `Bearer ${KEY}` },
    );
    expect(response.status).toBe(200);
    const [first, second] = modelRequests(h);
    expect(first?.body).toEqual({ model: 'gpt-4o', messages });
    // The retry fits the named window the way any request does: the newest turns whole, the older ones
    // summarized (not simply dropped).
    const retried = second?.body as { messages: Array<{ role: string; content: string }> };
    expect(second?.rawBody.length).toBeLessThan((first?.rawBody.length ?? 0) / 2);
    expect(retried.messages.at(-1)?.content).toBe('what was in note 13?');
    expect(JSON.stringify(retried.messages)).toContain('w13_149');
    expect(JSON.stringify(retried.messages)).toMatch(/summary/i);
    expect(response.headers.get('x-ctxkit-context-window')).toBe('3000');
  });

  it('recovers an overflow sent as an error event at the start of a stream', async () => {
    const h = await start({ contextWindow: 128_000, detectWindow: false });
    const overflow: HttpReply = {
      events: [
        {
          data: JSON.stringify(openAIErrors.contextLengthExceeded({ limit: 8_000, requested: 20_000 }).body),
        },
      ],
    };
    h.upstream.enqueue(overflow, openAIReply({ content: 'streamed fine' }));
    const client = new OpenAI({ baseURL: `${h.proxy.url}/v1`, apiKey: KEY });
    let text = '';
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: bigToolConversation() as never,
    });
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('streamed fine');
    expect(modelRequests(h)).toHaveLength(2);
  });

  it('passes any other upstream error through unchanged, status and body, without retrying', async () => {
    const h = await start();
    const limited = openAIErrors.rateLimitTokens();
    h.upstream.enqueue(limited);
    const response = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(429);
    expect(response.json).toEqual(limited.body);
    expect(modelRequests(h)).toHaveLength(1);
  });

  it('answers a malformed body with a 400 in the OpenAI shape naming the field', async () => {
    const h = await start();
    const bad = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'wizard', content: 'x' },
      ],
    });
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { message: string; type: string } }).error.message).toContain('messages[1]');
    expect((bad.json as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const notJson = await postJson(`${h.proxy.url}/v1/chat/completions`, '{"model": ');
    expect(notJson.status).toBe(400);
    const noModel = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'x' }],
    });
    expect((noModel.json as { error: { message: string } }).error.message).toMatch(/^model/);
    expect(modelRequests(h)).toHaveLength(0);
  });

  it('refuses a body over the bound with a 413 before reading it whole', async () => {
    const h = await start({ maxBodyBytes: 10_000 });
    const response = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x'.repeat(20_000) }],
    });
    expect(response.status).toBe(413);
    expect((response.json as { error: { message: string } }).error.message).toContain('10000 bytes');
  });
});

describe('the Anthropic route', () => {
  it('keeps the client blocks ctxkit does not model, and its cache_control, byte for byte', async () => {
    const h = await start();
    h.upstream.enqueue(anthropicReply({ text: 'hello' }));
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      metadata: { user_id: 'u1' },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'search this', cache_control: { type: 'ephemeral' } },
            {
              type: 'search_result',
              source: 'https://x',
              title: 't',
              content: [{ type: 'text', text: 'r' }],
            },
          ],
        },
      ],
    };
    const response = await postJson(`${h.proxy.url}/v1/messages`, body, {
      'x-api-key': KEY,
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    expect(modelRequests(h)[0]?.body).toEqual(body);
    expect(modelRequests(h)[0]?.headers['x-api-key']).toBe(KEY);
  });

  it('streams a read-back round into one message whose blocks the SDK numbers without gaps', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    h.upstream.enqueue(
      (request) => {
        const ref = /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(request.body))?.[0];
        return anthropicReply({
          content: [
            { type: 'text', text: 'Reading. ' },
            { type: 'tool_use', name: READ_OFFLOADED_TOOL, input: { ref, search: 'NEEDLE' } },
          ],
        });
      },
      (request) => {
        const messages = (request.body as { messages: Array<{ content: unknown }> }).messages;
        const found = JSON.stringify(messages.at(-1)).includes('NEEDLE_7f3a');
        return anthropicReply({
          content: [
            { type: 'text', text: `Found: ${found}.` },
            { type: 'tool_use', name: 'read_log', input: {} },
          ],
        });
      },
    );
    const lines = Array.from({ length: 4000 }, (_, index) => `line ${index}: value_${index * 7} ok`);
    lines[2345] = 'line 2345: NEEDLE_7f3a the answer is 42';
    const client = new Anthropic({ baseURL: h.proxy.url, apiKey: KEY });
    const final = await client.messages
      .stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        tools: [
          { name: 'read_log', description: 'read the log', input_schema: { type: 'object', properties: {} } },
        ],
        messages: [
          { role: 'user', content: 'Find the needle.' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_log', input: {} }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: lines.join('\n') }],
          },
        ],
      })
      .finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['text', 'text', 'tool_use']);
    expect(
      final.content.map((block) =>
        block.type === 'text' ? block.text : block.type === 'tool_use' ? block.name : block.type,
      ),
    ).toEqual(['Reading. ', 'Found: true.', 'read_log']);
    expect(final.stop_reason).toBe('tool_use');
  });

  it('recovers an overflow error event at the start of a stream', async () => {
    const h = await start({ contextWindow: 200_000, detectWindow: false });
    h.upstream.enqueue(
      {
        events: [
          {
            event: 'error',
            data: JSON.stringify(anthropicErrors.promptTooLong({ tokens: 30_000, limit: 10_000 }).body),
          },
        ],
      },
      anthropicReply({ text: 'recovered' }),
    );
    const client = new Anthropic({ baseURL: h.proxy.url, apiKey: KEY });
    const lines = Array.from({ length: 3000 }, (_, index) => `row ${index} ${'z'.repeat(20)}`).join('\n');
    const final = await client.messages
      .stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: [
          { role: 'user', content: `look at this: ${lines}` },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'summarize' },
        ],
      })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(modelRequests(h)).toHaveLength(2);
  });

  it('sends thinking the upstream issued back as it came, and passes on its refusal of thinking it did not', async () => {
    const h = await start({ expectRefusals: true });
    h.upstream.enqueue(
      anthropicReply({
        content: [
          { type: 'thinking', thinking: 'The log is long; read it.' },
          { type: 'tool_use', id: 'toolu_log', name: 'read_log', input: {} },
        ],
      }),
      anthropicReply({ text: 'done' }),
    );
    const client = new Anthropic({ baseURL: h.proxy.url, apiKey: KEY, maxRetries: 0 });
    const params = {
      model: 'claude-sonnet-4-6',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [{ name: 'read_log', input_schema: { type: 'object' as const, properties: {} } }],
    };
    const ask = { role: 'user' as const, content: 'Find the needle.' };
    const first = await client.messages.create({ ...params, messages: [ask] });
    const loop = (content: typeof first.content) => [
      ask,
      { role: 'assistant' as const, content },
      {
        role: 'user' as const,
        content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_log', content: 'no needle here' }],
      },
    ];
    const second = await client.messages.create({ ...params, messages: loop(first.content) });
    expect(second.content).toEqual([{ type: 'text', text: 'done' }]);

    const [thinking, call] = first.content;
    if (thinking?.type !== 'thinking' || call === undefined) throw new Error('no thinking');
    const changed = client.messages.create({
      ...params,
      messages: loop([{ ...thinking, thinking: `${thinking.thinking} Then grep it.` }, call]),
    });
    await expect(changed).rejects.toMatchObject({
      status: 400,
      error: { error: { message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } },
    });
    expect(modelRequests(h).map((request) => request.refusal)).toEqual([
      undefined,
      undefined,
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ]);
  });

  it('answers a malformed body with a 400 in the Anthropic shape naming the field', async () => {
    const h = await start();
    const response = await postJson(`${h.proxy.url}/v1/messages`, {
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'tool_result' }] }],
    });
    expect(response.status).toBe(400);
    const error = response.json as { type: string; error: { type: string; message: string } };
    expect(error.type).toBe('error');
    expect(error.error.type).toBe('invalid_request_error');
    expect(error.error.message).toContain('messages[0].content[0].tool_use_id');
  });
});

describe('sessions', () => {
  const openAI = (h: ProxyHarness, messages: unknown[], headers: Record<string, string> = {}) =>
    postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'gpt-4o', messages },
      { authorization: `Bearer ${KEY}`, ...headers },
    );

  it('continues a resent conversation, and starts a new session for a different one or a fork', async () => {
    const h = await start();
    h.upstream.setFallback((request) =>
      openAIReply({ content: `reply ${(request.body as { messages: unknown[] }).messages.length}` }),
    );
    const first = await openAI(h, [{ role: 'user', content: 'hello' }]);
    const id = first.headers.get('x-ctxkit-session');
    const reply = (first.json as { choices: Array<{ message: unknown }> }).choices[0]?.message;
    const second = await openAI(h, [
      { role: 'user', content: 'hello' },
      reply,
      { role: 'user', content: 'more' },
    ]);
    expect(second.headers.get('x-ctxkit-session')).toBe(id);
    const other = await openAI(h, [{ role: 'user', content: 'a different conversation' }]);
    expect(other.headers.get('x-ctxkit-session')).not.toBe(id);
    // An edited last message forks: the original conversation keeps its session.
    const fork = await openAI(h, [
      { role: 'user', content: 'hello' },
      reply,
      { role: 'user', content: 'edited' },
    ]);
    expect(fork.headers.get('x-ctxkit-session')).not.toBe(id);
    const third = await openAI(h, [
      { role: 'user', content: 'hello' },
      reply,
      { role: 'user', content: 'more' },
      (second.json as { choices: Array<{ message: unknown }> }).choices[0]?.message,
      { role: 'user', content: 'and more' },
    ]);
    expect(third.headers.get('x-ctxkit-session')).toBe(id);
  });

  it('gives two identical conversations in flight at once two sessions', async () => {
    const h = await start();
    h.upstream.setFallback(() => ({ ...openAIReply({ content: 'slow' }), delayMs: 150 }));
    const [a, b] = await Promise.all([
      openAI(h, [{ role: 'user', content: 'same start' }]),
      openAI(h, [{ role: 'user', content: 'same start' }]),
    ]);
    expect(a.headers.get('x-ctxkit-session')).not.toBe(b.headers.get('x-ctxkit-session'));
  });

  it('uses the session the client names, and refuses a name that cannot be a header', async () => {
    const h = await start();
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const named = await openAI(h, [{ role: 'user', content: 'x' }], { 'x-ctxkit-session': 'my-session' });
    expect(named.headers.get('x-ctxkit-session')).toBe('my-session');
    const tooLong = await openAI(h, [{ role: 'user', content: 'x' }], {
      'x-ctxkit-session': 'a'.repeat(300),
    });
    expect(tooLong.status).toBe(400);
  });
});

describe('access and keys', () => {
  const TOKEN_A = 'token-a-0123456789abcdef';
  const TOKEN_B = 'token-b-0123456789abcdef';

  it('requires a token, keeps each token’s sessions apart, and uses the configured key for a token given as the key', async () => {
    const h = await start({ tokens: [TOKEN_A, TOKEN_B], upstreamKeys: { openai: KEY } });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const url = `${h.proxy.url}/v1/chat/completions`;
    const body = (text: string) => ({ model: 'gpt-4o', messages: [{ role: 'user', content: text }] });
    const refused = await postJson(url, body('no token'));
    expect(refused.status).toBe(401);
    expect((refused.json as { error: { type: string } }).error.type).toBe('authentication_error');
    const wrong = await postJson(url, body('wrong'), { authorization: 'Bearer not-a-token-at-all-xx' });
    expect(wrong.status).toBe(401);

    const a = await postJson(url, body('secret plan of A'), {
      authorization: `Bearer ${TOKEN_A}`,
      'x-ctxkit-session': 'shared-name',
    });
    expect(a.status).toBe(200);
    expect(modelRequests(h)[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const b = await postJson(url, body('B writes here'), {
      'x-ctxkit-token': TOKEN_B,
      'x-ctxkit-session': 'shared-name',
    });
    expect(b.status).toBe(200);
    // The same name under another token is another session: B's request carried nothing of A's.
    expect(modelRequests(h)[1]?.rawBody).not.toContain('secret plan of A');
    expect(modelRequests(h)[1]?.headers['x-ctxkit-token']).toBeUndefined();
  });

  it('never puts a key in the log, the records or a response', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    h.upstream.enqueue(
      openAIErrors.contextLengthExceeded(),
      openAIReply({ content: 'ok' }),
      openAIErrors.rateLimitTokens(),
    );
    const headers = { authorization: `Bearer ${KEY}` };
    const ok = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'gpt-4o', messages: bigToolConversation() },
      headers,
    );
    const failed = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      headers,
    );
    const bad = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'gpt-4o', messages: 'nope' },
      headers,
    );
    await h.manager.flushTrace();
    const sessions = await h.store.list();
    const records = await Promise.all(
      sessions.map(async (session) => JSON.stringify(await h.store.load(session.id))),
    );
    const trace = await h.trace.exportJsonl();
    for (const text of [
      h.logs.join(''),
      records.join(''),
      trace,
      ok.text,
      failed.text,
      bad.text,
      JSON.stringify([...ok.headers]),
    ])
      expect(text).not.toContain('SECRETKEY');
    expect(h.logs.length).toBeGreaterThan(0);
  });
});

describe('the window and the count', () => {
  it('takes the window the upstream serves the model with', async () => {
    const h = await start({
      upstreamOptions: { servedWindows: { ollamaShow: { 'local-coder': { numCtx: 12_288 } } } },
    });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const response = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'local-coder',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.headers.get('x-ctxkit-context-window')).toBe('12288');
  });

  it('sends a model nobody knows the window of as it is, until an overflow names the limit', async () => {
    const h = await start({ detectWindow: false });
    h.upstream.enqueue(
      openAIReply({ content: 'first' }),
      openAIErrors.contextLengthExceeded({ limit: 3_000, requested: 9_000 }),
      openAIReply({ content: 'second' }),
      openAIReply({ content: 'third' }),
    );
    const notes = Array.from({ length: 12 }, (_, index) => ({
      role: 'user',
      content: `note ${index}: ${Array.from({ length: 120 }, (_, word) => `w${index}_${word}`).join(' ')}`,
    }));
    const messages: unknown[] = [];
    const send = async () =>
      postJson(
        `${h.proxy.url}/v1/chat/completions`,
        { model: 'mystery-model', messages },
        { 'x-ctxkit-session': 'm' },
      );
    messages.push(...notes.slice(0, 6));
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ctxkit-context-window')).toBeNull();
    expect(modelRequests(h)[0]?.body).toEqual({ model: 'mystery-model', messages });
    messages.push({ role: 'assistant', content: 'first' }, ...notes.slice(6));
    const second = await send();
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ctxkit-context-window')).toBe('3000');
    expect(modelRequests(h)[2]?.rawBody.length).toBeLessThan(modelRequests(h)[1]?.rawBody.length ?? 0);
    messages.push({ role: 'assistant', content: 'second' }, { role: 'user', content: 'go on' });
    const third = await send();
    expect(third.headers.get('x-ctxkit-context-window')).toBe('3000');
    expect(modelRequests(h)).toHaveLength(4);
    expect(h.logs.filter((line) => line.includes('the window of this model is unknown'))).toHaveLength(1);
  });

  it('refuses, in the client’s format, a reply reserve larger than the window', async () => {
    const h = await start();
    const response = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'gpt-4o',
      max_tokens: 500_000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(400);
    expect((response.json as { error: { message: string } }).error.message).toContain('max_tokens');
  });

  it.each([1.6, 2.5])(
    'learns from reported usage a model that counts %s× o200k, and keeps its requests inside the window',
    async (ratio) => {
      const window = 6_000;
      const exact = createExactCounter('o200k');
      const measurer = new RequestMeasurer({
        ...exact,
        count: (text: string) => Math.ceil(exact.count(text) * ratio),
      });
      const measured: number[] = [];
      let over = 0;
      const h = await start({
        upstreamOptions: { servedWindows: { ollamaShow: { 'local-coder': { numCtx: window } } } },
      });
      h.upstream.setFallback((request) => {
        const body = request.body as { messages: unknown[]; max_tokens?: number; tools?: never[] };
        const transcript = fromOpenAIChat(body.messages);
        const tokens = measurer.measure({
          system: transcript.system.join('\n\n'),
          messages: transcript.messages,
          tools: [],
        }).total;
        if (tokens + (body.max_tokens ?? 0) > window) {
          over++;
          return openAIErrors.contextLengthExceeded({ limit: window, requested: tokens });
        }
        measured.push(tokens);
        return openAIReply({ content: 'noted', usage: { promptTokens: tokens, completionTokens: 3 } });
      });
      const messages: unknown[] = [{ role: 'system', content: 'You are terse.' }];
      let edits = 0;
      let session: string | null = null;
      for (let call = 0; call < 30; call++) {
        const words = Array.from({ length: 180 }, (_, index) => `w${call}_${index}`).join(' ');
        messages.push({ role: 'user', content: `note ${call}: ${words}` });
        const response = await postJson(
          `${h.proxy.url}/v1/chat/completions`,
          { model: 'local-coder', max_tokens: 500, messages },
          { 'x-ctxkit-session': 'calibration' },
        );
        expect(response.status).toBe(200);
        edits += Number(response.headers.get('x-ctxkit-edits'));
        session = response.headers.get('x-ctxkit-session');
        messages.push((response.json as { choices: Array<{ message: unknown }> }).choices[0]?.message);
      }
      expect(session).toBe('calibration');
      // At most the first guess overflows: from then on reported usage sizes every request.
      expect(over).toBeLessThanOrEqual(1);
      expect(Math.max(...measured)).toBeLessThanOrEqual(window - 500);
      expect(edits).toBeGreaterThan(0);
      const stored = (await h.store.list()).find((entry) => entry.id.endsWith(':calibration'));
      const history = await h.manager.history(stored?.id ?? '');
      expect(history.edits.length).toBeGreaterThan(0);
    },
  );
});

describe('streams and other routes', () => {
  it('relays a stream as it arrives, and stops the upstream when the client goes away', async () => {
    const h = await start();
    h.upstream.enqueue({ ...openAIReply({ content: 'x'.repeat(400) }), eventDelayMs: 40 });
    const response = await fetch(`${h.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('data: ');
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(modelRequests(h)[0]?.clientAborted).toBe(true);
  });

  it('passes other /v1 requests to the upstream as they came', async () => {
    const h = await start({
      upstreamOptions: { servedWindows: { vllmModels: [{ id: 'served-model', maxModelLen: 4096 }] } },
    });
    const response = await fetch(`${h.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: Array<{ id: string }> }).data[0]?.id).toBe('served-model');
    expect(h.upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('a proxy that runs for long', () => {
  it('answers 502 in the client’s format when the upstream cannot be reached', async () => {
    const h = await start({ upstream: 'http://127.0.0.1:9/v1', upstreamAnthropic: 'http://127.0.0.1:9' });
    const openai = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(openai.status).toBe(502);
    expect((openai.json as { error: { message: string } }).error.message).toContain('could not be reached');
    const anthropic = await postJson(`${h.proxy.url}/v1/messages`, {
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(anthropic.status).toBe(502);
    expect((anthropic.json as { type: string }).type).toBe('error');
  });

  it('unloads idle sessions beyond the bound, and a conversation that comes back continues from the store', async () => {
    const h = await start({ maxLoadedSessions: 1 });
    h.upstream.setFallback((request) =>
      openAIReply({ content: `reply to ${(request.body as { messages: unknown[] }).messages.length}` }),
    );
    const send = (session: string, messages: unknown[]) =>
      postJson(
        `${h.proxy.url}/v1/chat/completions`,
        { model: 'gpt-4o', messages },
        { 'x-ctxkit-session': session },
      );
    const conversations = new Map<string, unknown[]>();
    for (let round = 0; round < 3; round++)
      for (const name of ['a', 'b', 'c']) {
        const messages = [...(conversations.get(name) ?? []), { role: 'user', content: `${name} ${round}` }];
        const response = await send(name, messages);
        expect(response.status).toBe(200);
        conversations.set(name, [
          ...messages,
          (response.json as { choices: Array<{ message: unknown }> }).choices[0]?.message,
        ]);
      }
    for (const name of ['a', 'b', 'c']) {
      const stored = (await h.store.list()).find((entry) => entry.id.endsWith(`:${name}`));
      const { log, edits } = await h.manager.history(stored?.id ?? '');
      // Nothing duplicated or lost across unloads: the log is the conversation as the client sent it, each
      // message once (the last reply enters with the client's next request), with the usage of each reply.
      expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
      expect(log.filter((message) => message.role === 'assistant').every((message) => message.usage)).toBe(
        true,
      );
      expect(edits.filter((edit) => edit.type === 'branch')).toEqual([]);
    }
  });
});

describe('read-back rounds', () => {
  const readCall = (request: RecordedRequest) =>
    JSON.stringify({ ref: /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(request.body))?.[0] });

  it('stops after the bound of rounds: the model’s last answer reaches the client without ctxkit’s call', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false, maxReadBackRounds: 2 });
    h.upstream.setFallback((request) =>
      openAIReply({
        content: 'still reading',
        toolCalls: [{ name: READ_OFFLOADED_TOOL, arguments: readCall(request) }],
      }),
    );
    const response = await postJson(`${h.proxy.url}/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: bigToolConversation(),
      tools,
    });
    expect(response.status).toBe(200);
    const choice = (
      response.json as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }> }
    ).choices[0];
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(choice?.message.content).toBe('still reading');
    expect(choice?.finish_reason).toBe('stop');
    expect(modelRequests(h)).toHaveLength(3);
  });

  it('leaves a read-back call beside the client’s own calls unanswered and out of the client’s answer', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    h.upstream.enqueue((request) =>
      openAIReply({
        content: null,
        toolCalls: [
          { id: 'call_mine', name: READ_OFFLOADED_TOOL, arguments: readCall(request) },
          { id: 'call_yours', name: 'read_log', arguments: '{}' },
        ],
      }),
    );
    const client = new OpenAI({ baseURL: `${h.proxy.url}/v1`, apiKey: KEY });
    const stream = client.chat.completions.stream({
      model: 'gpt-4o',
      messages: bigToolConversation() as never,
      tools: tools as never,
    });
    const final = await stream.finalChatCompletion();
    expect(
      final.choices[0]?.message.tool_calls?.map((call) => [
        call.id,
        call.type === 'function' && call.function.name,
      ]),
    ).toEqual([['call_yours', 'read_log']]);
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(modelRequests(h)).toHaveLength(1);
  });
});

describe('a session policy set through the REST API', () => {
  it('is the policy the model routes manage that session with; another session keeps the server’s', async () => {
    const h = await start({ contextWindow: 32_000, detectWindow: false });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const auth = { authorization: `Bearer ${KEY}` };
    // Summarize before each call at 10 % of the window (the server's: 85 % after a turn).
    const patched = await fetch(`${h.proxy.url}/api/sessions/tuned/policy`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({
        summarize: { trigger: 0.1, keepRecentTokens: 1_000, runOn: 'before_call' },
        clearing: { trigger: 0.05 },
      }),
    });
    // The session must exist first: created empty, then configured.
    expect(patched.status).toBe(404);
    for (const id of ['tuned', 'plain']) await postJson(`${h.proxy.url}/api/sessions`, { id }, auth);
    const configured = await fetch(`${h.proxy.url}/api/sessions/tuned/policy`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        summarize: { trigger: 0.1, keepRecentTokens: 1_000, runOn: 'before_call' },
        clearing: { trigger: 0.05 },
      }),
    });
    expect(configured.status).toBe(200);

    const messages: unknown[] = [];
    for (let turn = 0; turn < 12; turn++)
      messages.push(
        { role: 'user', content: `question ${turn}: ${'lorem ipsum dolor '.repeat(60)}` },
        { role: 'assistant', content: `answer ${turn}: ${'sit amet consectetur '.repeat(60)}` },
      );
    messages.push({ role: 'user', content: 'and now?' });
    const sent: Record<string, number> = {};
    for (const id of ['tuned', 'plain']) {
      const before = modelRequests(h).length;
      const response = await postJson(
        `${h.proxy.url}/v1/chat/completions`,
        // A model no profile knows: the server's window (32k) is its window.
        { model: 'house-model', messages },
        { ...auth, 'x-ctxkit-session': id },
      );
      expect(response.status, id).toBe(200);
      expect(response.headers.get('x-ctxkit-context-window'), id).toBe('32000');
      const request = modelRequests(h)[before];
      if (!request) throw new Error(`no model request for ${id}`);
      sent[id] = (request.body as { messages: unknown[] }).messages.length;
    }
    expect(sent.plain).toBe(messages.length);
    expect(sent.tuned).toBeLessThan(messages.length / 2);
  });

  it('refuses, with how to mend it, a session whose stored override no longer fits the server’s policy', async () => {
    const h = await start({ contextWindow: 32_000, detectWindow: false });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const auth = { authorization: `Bearer ${KEY}` };
    await postJson(`${h.proxy.url}/api/sessions`, { id: 'drifted' }, auth);
    const stored = (await h.manager.store.list()).find((listing) => listing.id.endsWith(':drifted'));
    if (!stored) throw new Error('no stored session');
    // Set under another server policy, say: clearing above this server's summarize trigger (0.85).
    await h.manager.store.setPolicyOverride(stored.id, { clearing: { trigger: 0.9 } }, Date.now());
    const chat = () =>
      postJson(
        `${h.proxy.url}/v1/chat/completions`,
        { model: 'house-model', messages: [{ role: 'user', content: 'hello' }] },
        { ...auth, 'x-ctxkit-session': 'drifted' },
      );
    const refused = await chat();
    expect(refused.status).toBe(409);
    const message = (refused.json as { error: { message: string } }).error.message;
    expect(message).toContain('clearing.trigger');
    expect(message).toContain('PATCH /api/sessions/drifted/policy');
    // The store's own id (the owner's digest) is not the client's business.
    expect(message).not.toContain(stored.id);
    const read = await fetch(`${h.proxy.url}/api/sessions/drifted/policy`, { headers: auth });
    expect(read.status).toBe(409);
    const mended = await fetch(`${h.proxy.url}/api/sessions/drifted/policy`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ clearing: null }),
    });
    expect(mended.status).toBe(200);
    expect((await chat()).status).toBe(200);
    // Or removed whole, without reading what it holds: DELETE …/policy.
    await h.manager.store.setPolicyOverride(stored.id, { clearing: { trigger: 0.9 } }, Date.now());
    h.manager.unload(stored.id);
    expect((await chat()).status).toBe(409);
    const removed = await fetch(`${h.proxy.url}/api/sessions/drifted/policy`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as { override: unknown }).override).toEqual({});
    expect((await chat()).status).toBe(200);
  });

  it('gives the session the window its own policy sets, before any model or server fallback', async () => {
    const h = await start({ contextWindow: 32_000, detectWindow: false });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const auth = { authorization: `Bearer ${KEY}` };
    await postJson(`${h.proxy.url}/api/sessions`, { id: 'small' }, auth);
    const patched = await fetch(`${h.proxy.url}/api/sessions/small/policy`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ budget: { contextWindow: 6_000 } }),
    });
    expect(patched.status).toBe(200);
    for (const id of ['small', 'other']) {
      const response = await postJson(
        `${h.proxy.url}/v1/chat/completions`,
        { model: 'house-model', messages: [{ role: 'user', content: 'hello' }] },
        { ...auth, 'x-ctxkit-session': id },
      );
      expect(response.status, id).toBe(200);
      expect(response.headers.get('x-ctxkit-context-window'), id).toBe(id === 'small' ? '6000' : '32000');
    }
  });
});
