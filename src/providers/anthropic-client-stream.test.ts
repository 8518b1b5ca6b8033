import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelCallAbortedError, ModelCallError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { anthropicErrors } from '../testing/fake-provider-server-errors.ts';
import {
  type AnthropicReplyOptions,
  anthropicMessageBody,
  anthropicReply,
} from '../testing/fake-provider-server-replies.ts';
import {
  anthropicStreamError,
  anthropicStreamEvents,
  anthropicStreamReply,
} from '../testing/fake-provider-server-streams.ts';
import { createAnthropicClient } from './anthropic-client.ts';
import { isContextOverflow, parseOverflowTokens } from './is-context-overflow.ts';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from './model-client.ts';
import { stoppedForContextWindow } from './stop-reasons.ts';

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
  parts: [{ type: 'text', text: 'read c.ts' }],
  meta: {},
};
const request: ModelRequest = {
  model: 'claude-haiku-4-5',
  system: 'You are terse.',
  messages: [user],
  tools: [{ name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
  maxOutputTokens: 1024,
};

const client = () => createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k', maxRetries: 0 });

async function collect(events: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

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

const answer: AnthropicReplyOptions = {
  id: 'msg_01same',
  model: 'claude-sonnet-4-5-20250929',
  content: [
    { type: 'thinking', thinking: 'The user wants c.ts; read it first.', signature: 'sig-c-opaque' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy-redacted' },
    { type: 'text', text: 'Reading c.ts now.' },
    { type: 'tool_use', id: 'toolu_c', name: 'read', input: { path: 'src/c.ts', lines: [1, 20] } },
  ],
  usage: { inputTokens: 50, outputTokens: 120, cacheReadInputTokens: 9000, cacheCreationInputTokens: 300 },
};

describe('createAnthropicClient: stream', () => {
  it('streams thinking, text and a tool call, and ends with the response complete gives', async () => {
    server.enqueue(anthropicReply(answer), anthropicStreamReply({ ...answer, chunkSize: 6 }));
    const whole = await client().complete(request);
    const events = await collect(client().stream(request));

    expect(textOf(events, 'reasoning-delta')).toBe('The user wants c.ts; read it first.');
    expect(textOf(events, 'text-delta')).toBe('Reading c.ts now.');
    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(events.filter((event) => event.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', callId: 'toolu_c', name: 'read' },
    ]);
    const args = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.argsDelta] : []));
    expect(args.length).toBeGreaterThan(1);
    expect(JSON.parse(args.join(''))).toEqual({ path: 'src/c.ts', lines: [1, 20] });

    const response = responseOf(events);
    expect(response).toEqual(whole);
    expect(response.message.parts).toEqual([
      { type: 'reasoning', text: 'The user wants c.ts; read it first.', signature: 'sig-c-opaque' },
      { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy-redacted' },
      { type: 'text', text: 'Reading c.ts now.' },
      { type: 'tool-call', callId: 'toolu_c', name: 'read', args: '{"path":"src/c.ts","lines":[1,20]}' },
    ]);
    // Input excludes cached tokens on the wire; ctxkit's inputTokens is the whole prompt.
    expect(response.usage).toEqual({
      inputTokens: 9350,
      outputTokens: 120,
      cacheReadTokens: 9000,
      cacheWriteTokens: 300,
    });
    expect(response.stopReason).toBe('tool_use');
    const [plain, streamed] = server.requests.map((sent) => sent.body as Record<string, unknown>);
    expect(streamed).toEqual({ ...plain, stream: true });
  });

  it('keeps the input figures of message_start when message_delta reports only output tokens', async () => {
    const events = anthropicStreamEvents(anthropicMessageBody({ text: 'hi', usage: answer.usage }));
    const outputOnly = events.map((event) =>
      event.event === 'message_delta'
        ? {
            ...event,
            data: JSON.stringify({
              type: 'message_delta',
              delta: { stop_reason: 'end_turn', stop_sequence: null },
              usage: { output_tokens: 120 },
            }),
          }
        : event,
    );
    server.enqueue({ events: outputOnly });
    expect(responseOf(await collect(client().stream(request))).usage).toEqual({
      inputTokens: 9350,
      outputTokens: 120,
      cacheReadTokens: 9000,
      cacheWriteTokens: 300,
    });
  });

  it('turns a plain reply scripted for a streaming request into its stream', async () => {
    server.enqueue(anthropicReply({ text: 'Plain, but streamed.' }));
    const events = await collect(client().stream(request));
    expect(events.map((event) => event.type)).toEqual(['text-delta', 'text-delta', 'response']);
    expect(responseOf(events).message.parts).toEqual([{ type: 'text', text: 'Plain, but streamed.' }]);
  });

  it('surfaces the stop reason model_context_window_exceeded unchanged', async () => {
    server.enqueue(
      anthropicStreamReply({ text: 'The answer was cut', stopReason: 'model_context_window_exceeded' }),
      anthropicReply({ text: 'The answer was cut', stopReason: 'model_context_window_exceeded' }),
    );
    const streamed = responseOf(await collect(client().stream(request)));
    const whole = await client().complete(request);
    for (const response of [streamed, whole]) {
      expect(response.stopReason).toBe('model_context_window_exceeded');
      expect(stoppedForContextWindow(response.stopReason)).toBe(true);
    }
  });

  it('fails when the stream ends before message_stop', async () => {
    const events = anthropicStreamEvents(anthropicMessageBody({ text: 'never finished' }));
    server.enqueue({ events: events.slice(0, -2) });
    const { error } = await collectUntilError(client().stream(request));
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).message).toContain('stream ended before the message did');
  });
});

