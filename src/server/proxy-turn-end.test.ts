/**
 * A turn ends with a reply that calls no tool, in `ctxkit serve` as everywhere: the proxy logs a reply
 * with the client's next request, so it tells the manager the turn ended when the answer it relayed
 * called no tool, and what is due at a turn's end (picoclaw's summary past 20 messages) starts then.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type ProxyHarness, startProxyHarness } from './testing/proxy-harness.ts';

let harness: ProxyHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Five short turns, then one request answered through `calls` tool calls: 2 × calls + 11 messages. */
function toolLoop(calls: number): OpenAI.ChatCompletionMessageParam[] {
  const messages: OpenAI.ChatCompletionMessageParam[] = Array.from({ length: 5 }, (_, turn) => [
    { role: 'user' as const, content: `Question ${turn}?` },
    { role: 'assistant' as const, content: `Answer ${turn}.` },
  ]).flat();
  messages.push({ role: 'user', content: 'Read every file.' });
  for (let call = 0; call < calls; call++) {
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${call}`,
            type: 'function',
            function: { name: 'read_file', arguments: JSON.stringify({ path: `f${call}.ts` }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: `call_${call}`, content: `contents of f${call}.ts` },
    );
  }
  return messages;
}

describe('serve: the end of a turn', () => {
  it("starts a turn's summary when the relayed answer calls no tool, after a tool loop", async () => {
    harness = await startProxyHarness({ policy: PRESETS.picoclaw, detectWindow: false });
    const events: ContextEvent[] = [];
    harness.manager.on((event) => events.push(event));
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'read_file',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
        },
      },
    ];
    // 23 messages, past picoclaw's 20: a call inside the tool loop starts nothing.
    harness.upstream.enqueue(
      openAIReply({ toolCalls: [{ id: 'call_6', name: 'read_file', arguments: '{"path":"f6.ts"}' }] }),
    );
    await client.chat.completions.create({
      model: 'gpt-4o',
      max_tokens: 2_000,
      tools,
      messages: toolLoop(6),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events.filter((event) => event.type === 'summary-scheduled')).toEqual([]);
    // The same loop, answered: the turn ended.
    harness.upstream.enqueue(openAIReply({ content: 'All files read.' }));
    await client.chat.completions.create({
      model: 'gpt-4o',
      max_tokens: 2_000,
      tools,
      messages: [
        ...toolLoop(6),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_6',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"f6.ts"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_6', content: 'contents of f6.ts' },
      ],
    });
    await vi.waitFor(() => expect(events.some((event) => event.type === 'summary-scheduled')).toBe(true));
  });
});
