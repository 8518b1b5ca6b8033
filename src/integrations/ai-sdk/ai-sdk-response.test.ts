import type { LanguageModelV4Content } from '@ai-sdk/provider';
import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { contentId } from '../../core/stable-id.ts';
import { ctxkitMiddleware } from './ai-sdk-middleware.ts';
import { fromAiSdkPrompt } from './ai-sdk-prompt.ts';
import { fromAiSdkResponse, usageFromAiSdk } from './ai-sdk-response.ts';
import type { AiSdkSpecificationVersion } from './ai-sdk-spec.ts';
import { AI_SDK_MAJORS, type AiSdkMajor } from './testing/ai-sdk-majors.ts';
import { generated, streamed, testManager, toolCall, usage } from './testing/ai-sdk-testing.ts';

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

const PNG = new Uint8Array([137, 80, 78, 71]);

/**
 * A response with every kind of content a model of the version returns (written as V4 values; V3 gives a
 * file's bytes untagged and has no custom parts or reasoning files).
 */
function richResponse(version: AiSdkSpecificationVersion): LanguageModelV4Content[] {
  return [
    { type: 'reasoning', text: 'Let me look.', providerMetadata: { anthropic: { signature: 'sig-1' } } },
    { type: 'text', text: '' },
    // Kept in the next prompt by AI SDK 7 (it carries an item id), dropped by AI SDK 6.
    { type: 'text', text: '', providerMetadata: { openai: { itemId: 'msg_0' } } },
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
    version === 'v4'
      ? { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } }
      : ({ type: 'file', mediaType: 'image/png', data: PNG } as unknown as LanguageModelV4Content),
    ...(version === 'v4'
      ? ([
          {
            type: 'custom',
            kind: 'openai.compaction',
            providerMetadata: { openai: { encrypted: 'c2VjcmV0' } },
          },
          { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw==' } },
        ] satisfies LanguageModelV4Content[])
      : []),
    {
      ...toolCall('c1', 'open_page', { url: 'https://example.com' }),
      providerMetadata: { google: { thoughtSignature: 'ts' } },
    },
  ];
}

const tools = {
  open_page: tool({
    inputSchema: jsonSchema<{ url: string }>({ type: 'object', properties: { url: { type: 'string' } } }),
    execute: async () => 'page text',
  }),
};

/** A model that gives the rich response first, then `done`. */
function richModel(major: AiSdkMajor) {
  let generates = 0;
  let streams = 0;
  const rich = richResponse(major.specificationVersion);
  return major.mockModel({
    modelId: 'gpt-4o',
    doGenerate: async () =>
      ++generates === 1 ? generated(rich) : generated([{ type: 'text', text: 'done' }]),
    doStream: async () => (++streams === 1 ? streamed(rich) : streamed([{ type: 'text', text: 'done' }])),
  });
}

describe.each(AI_SDK_MAJORS)('fromAiSdkResponse under $name', (major) => {
  const version = major.specificationVersion;

  it('is the assistant message the AI SDK puts in its next prompt, content id and all', async () => {
    const inner = richModel(major);
    await major.generateText({ model: inner, prompt: 'Find it', tools, steps: 2 });
    const next = fromAiSdkPrompt(inner.doGenerateCalls[1]?.prompt ?? []).messages[1];
    const reply = fromAiSdkResponse(richResponse(version), {
      usage: usage(10, 5),
      model: 'm',
      specificationVersion: version,
    });
    expect(reply?.parts).toEqual(next?.parts);
    expect(contentId({ role: 'assistant', parts: reply?.parts ?? [] })).toBe(
      contentId({ role: 'assistant', parts: next?.parts ?? [] }),
    );
    expect(reply?.meta).toEqual(next?.meta && { ...next.meta, model: 'm' });
    expect(reply?.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    // What each version keeps of an empty text with provider metadata.
    expect(reply?.parts.filter((part) => part.type === 'text' && part.text === '')).toHaveLength(
      version === 'v4' ? 1 : 0,
    );
  });

  it('gives nothing to log for a response the next prompt would not hold', () => {
    const nothing: LanguageModelV4Content[] = [
      { type: 'text', text: '' },
      { type: 'source', sourceType: 'url', id: 's', url: 'https://x.y' },
    ];
    expect(fromAiSdkResponse(nothing, { specificationVersion: version })).toBeUndefined();
  });

  it.each(['generate', 'stream'] as const)(
    "lets the next step's sync recognize a rich reply (%s): logged once, provider parts sent back as they came",
    async (kind) => {
      const manager = testManager();
      const inner = richModel(major);
      const model = major.wrap(inner, ctxkitMiddleware({ manager, sessionId: 's' }));
      const settings = { model, prompt: 'Find it', tools, steps: 2 };
      if (kind === 'generate') await major.generateText(settings);
      else await major.streamText(settings);
      const { log, edits } = await manager.history('s');
      expect(log.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(edits.filter((edit) => edit.type === 'branch')).toEqual([]);
      // The second call's prompt, as ctxkit prepared it, holds the first reply exactly as the SDK resent it.
      const calls = kind === 'generate' ? inner.doGenerateCalls : inner.doStreamCalls;
      expect(calls[1]?.prompt[1]).toEqual(await sdkPromptOfSecondStep(major, kind));
    },
  );
});

/** The assistant message of the second step as the AI SDK itself sends it, without ctxkit in between. */
async function sdkPromptOfSecondStep(major: AiSdkMajor, kind: 'generate' | 'stream'): Promise<unknown> {
  const inner = richModel(major);
  const settings = { model: inner, prompt: 'Find it', tools, steps: 2 };
  if (kind === 'generate') await major.generateText(settings);
  else await major.streamText(settings);
  const calls = kind === 'generate' ? inner.doGenerateCalls : inner.doStreamCalls;
  return calls[1]?.prompt[1];
}
