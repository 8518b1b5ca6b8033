/**
 * No key reaches a client through the proxy, whoever's it is: an upstream that quotes the key it was
 * sent (in a 401's body, an answer, a stream with the key split across two writes, a passed-through
 * route, a response header) is relayed with the key replaced, and the rest of what it said intact. Driven
 * with the official `openai` and `@anthropic-ai/sdk` clients over real HTTP, for a client sending its own
 * key, a client sending none (the server's keys go upstream) and a client holding a proxy token (the
 * configured key goes upstream).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { createMemoryTraceStore } from '../store/trace-store.ts';
import { anthropicRefusalBody } from '../testing/anthropic-request-rules.ts';
import { REDACTED } from './redact-keys.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';
import { capturingLogger } from './testing/capturing-logger.ts';

const CLIENT_OPENAI_KEY = 'sk-proj-redactionClientKey-5c1e9a77d2';
const CLIENT_ANTHROPIC_KEY = 'sk-ant-api03-redactionClientKey-8b2d4f60';
/** What the server's environment holds (`OPENAI_API_KEY` / `ANTHROPIC_API_KEY`), as serve passes it on. */
const SERVER_OPENAI_KEY = 'sk-proj-redactionServerKey-3e7a1c90b4';
const SERVER_ANTHROPIC_KEY = 'sk-ant-api03-redactionServerKey-6f0b2d81';
const PROXY_TOKEN = 'ctxkit-redaction-token-0d9c7e3a1b';
const EVERY_SECRET = [
  CLIENT_OPENAI_KEY,
  CLIENT_ANTHROPIC_KEY,
  SERVER_OPENAI_KEY,
  SERVER_ANTHROPIC_KEY,
  PROXY_TOKEN,
];

const OPENAI_MODEL = 'gpt-4o';
const ANTHROPIC_MODEL = 'claude-sonnet-4-6';
/** A request header the echoing upstream answers with a 401 for (forwarded as any header is). */
const REJECT = { 'x-echo-reject': '1' };
const ANSWER = `your key is ${REDACTED}, thanks`;

/** The key an upstream request carried, as an API would read it. */
function keyOf(req: http.IncomingMessage): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer ?? String(req.headers['x-api-key'] ?? '');
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Writes an event stream in two writes, apart in time, split in the middle of the key. */
async function splitStream(res: http.ServerResponse, key: string, events: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-echo-key': key });
  res.flushHeaders();
  const at = events.indexOf(key) + Math.floor(key.length / 2);
  res.write(events.slice(0, at));
  await sleep(30);
  res.end(events.slice(at));
}

const sse = (events: Array<[string | undefined, unknown]>) =>
  events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('');

/**
 * An upstream speaking both APIs that quotes the key of every request it gets: in a 401's error, in the
 * answer's text, in a stream's text, in the model list, and in an `x-echo-key` header of every answer.
 */
