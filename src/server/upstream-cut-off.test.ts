/**
 * An upstream whose answer is cut off: it answers without keep-alive and closes the connection early, so
 * the body ends as cleanly as a whole one (empty, half a JSON body, a stream without its end marker). The
 * official `openai` and `@anthropic-ai/sdk` clients must raise an error, never return a partial answer as
 * complete, and the session must keep no reply from it. Whole answers still pass, also from an upstream
 * that keeps the stream open after its end marker.
 */
import net from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicRefusalBody } from '../testing/anthropic-request-rules.ts';
import { type ProxyHarness, startProxyHarness } from './testing/proxy-harness.ts';

/** What the upstream answers: the raw bytes after the status line and headers, and whether it closes. */
interface Scenario {
  contentType: string;
  body: string;
  /** Leave the connection open after the body (a stream the upstream never ends). */
  keepOpen?: boolean;
}

const sse = (data: unknown, event?: string) =>
  `${event !== undefined ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const openAIChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

const openAICompletion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'whole answer' },
      finish_reason: 'stop',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
};

const anthropicMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: 'whole answer' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 2 },
};

/** Anthropic's stream up to the first text delta. */
const anthropicHead =
  sse(
    {
      type: 'message_start',
      message: {
        ...anthropicMessage,
        content: [],
        stop_reason: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    },
    'message_start',
  ) +
  sse(
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    'content_block_start',
  ) +
  sse(
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'partial' } },
    'content_block_delta',
  );

const anthropicTail =
  sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop') +
  sse(
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 2 },
    },
    'message_delta',
  ) +
  sse({ type: 'message_stop' }, 'message_stop');

const openAIWhole =
  openAIChunk({ role: 'assistant', content: '' }) +
  openAIChunk({ content: 'whole answer' }) +
  openAIChunk({}, 'stop') +
  sse('[DONE]');

const JSON_TYPE = 'application/json';
const SSE_TYPE = 'text/event-stream';

let scenario: Scenario = { contentType: JSON_TYPE, body: '' };
let upstream: net.Server;
const sockets = new Set<net.Socket>();
let h: ProxyHarness;

/**
 * A raw HTTP/1.1 upstream: reads the request, then answers with `scenario` without keep-alive or a length,
 * so the body ends where the connection closes (or never, with `keepOpen`).
 */
async function startRawUpstream(): Promise<string> {
  upstream = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = Buffer.alloc(0);
    socket.on('data', (data) => {
      received = Buffer.concat([received, data]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(
        /content-length:\s*(\d+)/i.exec(received.subarray(0, headEnd).toString())?.[1] ?? 0,
      );
      if (received.length < headEnd + 4 + length) return;
      socket.removeAllListeners('data');
      // A Messages request the API would refuse is refused here too, whatever the scenario.
      const refusal = refusalOf(received.subarray(0, headEnd).toString(), received.subarray(headEnd + 4));
      if (refusal !== undefined) {
        socket.end(
          `HTTP/1.1 400 Bad Request\r\ncontent-type: ${JSON_TYPE}\r\nconnection: close\r\n\r\n${refusal}`,
        );
        return;
      }
      const { contentType, body, keepOpen } = scenario;
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: ${contentType}\r\nconnection: close\r\n\r\n${body}`);
      if (!keepOpen) socket.end();
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}`;
}

/** The API's 400 body, as text, when the request is a Messages request it would refuse. */
function refusalOf(head: string, body: Buffer): string | undefined {
  if (!head.startsWith('POST /v1/messages ')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body.toString());
  } catch {
    return undefined;
  }
  const refusal = anthropicRefusalBody(json);
  return refusal === undefined ? undefined : JSON.stringify(refusal);
}

beforeAll(async () => {
  const base = await startRawUpstream();
  h = await startProxyHarness({ upstream: `${base}/v1`, upstreamAnthropic: base, detectWindow: false });
});

afterAll(async () => {
  await h.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => upstream.close(done));
});

let sessionNumber = 0;
let session = '';
beforeEach(() => {
  session = `cut-${++sessionNumber}`;
});

const openai = () =>
  new OpenAI({
    baseURL: `${h.proxy.url}/v1`,
    apiKey: 'k',
    maxRetries: 0,
    defaultHeaders: { 'x-ctxkit-session': session },
  });
const anthropic = () =>
  new Anthropic({
    baseURL: h.proxy.url,
    apiKey: 'k',
    maxRetries: 0,
    defaultHeaders: { 'x-ctxkit-session': session },
  });
const chatRequest = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hi' }] };
const messagesRequest = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

/** The error a call raised; fails the test when it returned instead. */
async function raised(call: () => Promise<unknown>): Promise<{ status?: number; message: string }> {
  let result: unknown;
  try {
    result = await call();
  } catch (error) {
    return error as { status?: number; message: string };
  }
  throw new Error(`the call returned as complete: ${JSON.stringify(result)}`);
}

async function openAIStreamed(): Promise<string> {
  let text = '';
  const stream = await openai().chat.completions.create({ ...chatRequest, stream: true });
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

async function anthropicStreamed(): Promise<unknown> {
  return await anthropic().messages.stream(messagesRequest).finalMessage();
}

const CUT_OFF = /the upstream's answer was cut off/;

describe('an answer cut off before anything reached the client is a 502 in its format', () => {
  it.each([
    ['an empty body', ''],
    ['half a JSON body', JSON.stringify(openAICompletion).slice(0, 60)],
  ])('openai chat.completions.create: %s', async (_name, body) => {
    scenario = { contentType: JSON_TYPE, body };
    const error = await raised(() => openai().chat.completions.create(chatRequest));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(CUT_OFF);
  });

  it.each([
    ['an empty body', ''],
    ['half a JSON body', JSON.stringify(anthropicMessage).slice(0, 60)],
  ])('anthropic messages.create: %s', async (_name, body) => {
    scenario = { contentType: JSON_TYPE, body };
    const error = await raised(() => anthropic().messages.create(messagesRequest));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(CUT_OFF);
  });

  it('openai stream: an empty event stream, and one with only its role chunk', async () => {
    for (const body of ['', openAIChunk({ role: 'assistant', content: '' })]) {
      scenario = { contentType: SSE_TYPE, body };
      const error = await raised(openAIStreamed);
      expect(error.status).toBe(502);
      expect(error.message).toMatch(CUT_OFF);
    }
  });

  it('openai stream: [DONE] without a finish_reason', async () => {
    scenario = {
      contentType: SSE_TYPE,
      body: openAIChunk({ role: 'assistant', content: '' }) + sse('[DONE]'),
    };
    const error = await raised(openAIStreamed);
    expect(error.status).toBe(502);
  });

  it('anthropic stream: an empty event stream', async () => {
    scenario = { contentType: SSE_TYPE, body: '' };
    const error = await raised(anthropicStreamed);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(CUT_OFF);
  });

  it('a streamed request answered by an empty non-stream 200', async () => {
    scenario = { contentType: JSON_TYPE, body: '' };
    expect((await raised(openAIStreamed)).status).toBe(502);
    expect((await raised(anthropicStreamed)).status).toBe(502);
  });
});

describe('a stream cut off after content reached the client ends with an error event', () => {
  it('openai: one chunk, then the connection closes without finish_reason or [DONE]', async () => {
    scenario = {
      contentType: SSE_TYPE,
      body: openAIChunk({ role: 'assistant', content: '' }) + openAIChunk({ content: 'partial' }),
    };
    const error = await raised(openAIStreamed);
    expect(error.message).toMatch(CUT_OFF);
    // The stream helper, which assembles the final completion, raises too.
    const helper = await raised(() =>
      openai()
        .chat.completions.stream({ ...chatRequest, stream: true })
        .finalChatCompletion(),
    );
    expect(helper.message).toMatch(CUT_OFF);
  });

  it('openai: a finish_reason, then the connection closes without [DONE]', async () => {
    scenario = {
      contentType: SSE_TYPE,
      body: openAIChunk({ role: 'assistant', content: 'partial' }) + openAIChunk({}, 'stop'),
    };
    expect((await raised(openAIStreamed)).message).toMatch(CUT_OFF);
  });

  it('anthropic: events up to content_block_delta, then the connection closes without message_stop', async () => {
    scenario = { contentType: SSE_TYPE, body: anthropicHead };
    const error = await raised(anthropicStreamed);
    expect(error.message).toMatch(CUT_OFF);
    const events: string[] = [];
    const viaCreate = await raised(async () => {
      const stream = await anthropic().messages.create({ ...messagesRequest, stream: true });
      for await (const event of stream) events.push(event.type);
    });
    expect(viaCreate.message).toMatch(CUT_OFF);
    expect(events).toContain('content_block_delta');
    expect(events).not.toContain('message_stop');
  });

  it('the session keeps no reply from a cut stream', async () => {
    scenario = { contentType: SSE_TYPE, body: anthropicHead };
    await raised(anthropicStreamed);
    // The client resends what it got with its next request: that partial message carries no usage, as a
    // reply the proxy had taken for whole would.
    scenario = { contentType: JSON_TYPE, body: JSON.stringify(anthropicMessage) };
    await anthropic().messages.create({
      ...messagesRequest,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'partial' },
        { role: 'user', content: 'go on' },
      ],
    });
    const stored = (await h.store.list()).find((entry) => entry.id.endsWith(`:${session}`));
    const { log } = await h.manager.history(stored?.id ?? '');
    const partial = log.find((message) => message.role === 'assistant');
    expect(partial).toBeDefined();
    expect(partial?.usage).toBeUndefined();
  });
});

describe('a whole answer still passes', () => {
  it('openai, non-streamed and streamed ([DONE] right after finish_reason, and with a usage chunk)', async () => {
    scenario = { contentType: JSON_TYPE, body: JSON.stringify(openAICompletion) };
    const completion = await openai().chat.completions.create(chatRequest);
    expect(completion.choices[0]?.message.content).toBe('whole answer');

    scenario = { contentType: SSE_TYPE, body: openAIWhole };
    expect(await openAIStreamed()).toBe('whole answer');
    const final = await openai()
      .chat.completions.stream({ ...chatRequest, stream: true })
      .finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe('stop');

    scenario = {
      contentType: SSE_TYPE,
      body:
        openAIChunk({ role: 'assistant', content: 'whole answer' }) +
        openAIChunk({}, 'stop') +
        sse({
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          choices: [],
          usage: openAICompletion.usage,
        }) +
        sse('[DONE]'),
    };
    expect(await openAIStreamed()).toBe('whole answer');
  });

  it('openai: an upstream that keeps the stream open after [DONE]', async () => {
    scenario = { contentType: SSE_TYPE, body: openAIWhole, keepOpen: true };
    expect(await openAIStreamed()).toBe('whole answer');
  });

  it('anthropic, non-streamed and streamed, also kept open after message_stop', async () => {
    scenario = { contentType: JSON_TYPE, body: JSON.stringify(anthropicMessage) };
    const message = await anthropic().messages.create(messagesRequest);
    expect(message.content).toEqual([{ type: 'text', text: 'whole answer' }]);

    for (const keepOpen of [false, true]) {
      scenario = {
        contentType: SSE_TYPE,
        body:
          anthropicHead +
          sse(
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' answer' } },
            'content_block_delta',
          ) +
          anthropicTail,
        keepOpen,
      };
      const final = (await anthropicStreamed()) as { content: Array<{ text: string }>; stop_reason: string };
      expect(final.content[0]?.text).toBe('partial answer');
      expect(final.stop_reason).toBe('end_turn');
    }
  });
});
