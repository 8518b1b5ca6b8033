import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { contentId } from '../../core/stable-id.ts';
import { ctxkitMiddleware } from './ai-sdk-middleware.ts';
import { fromAiSdkPrompt } from './ai-sdk-prompt.ts';
import { fromAiSdkResponse, usageFromAiSdk } from './ai-sdk-response.ts';
import { generated, streamed, testManager, toolCall, usage } from './ai-sdk-testing.ts';

describe('usageFromAiSdk', () => {
  it('maps totals, cache reads and writes, and reasoning', () => {
    expect(
      usageFromAiSdk({
        inputTokens: { total: 1_200, noCache: 200, cacheRead: 900, cacheWrite: 100 },
        outputTokens: { total: 300, text: 100, reasoning: 200 },
      }),
    ).toEqual({
      inputTokens: 1_200,
      outputTokens: 300,
      cacheReadTokens: 900,
      cacheWriteTokens: 100,
      reasoningTokens: 200,
    });
  });

  it('adds up the details when a provider gives no totals, and gives nothing when it reports nothing', () => {
    expect(
      usageFromAiSdk({
        inputTokens: { total: undefined, noCache: 10, cacheRead: 5, cacheWrite: undefined },
        outputTokens: { total: undefined, text: 3, reasoning: undefined },
      }),
    ).toEqual({ inputTokens: 15, outputTokens: 3, cacheReadTokens: 5 });
    expect(
      usageFromAiSdk({
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      }),
    ).toBeUndefined();
  });
});

/** A response with every kind of content a model returns. */
const RICH_RESPONSE: LanguageModelV3Content[] = [
  { type: 'reasoning', text: 'Let me look.', providerMetadata: { anthropic: { signature: 'sig-1' } } },
  { type: 'text', text: '' },
  { type: 'source', sourceType: 'url', id: 'src1', url: 'https://example.com' },
  {
    type: 'tool-call',
    toolCallId: 'ws1',
    toolName: 'web_search',
    input: '{"query":"ctxkit"}',
    providerExecuted: true,
  },
  {
    type: 'tool-result',
    toolCallId: 'ws1',
    toolName: 'web_search',
    result: [{ url: 'https://example.com', title: 'Example' }],
    providerMetadata: { anthropic: { cached: false } },
  },
  { type: 'text', text: 'I found a page.', providerMetadata: { openai: { itemId: 'msg_1' } } },
  { type: 'file', mediaType: 'image/png', data: new Uint8Array([137, 80, 78, 71]) },
  {
    ...toolCall('c1', 'open_page', { url: 'https://example.com' }),
    providerMetadata: { google: { thoughtSignature: 'ts' } },
  },
];

const tools = {
  open_page: tool({
    inputSchema: jsonSchema<{ url: string }>({ type: 'object', properties: { url: { type: 'string' } } }),
    execute: async () => 'page text',
  }),
};

describe('fromAiSdkResponse', () => {
  it('is the assistant message the AI SDK puts in its next prompt, content id and all', async () => {
    const inner = new MockLanguageModelV3({
      doGenerate: async () =>
        inner.doGenerateCalls.length === 1
          ? generated(RICH_RESPONSE)
          : generated([{ type: 'text', text: 'done' }]),
    });
    await generateText({ model: inner, prompt: 'Find it', tools, stopWhen: stepCountIs(2) });
    const next = fromAiSdkPrompt((inner.doGenerateCalls[1] as LanguageModelV3CallOptions).prompt).messages[1];
    const reply = fromAiSdkResponse(RICH_RESPONSE, { usage: usage(10, 5), model: 'm' });
    expect(reply?.parts).toEqual(next?.parts);
    expect(contentId({ role: 'assistant', parts: reply?.parts ?? [] })).toBe(
      contentId({ role: 'assistant', parts: next?.parts ?? [] }),
    );
    expect(reply?.meta).toEqual(next?.meta && { ...next.meta, model: 'm' });
    expect(reply?.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });

  it('gives nothing to log for a response the next prompt would not hold', () => {
    expect(
      fromAiSdkResponse([
        { type: 'text', text: '' },
        { type: 'source', sourceType: 'url', id: 's', url: 'https://x.y' },
      ]),
    ).toBeUndefined();
  });

  for (const kind of ['generate', 'stream'] as const)
    it(`lets the next step's sync recognize a rich reply (${kind}): logged once, provider parts sent back as they came`, async () => {
      const manager = testManager();
      const inner = new MockLanguageModelV3({
        modelId: 'gpt-4o',
        doGenerate: async () =>
          inner.doGenerateCalls.length === 1
            ? generated(RICH_RESPONSE)
            : generated([{ type: 'text', text: 'done' }]),
        doStream: async () =>
          inner.doStreamCalls.length === 1
            ? streamed(RICH_RESPONSE)
            : streamed([{ type: 'text', text: 'done' }]),
      });
      const model = wrapLanguageModel({
        model: inner,
        middleware: ctxkitMiddleware({ manager, sessionId: 's' }),
      });
      const settings = { model, prompt: 'Find it', tools, stopWhen: stepCountIs(2) };
      if (kind === 'generate') await generateText(settings);
      else await streamText(settings).consumeStream();
      const { log, edits } = await manager.history('s');
      expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(edits.filter((edit) => edit.type === 'branch')).toEqual([]);
      // The second call's prompt, as ctxkit prepared it, holds the first reply exactly as the SDK resent it.
      const calls = kind === 'generate' ? inner.doGenerateCalls : inner.doStreamCalls;
      const [sent] = await captureSdkPrompt(kind);
      expect(calls[1]?.prompt[1]).toEqual(sent);
    });
});

/** The assistant message of the second step as the AI SDK itself sends it, without ctxkit in between. */
async function captureSdkPrompt(kind: 'generate' | 'stream') {
  const inner = new MockLanguageModelV3({
    doGenerate: async () =>
      inner.doGenerateCalls.length === 1
        ? generated(RICH_RESPONSE)
        : generated([{ type: 'text', text: 'done' }]),
    doStream: async () =>
      inner.doStreamCalls.length === 1 ? streamed(RICH_RESPONSE) : streamed([{ type: 'text', text: 'done' }]),
  });
  const settings = { model: inner, prompt: 'Find it', tools, stopWhen: stepCountIs(2) };
  if (kind === 'generate') await generateText(settings);
  else await streamText(settings).consumeStream();
  const calls = kind === 'generate' ? inner.doGenerateCalls : inner.doStreamCalls;
  return [JSON.parse(JSON.stringify(calls[1]?.prompt[1])) as unknown];
}