async function startEchoUpstream(): Promise<{ url: string; lastKey(): string; close(): Promise<void> }> {
  let last = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = keyOf(req);
      last = key;
      const anthropic = req.headers['anthropic-version'] !== undefined;
      const body =
        chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString()) as { stream?: boolean }) : {};
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-echo-key': key });
        res.end(JSON.stringify(value));
      };
      const path = req.url ?? '';
      // It takes no Messages request the API would refuse.
      const refusal = path === '/v1/messages' ? anthropicRefusalBody(body) : undefined;
      if (refusal !== undefined) return json(400, refusal);
      if (req.headers['x-echo-reject'] !== undefined || path.endsWith('/models/reject'))
        return json(
          401,
          anthropic
            ? { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${key}` } }
            : {
                error: {
                  message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
                  type: 'invalid_request_error',
                  param: null,
                  code: 'invalid_api_key',
                },
              },
        );
      const text = `your key is ${key}, thanks`;
      if (path === '/v1/models')
        return json(
          200,
          anthropic
            ? {
                data: [
                  {
                    type: 'model',
                    id: `echo-${key}`,
                    display_name: text,
                    created_at: '2025-01-01T00:00:00Z',
                  },
                ],
                has_more: false,
                first_id: `echo-${key}`,
                last_id: `echo-${key}`,
              }
            : { object: 'list', data: [{ id: `echo-${key}`, object: 'model', created: 0, owned_by: text }] },
        );
      if (path === '/v1/responses')
        return void splitStream(
          res,
          key,
          sse([
            [
              'response.output_text.delta',
              {
                type: 'response.output_text.delta',
                item_id: 'msg_1',
                output_index: 0,
                content_index: 0,
                delta: text,
                sequence_number: 1,
              },
            ],
            ['response.completed', { type: 'response.completed', sequence_number: 2 }],
          ]),
        );
      if (path === '/v1/messages' && body.stream)
        return void splitStream(
          res,
          key,
          sse([
            [
              'message_start',
              {
                type: 'message_start',
                message: {
                  id: 'msg_1',
                  type: 'message',
                  role: 'assistant',
                  model: ANTHROPIC_MODEL,
                  content: [],
                  stop_reason: null,
                  stop_sequence: null,
                  usage: { input_tokens: 10, output_tokens: 1 },
                },
              },
            ],
            [
              'content_block_start',
              { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            ],
            [
              'content_block_delta',
              { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
            ],
            ['content_block_stop', { type: 'content_block_stop', index: 0 }],
            [
              'message_delta',
              {
                type: 'message_delta',
                delta: { stop_reason: 'end_turn', stop_sequence: null },
                usage: { output_tokens: 5 },
              },
            ],
            ['message_stop', { type: 'message_stop' }],
          ]),
        );
      if (path === '/v1/messages')
        return json(200, {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: ANTHROPIC_MODEL,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 5 },
        });
      if (path === '/v1/chat/completions' && body.stream)
        return void splitStream(
          res,
          key,
          `${sse([
            [
              undefined,
              {
                id: 'c1',
                object: 'chat.completion.chunk',
                created: 0,
                model: OPENAI_MODEL,
                choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }],
              },
            ],
            [
              undefined,
              {
                id: 'c1',
                object: 'chat.completion.chunk',
                created: 0,
                model: OPENAI_MODEL,
                choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
              },
            ],
          ])}data: [DONE]\n\n`,
        );
      if (path === '/v1/chat/completions')
        return json(200, {
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: OPENAI_MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        });
      json(404, { error: { message: `no route ${path}` } });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lastKey: () => last,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
const proxies: RunningProxy[] = [];
const { logger, lines: logs } = capturingLogger();
let open: RunningProxy;
let guarded: RunningProxy;

async function startProxy(tokens: string[]): Promise<RunningProxy> {
  const store = createMemorySessionStore();
  const trace = createMemoryTraceStore();
  const manager = createContextManager({
    policy: PRESETS.default,
    store,
    blobs: createMemoryBlobStore(),
    trace,
  });
  const proxy = await startProxyServer({
    manager,
    upstream: `${upstream.url}/v1`,
    upstreamAnthropic: upstream.url,
    // As serve passes the environment's OPENAI_API_KEY / ANTHROPIC_API_KEY.
    upstreamKeys: { openai: SERVER_OPENAI_KEY, anthropic: SERVER_ANTHROPIC_KEY },
    tokens,
    logger,
    sessions: store,
    trace,
    detectWindow: false,
  });
  proxies.push(proxy);
  return proxy;
}

beforeAll(async () => {
  upstream = await startEchoUpstream();
  open = await startProxy([]);
  guarded = await startProxy([PROXY_TOKEN]);
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close(0);
  await upstream.close();
});

interface Case {
  name: string;
  proxy: () => RunningProxy;
  /** The key each SDK is given; null: none is sent. */
  openaiKey: string | null;
  anthropicKey: string | null;
  /** The key the upstream gets, and quotes. */
  upstreamOpenAI: string;
  upstreamAnthropic: string;
}

const CASES: Case[] = [
  {
    name: 'a client sending its own key',
    proxy: () => open,
    openaiKey: CLIENT_OPENAI_KEY,
    anthropicKey: CLIENT_ANTHROPIC_KEY,
    upstreamOpenAI: CLIENT_OPENAI_KEY,
    upstreamAnthropic: CLIENT_ANTHROPIC_KEY,
  },
  {
    name: 'a local client sending no key (the server’s keys go upstream)',
    proxy: () => open,
    openaiKey: null,
    anthropicKey: null,
    upstreamOpenAI: SERVER_OPENAI_KEY,
    upstreamAnthropic: SERVER_ANTHROPIC_KEY,
  },
  {
    name: 'a client holding a proxy token (the configured key goes upstream)',
    proxy: () => guarded,
    openaiKey: PROXY_TOKEN,
    anthropicKey: PROXY_TOKEN,
    upstreamOpenAI: SERVER_OPENAI_KEY,
    upstreamAnthropic: SERVER_ANTHROPIC_KEY,
  },
];

/** Everything a client was handed, as text: bodies as the SDK parsed them, headers, error messages. */
class Received {
  readonly #parts: string[] = [];

  add(value: unknown): void {
    this.#parts.push(typeof value === 'string' ? value : JSON.stringify(value));
  }

  headers(headers: Headers | undefined): void {
    this.add([...(headers ?? new Headers())]);
  }

  /** An SDK's API error: its message, its body, its headers. */
  error(error: unknown): void {
    expect(error).toHaveProperty('status', 401);
    const apiError = error as { message: string; error: unknown; headers?: Headers };
    this.add(apiError.message);
    this.add(apiError.error);
    this.headers(apiError.headers);
    expect(apiError.headers?.get('x-echo-key')).toBe(REDACTED);
  }

  expectNoSecret(): void {
    const text = this.#parts.join('\n');
    for (const secret of EVERY_SECRET) expect(text).not.toContain(secret);
    expect(text).toContain(REDACTED);
  }
}

async function rejected(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call was expected to fail');
}

describe.each(CASES)('$name', (setup) => {
  const openai = () =>
    new OpenAI({
      baseURL: `${setup.proxy().url}/v1`,
      apiKey: setup.openaiKey ?? 'unsent',
      maxRetries: 0,
      ...(setup.openaiKey === null && { defaultHeaders: { authorization: null } }),
    });
  const anthropic = () =>
    new Anthropic({
      baseURL: setup.proxy().url,
      apiKey: setup.anthropicKey,
      maxRetries: 0,
      ...(setup.anthropicKey === null && { defaultHeaders: { 'x-api-key': null, authorization: null } }),
    });
  const chatRequest = { model: OPENAI_MODEL, messages: [{ role: 'user' as const, content: 'hi' }] };
  const messagesRequest = {
    model: ANTHROPIC_MODEL,
    max_tokens: 64,
    messages: [{ role: 'user' as const, content: 'hi' }],
  };

  it('openai: a 401 error body quoting the key', async () => {
    const received = new Received();
    const error = await rejected(openai().chat.completions.create(chatRequest, { headers: REJECT }));
    received.error(error);
    expect((error as Error).message).toContain(`Incorrect API key provided: ${REDACTED}. You can find`);
    expect((error as { code?: string }).code).toBe('invalid_api_key');
    received.expectNoSecret();
    expect(upstream.lastKey()).toBe(setup.upstreamOpenAI);
  });

  it('openai: an answer quoting the key, and a header', async () => {
    const received = new Received();
    const { data, response } = await openai().chat.completions.create(chatRequest).withResponse();
    received.add(data);
    received.headers(response.headers);
    expect(data.choices[0]?.message.content).toBe(ANSWER);
    expect(upstream.lastKey()).toBe(setup.upstreamOpenAI);
    expect(response.headers.get('x-echo-key')).toBe(REDACTED);
    received.expectNoSecret();
  });

  it('openai: a stream with the key split across two writes', async () => {
    const received = new Received();
    const { data: stream, response } = await openai()
      .chat.completions.create({ ...chatRequest, stream: true })
      .withResponse();
    received.headers(response.headers);
    let text = '';
    for await (const chunk of stream) {
      received.add(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe(ANSWER);
    expect(upstream.lastKey()).toBe(setup.upstreamOpenAI);
    received.expectNoSecret();
  });

  it('openai: passed-through routes (the model list, a refused lookup) and the Responses API (a stream, a 401)', async () => {
    const received = new Received();
    const client = openai();
    const { data: page, response } = await client.models.list().withResponse();
    received.add(page.data);
    received.headers(response.headers);
    expect(page.data[0]).toMatchObject({ id: `echo-${REDACTED}`, owned_by: ANSWER });
    received.error(await rejected(client.models.retrieve('reject')));
    const { data: events, response: streamed } = await client.responses
      .create({ model: OPENAI_MODEL, input: 'hi', stream: true })
      .withResponse();
    received.headers(streamed.headers);
    let text = '';
    for await (const event of events) {
      received.add(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe(ANSWER);
    const refused = await rejected(
      client.responses.create({ model: OPENAI_MODEL, input: 'hi' }, { headers: REJECT }),
    );
    received.error(refused);
    expect((refused as Error).message).toContain(`Incorrect API key provided: ${REDACTED}`);
    received.expectNoSecret();
    expect(upstream.lastKey()).toBe(setup.upstreamOpenAI);
  });

  it('anthropic: a 401 error body quoting the key', async () => {
    const received = new Received();
    const error = await rejected(anthropic().messages.create(messagesRequest, { headers: REJECT }));
    received.error(error);
    expect((error as Error).message).toContain(`invalid x-api-key: ${REDACTED}`);
    expect((error as { error: unknown }).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: `invalid x-api-key: ${REDACTED}` },
    });
    received.expectNoSecret();
    expect(upstream.lastKey()).toBe(setup.upstreamAnthropic);
  });

  it('anthropic: an answer quoting the key, and a header', async () => {
    const received = new Received();
    const { data, response } = await anthropic().messages.create(messagesRequest).withResponse();
    received.add(data);
    received.headers(response.headers);
    expect(data.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(upstream.lastKey()).toBe(setup.upstreamAnthropic);
    expect(response.headers.get('x-echo-key')).toBe(REDACTED);
    received.expectNoSecret();
  });

  it('anthropic: a stream with the key split across two writes', async () => {
    const received = new Received();
    const { data: stream, response } = await anthropic()
      .messages.create({ ...messagesRequest, stream: true })
      .withResponse();
    received.headers(response.headers);
    let text = '';
    for await (const event of stream) {
      received.add(event);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    expect(text).toBe(ANSWER);
    expect(upstream.lastKey()).toBe(setup.upstreamAnthropic);
    received.expectNoSecret();
  });

  it('anthropic: passed-through routes (the model list, a refused lookup)', async () => {
    const received = new Received();
    const client = anthropic();
    const { data: page, response } = await client.models.list().withResponse();
    received.add(page.data);
    received.headers(response.headers);
    expect(page.data[0]).toMatchObject({ id: `echo-${REDACTED}`, display_name: ANSWER });
    received.error(await rejected(client.models.retrieve('reject')));
    received.expectNoSecret();
    expect(upstream.lastKey()).toBe(setup.upstreamAnthropic);
  });
});

describe('the log', () => {
  it('holds no key', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of EVERY_SECRET) expect(logs.join('')).not.toContain(secret);
  });
});
