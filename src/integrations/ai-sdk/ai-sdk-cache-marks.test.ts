import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { createContextManager } from '../../engine/context-manager.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../../testing/fake-provider-server.ts';
import { anthropicReply } from '../../testing/fake-provider-server-replies.ts';
import { ctxkitMiddleware } from './ai-sdk-middleware.ts';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

/** Long enough to pass the minimum cacheable prefix (1,024 tokens for claude-sonnet-4-5). */
const SYSTEM = 'You are a careful coding agent. Read before you write. '.repeat(120);

type Block = { type: string; cache_control?: unknown };
type Body = {
  system?: Block[] | string;
  tools?: Block[];
  messages: { role: string; content: Block[] | string }[];
};

/** Every block of a body the cache reads, in order, and where the marks are. */
function blocksOf(body: Body): Block[] {
  const system = typeof body.system === 'string' ? [{ type: 'text' }] : (body.system ?? []);
  const messages = body.messages.flatMap((message) =>
    typeof message.content === 'string' ? [{ type: 'text' }] : message.content,
  );
  return [...(body.tools ?? []), ...system, ...messages];
}
const marksOf = (body: Body): number[] =>
  blocksOf(body).flatMap((block, index) => (block.cache_control !== undefined ? [index] : []));

const readTool = tool({
  description: 'Read a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
  execute: async ({ path }) => `contents of ${path}: ${'line of code\n'.repeat(40)}`,
});

async function runLoop(options: { promptCache?: boolean; clientMark?: boolean } = {}): Promise<Body[]> {
  const calls = 6;
  for (let step = 0; step < calls - 1; step++)
    server.enqueue(
      anthropicReply({
        content: [{ type: 'tool_use', id: `toolu_${step}`, name: 'read', input: { path: `f${step}.ts` } }],
      }),
    );
  server.enqueue(anthropicReply({ text: 'Done.' }));
  const manager = createContextManager({ policy: PRESETS.default });
  const model = wrapLanguageModel({
    model: createAnthropic({ baseURL: `${server.anthropicBaseUrl}/v1`, apiKey: 'k' })('claude-sonnet-4-5'),
    middleware: ctxkitMiddleware({
      manager,
      sessionId: 's',
      ...(options.promptCache !== undefined && { promptCache: options.promptCache }),
    }),
  });
  await generateText({
    model,
    system: SYSTEM,
    messages: [
      {
        role: 'user',
        content: 'read the files one by one',
        ...(options.clientMark && {
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        }),
      },
    ],
    tools: { read: readTool },
    stopWhen: stepCountIs(calls),
  });
  return server.requests.map((request) => request.body as Body);
}

describe('ctxkitMiddleware: Anthropic prompt-cache breakpoints (AI SDK 7, @ai-sdk/anthropic over HTTP)', () => {
  it('marks the end of every call and reads what the previous one wrote, never more than four marks', async () => {
    const bodies = await runLoop();
    expect(bodies).toHaveLength(6);
    for (const [index, body] of bodies.entries()) {
      const marks = marksOf(body);
      const blocks = blocksOf(body);
      expect(marks.length).toBeGreaterThan(0);
      expect(marks.length).toBeLessThanOrEqual(4);
      // The request's end is written for the next call.
      expect(marks.at(-1)).toBe(blocks.length - 1);
      if (index === 0) continue;
      // Where the previous call wrote its end is marked again: this call reads it.
      const previousEnd = blocksOf(bodies[index - 1] as Body).length - 1;
      expect(marks).toContain(previousEnd);
    }
    // The system prompt, the prefix every call shares, carries a mark on the first call.
    expect(marksOf(bodies[0] as Body)).toContain((bodies[0]?.tools?.length ?? 0) + 0);
  });

  it('sends no mark with promptCache: false', async () => {
    const bodies = await runLoop({ promptCache: false });
    expect(bodies).toHaveLength(6);
    for (const body of bodies) expect(marksOf(body)).toEqual([]);
  });

  it('leaves a call that marks its own cache as the caller sent it', async () => {
    const bodies = await runLoop({ clientMark: true });
    expect(bodies).toHaveLength(6);
    for (const body of bodies) expect(marksOf(body).length).toBe(1);
  });
});
