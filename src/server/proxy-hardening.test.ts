/**
 * The proxy under what reviews and a new-user probe threw at it: hostile or unusual input, a client tool
 * that shares ctxkit's tool name, requests racing on one session, browsers, upstreams that break off.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import type { RecordedRequest } from '../testing/fake-provider-server.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { openAIStreamReply } from '../testing/fake-provider-server-streams.ts';
import { SseParser } from './sse.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';

let harness: ProxyHarness | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

async function start(options: Parameters<typeof startProxyHarness>[0] = {}): Promise<ProxyHarness> {
  harness = await startProxyHarness(options);
  return harness;
}

const modelRequests = (h: ProxyHarness): RecordedRequest[] =>
  h.upstream.requests.filter((request) => request.format !== 'unknown');
const chat = (h: ProxyHarness, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${h.proxy.url}/v1/chat/completions`, body, headers);
const errorOf = (json: unknown) => (json as { error: { message: string; param: string | null } }).error;

/** A bare upstream answering each request with `answer(res)`: for failures the fake server does not script. */
async function rawUpstream(answer: (res: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('a client tool named like ctxkit’s', () => {
  it('stays the client’s: its calls reach the client, and ctxkit offers no tool of its own', async () => {
    const h = await start();
    h.upstream.enqueue(
      openAIReply({
        content: null,
        toolCalls: [{ id: 'call_mine', name: READ_OFFLOADED_TOOL, arguments: '{"ref":"mine/42"}' }],
      }),
    );
    const tools = [
      { type: 'function', function: { name: READ_OFFLOADED_TOOL, parameters: { type: 'object' } } },
    ];
    const response = await chat(h, {
      model: 'gpt-4o',
      tools,
      messages: [{ role: 'user', content: 'read mine/42' }],
    });
    const message = (response.json as { choices: Array<{ message: { tool_calls?: Array<{ id: string }> } }> })
      .choices[0]?.message;
    expect(message?.tool_calls?.map((call) => call.id)).toEqual(['call_mine']);
    expect(modelRequests(h)).toHaveLength(1);
    const sent = modelRequests(h)[0]?.body as { tools: unknown[] } | undefined;
    expect(sent?.tools).toEqual(tools);
  });
});

describe('one named session, two requests at once', () => {
  it('answers each with its own conversation', async () => {
    const h = await start();
    h.upstream.setFallback((request) => ({
      ...openAIReply({
        content: `saw ${JSON.stringify((request.body as { messages: unknown[] }).messages)}`,
      }),
      delayMs: 60,
    }));
    const headers = { 'x-ctxkit-session': 'shared' };
    const [alpha, beta] = await Promise.all([
      chat(h, { model: 'gpt-4o', messages: [{ role: 'user', content: 'ALPHA question' }] }, headers),
      chat(h, { model: 'gpt-4o', messages: [{ role: 'user', content: 'BETA question' }] }, headers),
    ]);
    expect(alpha.text).toContain('ALPHA question');
    expect(alpha.text).not.toContain('BETA');
    expect(beta.text).toContain('BETA question');
    expect(beta.text).not.toContain('ALPHA');
  });
});

describe('a proxy without tokens', () => {
  it('refuses another host name and a web page’s origin, and serves this machine', async () => {
    const h = await start();
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    // fetch will not send another Host: a raw request does, as a rebound browser would.
    const url = new URL(h.proxy.url);
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { host: 'attacker.example:8787', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    expect(rebound).toBe(403);
    const page = await chat(h, body, { origin: 'http://attacker.example' });
    expect(page.status).toBe(403);
    expect(errorOf(page.json).message).toContain('Origin');
    expect((await chat(h, body, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await chat(h, body)).status).toBe(200);
    expect(modelRequests(h)).toHaveLength(2);
    expect(h.logs.filter((line) => line.includes('request refused'))).toHaveLength(2);
  });
});

describe('requests passed through', () => {
  it('go to the Anthropic upstream when the client speaks Anthropic, with the body’s bytes and type as sent', async () => {
    const h = await start({ upstreamOptions: { strict: false } });
    const bytes = new Uint8Array([0x50, 0xff, 0xfe, 0x00, 0x80]);
    await fetch(`${h.proxy.url}/v1/files`, {
      method: 'POST',
      headers: {
        'content-type': 'application/octet-stream',
        'anthropic-version': '2023-06-01',
        'x-api-key': 'k',
      },
      body: bytes,
    });
    const recorded = h.upstream.requests.at(-1);
    expect(recorded?.path).toBe('/v1/files');
    expect(recorded?.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.from(recorded?.rawBody ?? '', 'latin1').length).toBeGreaterThan(0);
    expect(recorded?.headers['x-api-key']).toBe('k');
  });

  it('keep the query string of a model call (Azure’s api-version)', async () => {
    const h = await start();
    h.upstream.enqueue(openAIReply({ content: 'ok' }));
    await postJson(`${h.proxy.url}/v1/chat/completions?api-version=2024-10-21`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(modelRequests(h)[0]?.path).toBe('/v1/chat/completions');
    expect(h.upstream.requests.some((request) => request.format === 'openai')).toBe(true);
  });
});

describe('bad input', () => {
  it('is a 400 naming the field: numbers past exact integers, a tool without a type, nesting past the bound', async () => {
    const h = await start();
    const huge = await chat(h, {
      model: 'gpt-4o',
      max_tokens: 1e16,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(huge.status).toBe(400);
    expect(errorOf(huge.json).param).toBe('max_tokens');
    const untyped = await chat(h, {
      model: 'gpt-4o',
      tools: [{ type: '' }],
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(untyped.status).toBe(400);
    expect(errorOf(untyped.json).param).toBe('tools[0].type');
    // Written by hand: the client's own JSON.stringify would overflow its stack first.
    const deep = `${'{"inner":'.repeat(10_000)}"bottom"${'}'.repeat(10_000)}`;
    const nested = await chat(
      h,
      `{"model":"gpt-4o","extra":${deep},"messages":[{"role":"user","content":"x"}]}`,
    );
    expect(nested.status).toBe(400);
    expect(errorOf(nested.json).message).toMatch(/^extra\.inner\.inner/);
    const ascii = await chat(
      h,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      {
        'x-ctxkit-session': 'c1\u009b31m',
      },
    );
    expect(ascii.status).toBe(400);
    expect(errorOf(ascii.json).message).toContain('printable ASCII');
    const dots = await chat(
      h,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      { 'x-ctxkit-session': '..' },
    );
    expect(dots.status).toBe(400);
    expect(errorOf(dots.json).message).toContain('must not be "." or ".."');
    expect(modelRequests(h)).toHaveLength(0);
    // The server goes on.
    h.upstream.enqueue(openAIReply({ content: 'still here' }));
    expect((await chat(h, { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).status).toBe(200);
  });

  it('does not leave a reply reserve set by one request on the next one of the session', async () => {
    const h = await start({ contextWindow: 8_000, detectWindow: false });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const headers = { 'x-ctxkit-session': 'reserve' };
    const refused = await chat(
      h,
      { model: 'mystery', max_tokens: 100_000_000, messages: [{ role: 'user', content: 'x' }] },
      headers,
    );
    expect(refused.status).toBe(400);
    // A reserve of 7,000 of the 8,000 leaves room for little: that request's own business.
    const reserved = await chat(
      h,
      { model: 'mystery', max_tokens: 7_000, messages: [{ role: 'user', content: 'x' }] },
      headers,
    );
    expect(reserved.status).toBe(200);
    const words = Array.from({ length: 1_000 }, (_, index) => `w${index}`).join(' ');
    const next = await chat(
      h,
      {
        model: 'mystery',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: words },
        ],
      },
      headers,
    );
    expect(next.status).toBe(200);
    // The next request, which sets no reserve, gets the default one, not 7,000: nothing is cut.
    expect(next.headers.get('x-ctxkit-tokens-saved')).toBe('0');
  });

  it('takes a body sent with Expect: 100-continue', async () => {
    const h = await start();
    h.upstream.enqueue(openAIReply({ content: 'continued' }));
    const url = new URL(`${h.proxy.url}/v1/chat/completions`);
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', expect: '100-continue' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('continue', () => req.end(body));
      req.on('error', reject);
    });
    expect(status).toBe(200);
  });
});

describe('a ctxkit header sent twice', () => {
  /** A raw request: fetch cannot send one header twice (its Headers joins them). */
  const postTwice = (
    h: ProxyHarness,
    path: string,
    headers: Record<string, string | string[]>,
    body: unknown,
  ): Promise<{ status: number; json: unknown }> => {
    const url = new URL(h.proxy.url);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  };
  const openAIBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] };

  it('is a 400 in the client’s format naming the header, for the session header and the token', async () => {
    const h = await start({ tokens: ['a-token-of-sixteen-chars'] });
    h.upstream.setFallback(openAIReply({ content: 'ok' }));
    const token = { 'x-ctxkit-token': 'a-token-of-sixteen-chars' };
    const session = await postTwice(
      h,
      '/v1/chat/completions',
      { ...token, 'x-ctxkit-session': ['dupA', 'dupB'] },
      openAIBody,
    );
    expect(session.status).toBe(400);
    expect(errorOf(session.json).message).toContain('x-ctxkit-session was sent 2 times');
    expect((session.json as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const anthropic = await postTwice(
      h,
      '/v1/messages',
      { ...token, 'anthropic-version': '2023-06-01', 'x-ctxkit-session': ['dupA', 'dupB'] },
      { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
    );
    expect(anthropic.status).toBe(400);
    expect(anthropic.json).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('x-ctxkit-session') },
    });
    const tokens = await postTwice(
      h,
      '/v1/chat/completions',
      { 'x-ctxkit-token': ['a-token-of-sixteen-chars', 'a-token-of-sixteen-chars'] },
      openAIBody,
    );
    expect(tokens.status).toBe(400);
    expect(errorOf(tokens.json).message).toContain('x-ctxkit-token was sent 2 times');
    expect(modelRequests(h)).toHaveLength(0);
    // Nothing was made of the joined id; the header sent once, even with a comma in it, is served.
    expect(await h.store.list()).toEqual([]);
    const once = await postTwice(
      h,
      '/v1/chat/completions',
      { ...token, 'x-ctxkit-session': 'one, id' },
      openAIBody,
    );
    expect(once.status).toBe(200);
  });
});

describe('an upstream that breaks off', () => {
  it('before any content is a 502 in the client’s format', async () => {
    const upstream = await rawUpstream((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`,
      );
      res.socket?.destroy();
    });
    const h = await start({ upstream, detectWindow: false });
    const response = await chat(h, {
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.status).toBe(502);
    expect(errorOf(response.json).message).toMatch(/broke off|could not be reached/);
  });

  it('after content ends the stream with an error event', async () => {
    const upstream = await rawUpstream((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'half an ans' } }] })}\n\n`,
      );
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const h = await start({ upstream, detectWindow: false });
    const response = await chat(h, {
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain('half an ans');
    expect(response.text).toMatch(/data: \{"error":\{"message":"ctxkit proxy: the upstream broke off/);
  });
});

describe('streams', () => {
  it('keep the text of a finishing chunk when a read-back round follows', async () => {
    const h = await start({ contextWindow: 16_000, detectWindow: false });
    h.upstream.enqueue(
      (request) => {
        const ref = /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(request.body))?.[0];
        const reply = openAIStreamReply({
          content: 'Looking. ',
          toolCalls: [{ name: READ_OFFLOADED_TOOL, arguments: JSON.stringify({ ref }) }],
        });
        // The last text arrives on the chunk that finishes, as some servers send it.
        const events = reply.events ?? [];
        const finish = events.findIndex((event) => event.data.includes('"finish_reason":"tool_calls"'));
        const chunk = JSON.parse(events[finish]?.data ?? '{}') as {
          choices: Array<{ delta: Record<string, unknown> }>;
        };
        if (chunk.choices[0]) chunk.choices[0].delta = { content: 'TAIL ' };
        events[finish] = { data: JSON.stringify(chunk) };
        return { ...reply, events };
      },
      openAIReply({ content: 'Answer.' }),
    );
    const lines = Array.from({ length: 4000 }, (_, index) => `line ${index}: value_${index * 7}`).join('\n');
    const client = new OpenAI({ baseURL: `${h.proxy.url}/v1`, apiKey: 'k' });
    const final = await client.chat.completions
      .stream({
        model: 'gpt-4o',
        tools: [{ type: 'function', function: { name: 'read_log', parameters: { type: 'object' } } }],
        messages: [
          { role: 'user', content: 'look' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: lines },
        ],
      })
      .finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Looking. TAIL Answer.');
  });

  it('are parsed the same however the bytes are cut', () => {
    const text =
      'event: a\r\ndata: {"x":1}\r\n\r\ndata: line one\ndata: line two\n\n: comment\ndata: [DONE]\n\n';
    const whole = new SseParser().push(text);
    for (const size of [1, 2, 3, 7]) {
      const parser = new SseParser();
      const events = [];
      for (let at = 0; at < text.length; at += size) events.push(...parser.push(text.slice(at, at + size)));
      events.push(...parser.end());
      expect(events).toEqual(whole);
    }
    expect(whole).toEqual([
      { event: 'a', data: '{"x":1}' },
      { data: 'line one\nline two' },
      { data: '[DONE]' },
    ]);
  });
});

describe('stream_options', () => {
  it('is dropped, and the request sent again, for a server that refuses it', async () => {
    const h = await start({ detectWindow: false });
    h.upstream.enqueue(
      {
        status: 400,
        body: {
          error: {
            message: 'Unrecognized request argument supplied: stream_options',
            type: 'invalid_request_error',
          },
        },
      },
      openAIReply({ content: 'plain stream' }),
      openAIReply({ content: 'again' }),
    );
    const ask = () => chat(h, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] });
    expect((await ask()).text).toContain('plain stream');
    expect((await ask()).text).toContain('again');
    const bodies = modelRequests(h).map((request) => request.body as Record<string, unknown>);
    expect(bodies.map((body) => body.stream_options !== undefined)).toEqual([true, false, false]);
  });
});

describe('recognition', () => {
  it('never continues a conversation of one API format with a request in the other', async () => {
    const h = await start();
    h.upstream.setFallback((request) =>
      request.format === 'anthropic'
        ? {
            body: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [{ type: 'text', text: 'hi' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 5, output_tokens: 1 },
            },
          }
        : openAIReply({ content: 'hi' }),
    );
    const openai = await chat(h, { model: 'gpt-4o', messages: [{ role: 'user', content: 'same words' }] });
    const anthropic = await postJson(
      `${h.proxy.url}/v1/messages`,
      { model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'same words' }] },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(openai.headers.get('x-ctxkit-session')).not.toBe(anthropic.headers.get('x-ctxkit-session'));
    expect(anthropic.headers.get('x-ctxkit-session')).toMatch(/^conv_/);
  });
});

describe('closing', () => {
  it('lets a stream in flight finish within the grace period', async () => {
    const h = await start({ detectWindow: false });
    h.upstream.enqueue({ ...openAIReply({ content: 'x'.repeat(160) }), eventDelayMs: 30 });
    const response = await fetch(`${h.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    });
    const reading = response.text();
    const closed = h.proxy.close(5_000);
    const text = await reading;
    await closed;
    expect(text).toContain('data: [DONE]');
  });
});
