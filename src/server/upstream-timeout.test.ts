/**
 * An upstream that goes silent: one that never answers, one whose answer stops halfway (streamed or
 * not), under a one-second `upstreamTimeoutMs`. The client hears of it in its own format within about
 * that second, and the session is free again at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';
import { UpstreamTimeoutError, upstreamTimeoutIn, withUpstreamTimeout } from './upstream-timeout.ts';

const TIMEOUT_MS = 1_000;

let harness: ProxyHarness | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const server of servers.splice(0)) {
    // The stalled answers' connections are still open: closed, or close() would wait for them.
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** An upstream that reads each request and then does what `answer` does (which may be nothing, ever). */
async function stallingUpstream(answer: (res: http.ServerResponse, path: string) => void): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, req.url ?? ''));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function start(upstream: string): Promise<ProxyHarness> {
  harness = await startProxyHarness({
    upstream: `${upstream}/v1`,
    upstreamAnthropic: upstream,
    detectWindow: false,
    upstreamTimeoutMs: TIMEOUT_MS,
  });
  return harness;
}

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
const openAIBody = (stream: boolean) => ({
  model: 'gpt-4o',
  stream,
  messages: [{ role: 'user', content: 'x' }],
});

/** Posts, and says how long the answer took to end. */
async function timed(url: string, body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await postJson(url, body, headers);
  return { ...response, ms: performance.now() - started };
}

describe('an upstream that never answers', () => {
  it('is a 504 in the client’s format after the timeout, and frees the session', async () => {
    let calls = 0;
    const upstream = await stallingUpstream((res) => {
      calls++;
      // The third call is answered: the session is free for the client's next request.
      if (calls === 3) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(openAIReply({ content: 'at last' }).body));
      }
    });
    const h = await start(upstream);
    const session = { 'x-ctxkit-session': 'stalled' };
    const openai = await timed(`${h.proxy.url}/v1/chat/completions`, openAIBody(false), session);
    expect(openai.status).toBe(504);
    expect(openai.json).toMatchObject({
      error: { type: 'server_error', message: expect.stringMatching(/upstream sent nothing for 1 s/) },
    });
    expect(openai.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(openai.ms).toBeLessThan(TIMEOUT_MS * 5);
    const anthropic = await timed(
      `${h.proxy.url}/v1/messages`,
      { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(anthropic.status).toBe(504);
    expect(anthropic.json).toMatchObject({
      type: 'error',
      error: { message: expect.stringContaining('upstream sent nothing') },
    });
    const next = await timed(`${h.proxy.url}/v1/chat/completions`, openAIBody(false), session);
    expect(next.status).toBe(200);
    expect(next.text).toContain('at last');
  });

  it('is a 504 for a request passed through as it came', async () => {
    const upstream = await stallingUpstream(() => {});
    const h = await start(upstream);
    const started = performance.now();
    const response = await fetch(`${h.proxy.url}/v1/models`);
    expect(response.status).toBe(504);
    expect(await response.text()).toContain('upstream sent nothing');
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS * 5);
  });
});

describe('an upstream that stops halfway', () => {
  it('before streamed content is a 504', async () => {
    const upstream = await stallingUpstream((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`,
      );
    });
    const h = await start(upstream);
    const response = await timed(`${h.proxy.url}/v1/chat/completions`, openAIBody(true));
    expect(response.status).toBe(504);
    expect(response.text).toContain('in the middle of its answer');
  });

  it('after streamed content ends the stream with an error event, each chunk having reset the wait', async () => {
    const upstream = await stallingUpstream((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Three pieces, each well within the timeout of the last but together past it: then silence.
      res.write(chunk('one '));
      setTimeout(() => res.write(chunk('two ')), TIMEOUT_MS * 0.6);
      setTimeout(() => res.write(chunk('three')), TIMEOUT_MS * 1.2);
    });
    const h = await start(upstream);
    const response = await timed(`${h.proxy.url}/v1/chat/completions`, openAIBody(true));
    expect(response.status).toBe(200);
    expect(response.text).toContain('one ');
    expect(response.text).toContain('three');
    expect(response.text).toMatch(
      /data: \{"error":\{"message":"ctxkit proxy: the upstream sent nothing for 1 s in the middle of its answer/,
    );
    expect(response.ms).toBeGreaterThanOrEqual(TIMEOUT_MS * 2.2 - 50);
  });

  it('in a body that is not streamed is a 504', async () => {
    const upstream = await stallingUpstream((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-1","object":"chat.completion","choices":[');
    });
    const h = await start(upstream);
    const response = await timed(`${h.proxy.url}/v1/chat/completions`, openAIBody(false));
    expect(response.status).toBe(504);
    expect(response.text).toContain('in the middle of its answer');
  });
});

describe('withUpstreamTimeout', () => {
  it('ends the wait on a fetch that ignores its signal', async () => {
    const never: typeof fetch = () => new Promise<Response>(() => {});
    const error = await withUpstreamTimeout(never, 50)('http://upstream.invalid/').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect(upstreamTimeoutIn(new Error('wrapped', { cause: error }))).toBe(error);
  });

  it('leaves the caller’s own cancel as it was', async () => {
    const abortable: typeof fetch = (_input, init) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    const controller = new AbortController();
    const pending = withUpstreamTimeout(abortable, 10_000)('http://upstream.invalid/', {
      signal: controller.signal,
    });
    controller.abort(new Error('the client left'));
    await expect(pending).rejects.toThrow('the client left');
  });

  it('refuses a wait a timer cannot hold', () => {
    expect(() => withUpstreamTimeout(fetch, 0)).toThrow(/upstreamTimeoutMs/);
    expect(() => withUpstreamTimeout(fetch, 2 ** 31)).toThrow(/upstreamTimeoutMs/);
  });
});
