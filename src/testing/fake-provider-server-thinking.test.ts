import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from './fake-provider-server.ts';
import { anthropicReply } from './fake-provider-server-replies.ts';
import { anthropicStreamReply } from './fake-provider-server-streams.ts';
import { createThinkingSigner } from './thinking-signer.ts';

let server: FakeProviderServer;
let client: Anthropic;

beforeEach(async () => {
  server = await startFakeProviderServer({ thinkingSigner: createThinkingSigner() });
  client = new Anthropic({ baseURL: server.anthropicBaseUrl, apiKey: 'sk-ant-test', maxRetries: 0 });
});
afterEach(async () => {
  await server.close();
});

const THINKING = [
  { type: 'thinking' as const, thinking: 'The bug is in parse(); read it.', signature: 'scripted' },
  { type: 'redacted_thinking' as const, data: 'scripted' },
  { type: 'tool_use' as const, id: 'toolu_01', name: 'Read', input: { file_path: '/src/parse.ts' } },
];
const TOOLS = [{ name: 'Read', input_schema: { type: 'object' as const, properties: {} } }];
const FIRST: MessageParam = { role: 'user', content: 'Fix the parser.' };
const params = (messages: MessageParam[]) => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 2048,
  thinking: { type: 'enabled' as const, budget_tokens: 1024 },
  tools: TOOLS,
  messages,
});
const resultOf = (id: string): MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: 'export function parse() {}' }],
});

describe('fake provider server with a thinking signer', () => {
  it.each([false, true])(
    'signs the thinking it answers with (stream: %s) and takes it back unchanged',
    async (stream) => {
      server.enqueue(
        stream
          ? anthropicStreamReply({ content: THINKING, chunkSize: 5 })
          : anthropicReply({ content: THINKING }),
        anthropicReply({ text: 'Fixed.' }),
      );
      const first = stream
        ? await client.messages.stream(params([FIRST])).finalMessage()
        : await client.messages.create(params([FIRST]));
      const [thinking, redacted] = first.content;
      if (thinking?.type !== 'thinking' || redacted?.type !== 'redacted_thinking')
        throw new Error('no thinking');
      expect(server.thinkingSigner?.verify(thinking.thinking, thinking.signature)).toBe(true);
      expect(server.thinkingSigner?.issued(redacted.data)).toBe(true);

      const next = await client.messages.create(
        params([FIRST, { role: 'assistant', content: first.content }, resultOf('toolu_01')]),
      );
      expect(next.content).toEqual([{ type: 'text', text: 'Fixed.' }]);
      expect(server.requests.map((request) => request.refusal)).toEqual([undefined, undefined]);
    },
  );

  it('refuses thinking changed, dropped from a tool loop, or not its own, as Anthropic does', async () => {
    server.enqueue(anthropicReply({ content: THINKING }));
    const first = await client.messages.create(params([FIRST]));
    const [thinking, redacted, call] = first.content;
    if (thinking?.type !== 'thinking' || redacted === undefined || call === undefined)
      throw new Error('no blocks');
    const resend = (content: typeof first.content) =>
      client.messages.create(params([FIRST, { role: 'assistant', content }, resultOf('toolu_01')]));

    await expect(
      resend([{ ...thinking, thinking: `${thinking.thinking} ` }, redacted, call]),
    ).rejects.toMatchObject({
      status: 400,
      error: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'messages.1.content.0: Invalid `signature` in `thinking` block',
        },
      },
    });
    await expect(resend([call])).rejects.toMatchObject({ status: 400 });
    await expect(
      resend([{ ...thinking, signature: createThinkingSigner().sign(thinking.thinking) }, call]),
    ).rejects.toMatchObject({ status: 400 });
    expect(server.requests.slice(1).map((request) => request.refusal)).toEqual([
      'messages.1.content.0: Invalid `signature` in `thinking` block',
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    ]);
    expect(server.pending()).toBe(0);
  });

  it('refuses a tool result with no call before it, recording why', async () => {
    await expect(client.messages.create(params([FIRST, resultOf('toolu_lost')]))).rejects.toMatchObject({
      status: 400,
    });
    expect(server.requests[0]?.refusal).toBe(
      'messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_lost. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });
});