describe('createAnthropicClient: stream errors', () => {
  it('an overloaded_error event after a 200 and some text is a 529 ModelCallError, not an overflow', async () => {
    server.enqueue(anthropicStreamError(anthropicErrors.overloaded(), { text: 'Working on it' }));
    const { seen, error } = await collectUntilError(client().stream(request));
    expect(textOf(seen, 'text-delta')).toBe('Working on it');
    expect(error).toBeInstanceOf(ModelCallError);
    const failure = error as ModelCallError;
    expect(failure.status).toBe(529);
    expect(failure.providerType).toBe('overloaded_error');
    expect(failure.message).toContain('in stream');
    expect(isContextOverflow(failure)).toBe(false);
  });

  it('a rate_limit_error event is a 429, not an overflow (though it says "reduce the prompt length")', async () => {
    server.enqueue(anthropicStreamError(anthropicErrors.rateLimit()));
    const { error } = await collectUntilError(client().stream(request));
    expect((error as ModelCallError).status).toBe(429);
    expect((error as ModelCallError).providerType).toBe('rate_limit_error');
    expect(isContextOverflow(error)).toBe(false);
  });

  it('a "prompt is too long" event is an overflow, with its figures', async () => {
    server.enqueue(anthropicStreamError(anthropicErrors.promptTooLong({ tokens: 210_000, limit: 200_000 })));
    const { error } = await collectUntilError(client().stream(request));
    expect((error as ModelCallError).status).toBe(400);
    expect(isContextOverflow(error)).toBe(true);
    expect(parseOverflowTokens(error)).toEqual({ requested: 210_000, limit: 200_000 });
  });

  it('413 request_too_large and the window error, answered before the stream, are overflows', async () => {
    server.enqueue(
      anthropicErrors.requestTooLarge(),
      anthropicErrors.contextLimitExceeded({ input: 190_000, maxTokens: 20_000 }),
    );
    const tooLarge = (await collectUntilError(client().stream(request))).error as ModelCallError;
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.providerType).toBe('request_too_large');
    expect(isContextOverflow(tooLarge)).toBe(true);
    const window = (await collectUntilError(client().stream(request))).error as ModelCallError;
    expect(isContextOverflow(window)).toBe(true);
    expect(parseOverflowTokens(window)).toEqual({ requested: 210_000, limit: 200_000, completion: 20_000 });
  });
});

describe('createAnthropicClient: stream abort', () => {
  it('an abort mid-stream rejects at once, and the server sees the connection closed', async () => {
    server.enqueue(anthropicStreamReply({ text: 'x'.repeat(400), chunkSize: 10, chunkDelayMs: 200 }));
    const controller = new AbortController();
    let abortedAt = 0;
    const error = await (async () => {
      for await (const event of client().stream({ ...request, signal: controller.signal })) {
        if (event.type === 'text-delta' && abortedAt === 0) {
          abortedAt = Date.now();
          controller.abort();
        }
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallAbortedError);
    expect(Date.now() - abortedAt).toBeLessThan(150);
    await waitFor(() => server.requests[0]?.clientAborted === true);
    expect(server.requests[0]?.clientAborted).toBe(true);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}
