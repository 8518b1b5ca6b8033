/**
 * serve, Anthropic Messages: a client that marks no `cache_control` gets ctxkit's prompt-cache
 * breakpoints on the upstream body (at most four, the request's end among them, the previous request's
 * end read again); `promptCache: false` sends none; a client's own marks go as the client set them.
 * Driven by the official Anthropic SDK over HTTP, through the proxy, to a stand-in that refuses what
 * the API refuses (more than four breakpoints, a mark on thinking).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';
import {
  type AnthropicRulesUpstream,
  startAnthropicRulesUpstream,
} from './testing/anthropic-rules-upstream.ts';
import { capturingLogger } from './testing/capturing-logger.ts';

/** Past the 1,024-token minimum cacheable prefix. */
const SYSTEM = 'You are a careful coding agent. Read before you write. '.repeat(150);
const TOOLS = [
  {
    name: 'read',
    description: 'Read a file',
    input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } },
  },
];

let upstream: AnthropicRulesUpstream | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close(0);
  await upstream?.close();
});

type Block = { type: string; cache_control?: unknown };
/** Every block of an upstream body in the cache's order, and which carry a mark. */
function marksOf(body: Record<string, unknown>): { blocks: number; marks: number[] } {
  const tools = (body.tools as Block[] | undefined) ?? [];
  const system = typeof body.system === 'string' ? [{ type: 'text' }] : ((body.system as Block[]) ?? []);
  const messages = (body.messages as { content: string | Block[] }[]).flatMap((message) =>
    typeof message.content === 'string' ? [{ type: 'text' }] : message.content,
  );
  const blocks: Block[] = [...tools, ...system, ...messages];
  return {
    blocks: blocks.length,
    marks: blocks.flatMap((block, index) => (block.cache_control !== undefined ? [index] : [])),
  };
}

async function conversation(options: { promptCache?: boolean; clientMarks?: boolean; stream?: boolean }) {
  upstream = await startAnthropicRulesUpstream({ window: 200_000 });
  let step = 0;
  upstream.answerWith(() =>
    step++ < 4
      ? [{ type: 'tool_use', id: `toolu_${step}`, name: 'read', input: { path: `f${step}.ts` } }]
      : [{ type: 'text', text: 'Done.' }],
  );
  const store = createMemorySessionStore();
  proxy = await startProxyServer({
    manager: createContextManager({ policy: PRESETS.default, store, blobs: createMemoryBlobStore() }),
    upstream: 'http://127.0.0.1:9/v1',
    upstreamAnthropic: upstream.baseUrl,
    detectWindow: false,
    logger: capturingLogger().logger,
    sessions: store,
    ...(options.promptCache !== undefined && { promptCache: options.promptCache }),
  });
  const client = new Anthropic({ baseURL: proxy.url, apiKey: 'sk-ant-test', maxRetries: 0 });
  const messages: MessageParam[] = [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'read the files one by one',
          ...(options.clientMarks && { cache_control: { type: 'ephemeral' as const } }),
        },
      ],
    },
  ];
  for (let turn = 0; turn < 5; turn++) {
    const request = { model: 'claude-sonnet-4-5', max_tokens: 1024, system: SYSTEM, tools: TOOLS, messages };
    const reply = options.stream
      ? await client.messages.stream(request).finalMessage()
      : await client.messages.create(request);
    messages.push({ role: 'assistant', content: reply.content });
    const call = reply.content.find((block) => block.type === 'tool_use');
    if (!call) break;
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: call.id, content: `contents of a file: ${'code\n'.repeat(60)}` },
      ],
    });
  }
  return upstream.requests;
}

describe('serve: Anthropic prompt-cache breakpoints', () => {
  for (const stream of [false, true]) {
    it(`marks a request whose client marked none: its end, and where the previous one wrote${stream ? ' (streamed)' : ''}`, async () => {
      const requests = await conversation({ stream });
      expect(requests).toHaveLength(5);
      expect(requests.map((request) => request.refusal)).toEqual(requests.map(() => undefined));
      let previousEnd: number | undefined;
      for (const request of requests) {
        const { blocks, marks } = marksOf(request.body);
        expect(marks.length).toBeGreaterThan(0);
        expect(marks.length).toBeLessThanOrEqual(4);
        expect(marks.at(-1)).toBe(blocks - 1);
        if (previousEnd !== undefined) expect(marks).toContain(previousEnd);
        previousEnd = blocks - 1;
      }
    });
  }

  it('sends none with promptCache: false', async () => {
    const requests = await conversation({ promptCache: false });
    expect(requests).toHaveLength(5);
    for (const request of requests) expect(marksOf(request.body).marks).toEqual([]);
  });

  it("leaves a client's own marks as they are, adding none", async () => {
    const requests = await conversation({ clientMarks: true });
    expect(requests).toHaveLength(5);
    for (const request of requests) {
      const { marks } = marksOf(request.body);
      // The client's one mark, on its first message's text (after the tools and the system prompt).
      expect(marks).toEqual([TOOLS.length + 1]);
    }
  });
});
