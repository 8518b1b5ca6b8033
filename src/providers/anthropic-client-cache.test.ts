import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import {
  type AnthropicRulesUpstream,
  startAnthropicRulesUpstream,
} from '../server/testing/anthropic-rules-upstream.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { anthropicReply } from '../testing/fake-provider-server-replies.ts';
import { createAnthropicClient } from './anthropic-client.ts';
import type { ModelRequest } from './model-client.ts';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const EPHEMERAL = { type: 'ephemeral' };
/** Long enough to pass the minimum cacheable prefix (1,024 tokens for claude-sonnet-4-5). */
const SYSTEM = 'You are a careful coding agent. Read before you write. '.repeat(120);
const msg = (seq: number, role: Message['role'], parts: Message['parts']): Message => ({
  id: `m${seq}`,
  seq,
  role,
  parts,
  meta: {},
});
const first: Message[] = [msg(0, 'user', [{ type: 'text', text: 'fix a.ts' }])];
const second: Message[] = [
  ...first,
  msg(1, 'assistant', [
    { type: 'reasoning', text: 'Read it first.', signature: 'sig' },
    { type: 'text', text: 'Reading.' },
    { type: 'tool-call', callId: 'toolu_a', name: 'read', args: '{"path":"a.ts"}' },
  ]),
  msg(2, 'tool', [{ type: 'tool-result', callId: 'toolu_a', name: 'read', content: 'A', isError: false }]),
];
const request = (messages: Message[]): ModelRequest => ({
  model: 'claude-sonnet-4-5',
  system: SYSTEM,
  messages,
  tools: [{ name: 'read', description: 'Read a file' }],
  maxOutputTokens: 256,
});

type Body = { system?: unknown; tools?: unknown[]; messages: Array<{ content: unknown }> };
const sent = (index: number) => server.requests[index]?.body as Body;

describe('createAnthropicClient: prompt-cache breakpoints', () => {
  it('marks the tools and system and the end, then reads where the previous call wrote', async () => {
    server.enqueue(anthropicReply({ text: 'ok' }), anthropicReply({ text: 'ok' }));
    const client = createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' });
    await client.complete(request(first));
    await client.complete(request(second));

    const one = sent(0);
    expect(one.tools).toEqual([
      { name: 'read', description: 'Read a file', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(one.system).toEqual([{ type: 'text', text: SYSTEM, cache_control: EPHEMERAL }]);
    expect(one.messages[0]?.content).toEqual([{ type: 'text', text: 'fix a.ts', cache_control: EPHEMERAL }]);

    const two = sent(1);
    expect(two.system).toEqual([{ type: 'text', text: SYSTEM, cache_control: EPHEMERAL }]);
    // The first call's end, read again; the thinking block left unmarked; the new end written.
    expect(two.messages[0]?.content).toEqual([{ type: 'text', text: 'fix a.ts', cache_control: EPHEMERAL }]);
    const assistant = two.messages[1]?.content as Array<Record<string, unknown>>;
    expect(assistant[0]).toEqual({ type: 'thinking', thinking: 'Read it first.', signature: 'sig' });
    expect(two.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A', cache_control: EPHEMERAL },
    ]);
  });

  it('marks streamed requests the same way', async () => {
    server.enqueue(anthropicReply({ text: 'ok' }));
    const client = createAnthropicClient({ baseUrl: server.anthropicBaseUrl, apiKey: 'k' });
    for await (const _event of client.stream(request(first))) {
      // drained
    }
    expect(sent(0).system).toEqual([{ type: 'text', text: SYSTEM, cache_control: EPHEMERAL }]);
  });

  it('sends no cache_control with promptCache: false', async () => {
    server.enqueue(anthropicReply({ text: 'ok' }));
    await createAnthropicClient({
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'k',
      promptCache: false,
    }).complete(request(second));
    expect(JSON.stringify(sent(0))).not.toContain('cache_control');
    expect(sent(0).system).toBe(SYSTEM);
  });

  it('leaves the marks a caller set through extraBody alone and adds none', async () => {
    server.enqueue(anthropicReply({ text: 'ok' }), anthropicReply({ text: 'ok' }));
    const automatic = createAnthropicClient({
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'k',
      extraBody: { cache_control: EPHEMERAL },
    });
    await automatic.complete(request(second));
    expect(JSON.stringify(sent(0).messages)).not.toContain('cache_control');
    expect(sent(0).system).toBe(SYSTEM);

    const own = [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral', ttl: '1h' } }];
    await createAnthropicClient({
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'k',
      extraBody: { system: own },
    }).complete(request(second));
    expect(sent(1).system).toEqual(own);
    expect(JSON.stringify(sent(1).messages)).not.toContain('cache_control');
  });
});

describe('createAnthropicClient: prompt-cache breakpoints against the API’s rules', () => {
  let upstream: AnthropicRulesUpstream;
  beforeEach(async () => {
    upstream = await startAnthropicRulesUpstream({ window: 200_000 });
  });
  afterEach(async () => {
    await upstream.close();
  });

  it('a long tool loop with signed thinking is never refused and never holds more than four marks', async () => {
    const client = createAnthropicClient({ baseUrl: upstream.baseUrl, apiKey: 'k' });
    const history: Message[] = [msg(0, 'user', [{ type: 'text', text: 'read every file' }])];
    for (let step = 0; step < 30; step++) {
      const thought = `file ${step} next`;
      history.push(
        msg(history.length, 'assistant', [
          { type: 'reasoning', text: thought, signature: upstream.signer.sign(thought) },
          { type: 'tool-call', callId: `toolu_${step}`, name: 'read', args: `{"path":"f${step}.ts"}` },
        ]),
        msg(history.length + 1, 'tool', [
          {
            type: 'tool-result',
            callId: `toolu_${step}`,
            name: 'read',
            content: `contents of f${step}.ts `.repeat(40),
            isError: false,
          },
        ]),
      );
      await client.complete({ ...request(history), messages: [...history] });
    }
    const requests = upstream.requests;
    expect(requests).toHaveLength(30);
    for (const sentRequest of requests) {
      expect(sentRequest.refusal).toBeUndefined();
      const marks = JSON.stringify(sentRequest.body).split('"cache_control"').length - 1;
      expect(marks).toBeGreaterThan(0);
      expect(marks).toBeLessThanOrEqual(4);
    }
  });
});
