/**
 * ctxkitMiddleware under the real AI SDK, 7 and 6 alike: what the model receives, the options, usage,
 * overflow recovery and streams.
 */
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { jsonSchema, type ModelMessage, simulateReadableStream, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, InvalidSessionIdError } from '../../core/errors/index.ts';
import type { ContextEvent } from '../../core/events.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import type { PrepareResult } from '../../engine/context-manager.ts';
import { ctxkitMiddleware } from './ai-sdk-middleware.ts';
import type { AiSdkCallOptions, AiSdkPrompt, AiSdkStreamPart } from './ai-sdk-spec.ts';
import { ctxkitTools } from './ai-sdk-tools.ts';
import { AI_SDK_MAJORS, type MockModelOptions } from './testing/ai-sdk-majors.ts';
import {
  generated,
  openAIOverflowError,
  openAIRateLimitError,
  promptTexts,
  streamed,
  streamParts,
  testManager,
  toolCall,
  usage,
} from './testing/ai-sdk-testing.ts';

const o200k = createExactCounter('o200k');
const promptTokens = (prompt: AiSdkPrompt) =>
  promptTexts(prompt).reduce((sum, text) => sum + o200k.count(text), 0);

const BUILD_LOG = Array.from(
  { length: 4000 },
  (_, i) =>
    `2024-01-01T00:00:${String(i % 60).padStart(2, '0')} INFO worker-${i % 7} built module ${i} in ${i % 97}ms`,
).join('\n');

/** A conversation of `turns` turns, each a question, a tool call, a ~1.5k-character result and an answer. */
function longConversation(turns: number): ModelMessage[] {
  return Array.from({ length: turns }, (_, turn): ModelMessage[] => [
    {
      role: 'user',
      content: `Question ${turn}: what does module ${turn} do? ${'Please be thorough. '.repeat(10)}`,
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: `c${turn}`, toolName: 'read_file', input: { path: `m${turn}.ts` } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${turn}`,
          toolName: 'read_file',
          output: {
            type: 'text',
            value: `export const m${turn} = ${JSON.stringify('line of code '.repeat(120))};`,
          },
        },
      ],
    },
    { role: 'assistant', content: `Module ${turn} exports one constant. ${'It is simple. '.repeat(15)}` },
  ]).flat();
}

const text = (value: string) => [{ type: 'text' as const, text: value }];

describe.each(AI_SDK_MAJORS)('ctxkitMiddleware under $name', (major) => {
  /** A mock model of this major wrapped by this major's `wrapLanguageModel` with ctxkit's middleware. */
  const wrapped = (model: MockModelOptions, middleware: Parameters<typeof ctxkitMiddleware>[0]) => {
    const inner = major.mockModel({ modelId: 'gpt-4o', ...model });
    return { inner, model: major.wrap(inner, ctxkitMiddleware(middleware)) };
  };

  describe('what the model receives', () => {
    it('is the prepared view: an offloaded result reaches the model as a pointer, and ctxkitTools reads it back', async () => {
      const manager = testManager();
      const prompts: AiSdkPrompt[] = [];
      let prepared: PrepareResult | undefined;
      const { model } = wrapped(
        {
          doGenerate: async ({ prompt }) => {
            prompts.push(prompt);
            const step = prompts.length;
            if (step === 1) return generated([toolCall('b1', 'run_build', {})]);
            if (step === 2) {
              const ref = /read_offloaded(?:\(\\?"| tool \(ref \\?")([^"\\]+)/.exec(
                JSON.stringify(prompt),
              )?.[1];
              return generated([toolCall('r1', 'read_offloaded', { ref, search: 'module 3999' })]);
            }
            return generated(text('Module 3999 built in 22ms.'));
          },
        },
        {
          manager,
          sessionId: 's',
          onPrepared: (result) => {
            prepared = result;
          },
        },
      );
      const result = await major.generateText({
        model,
        tools: {
          run_build: tool({
            inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
            execute: async () => BUILD_LOG,
          }),
          ...ctxkitTools({ manager, sessionId: 's' }),
        },
        prompt: 'Build it. How long did the last module take?',
        steps: 5,
      });

      expect(result.text).toBe('Module 3999 built in 22ms.');
      const sent = JSON.stringify(prompts[1]);
      expect(sent).toContain('read_offloaded');
      expect(sent).not.toContain('built module 2000 in');
      expect(sent.length).toBeLessThan(BUILD_LOG.length / 4);
      expect(prepared?.pointers.length).toBeGreaterThan(0);
      // The read-back answered inside the session: the model's third prompt holds the line it searched for.
      const readBack = JSON.stringify(prompts[2]?.at(-1));
      expect(readBack).toContain('built module 3999 in');
      // The log keeps the whole output all the same.
      const { log } = await manager.history('s');
      expect(
        log.some((message) =>
          message.parts.some((part) => part.type === 'tool-result' && part.content === BUILD_LOG),
        ),
      ).toBe(true);
    });

    it('warns through the AI SDK when the request points at offloaded content and no read tool is offered', async () => {
      const manager = testManager();
      const { model } = wrapped(
        { doGenerate: async () => generated(text('ok')), doStream: async () => streamed(text('ok')) },
        { manager, sessionId: 's' },
      );
      const messages: ModelMessage[] = [
        { role: 'user', content: 'Build it.' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'b1', toolName: 'run_build', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'b1',
              toolName: 'run_build',
              output: { type: 'text', value: BUILD_LOG },
            },
          ],
        },
      ];
      for (const run of [major.generateText, major.streamText]) {
        const result = await run({ model, messages });
        expect(result.warnings.map((warning) => (warning as { message?: string }).message)).toEqual([
          expect.stringContaining('ctxkitTools'),
        ]);
      }
    });

    it('never sends a tiny window a prompt over it, whatever history the caller sends', async () => {
      const window = 4_000;
      const reserve = 500;
      const manager = testManager({ contextWindow: window, maxOutputTokens: reserve });
      const { inner, model } = wrapped(
        { doGenerate: async () => generated(text('Done.')) },
        { manager, sessionId: 's' },
      );
      const history = longConversation(30);
      let messages: unknown[] = [...history, { role: 'user', content: 'Summarize all modules.' }];
      for (let call = 0; call < 3; call++) {
        const result = await major.generateText({ model, system: 'You explain code.', messages });
        messages = [
          ...messages,
          ...result.responseMessages,
          { role: 'user', content: `And again (${call}).` },
        ];
      }
      const rawTokens = history.reduce(
        (sum, message) => sum + o200k.count(JSON.stringify(message.content)),
        0,
      );
      expect(rawTokens).toBeGreaterThan(window * 4);
      expect(inner.doGenerateCalls).toHaveLength(3);
      for (const call of inner.doGenerateCalls) {
        expect(promptTokens(call.prompt)).toBeLessThanOrEqual(window - reserve);
        // What ctxkit kept is the newest part of the conversation, the question of the call included.
        expect(promptTexts(call.prompt).some((piece) => piece.startsWith('Summarize all modules'))).toBe(
          true,
        );
      }
    });

    it('takes the session from providerOptions.ctxkit.sessionId, and refuses a call without one', async () => {
      const manager = testManager();
      const { model } = wrapped({ doGenerate: async () => generated(text('hi')) }, { manager });
      await major.generateText({
        model,
        prompt: 'hello',
        providerOptions: { ctxkit: { sessionId: 'chat-42' } },
      });
      expect((await manager.history('chat-42')).log.map((message) => message.role)).toEqual([
        'user',
        'assistant',
      ]);
      await expect(major.generateText({ model, prompt: 'hello', maxRetries: 0 })).rejects.toSatisfy((error) =>
        InvalidSessionIdError.isInstance(error),
      );
    });

    it(`writes the view in the model's own specification (${major.specificationVersion})`, async () => {
      const manager = testManager();
      const { inner, model } = wrapped(
        { doGenerate: async () => generated(text('A cat.')) },
        { manager, sessionId: 's' },
      );
      const image = new Uint8Array([137, 80, 78, 71]);
      await major.generateText({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'file', data: image, mediaType: 'image/png' },
            ],
          },
        ],
      });
      const file = inner.doGenerateCalls[0]?.prompt[0]?.content[1];
      // V3 gives a file's bytes as they are, V4 tags them: what ctxkit sent back is what the SDK would send.
      expect(file).toEqual({
        type: 'file',
        mediaType: 'image/png',
        data: major.specificationVersion === 'v4' ? { type: 'data', data: image } : image,
      });
      expect((await manager.history('s')).log[0]?.parts[1]).toEqual({
        type: 'media',
        mediaType: 'image/png',
        ref: 'data:image/png;base64,iVBORw==',
      });
    });
  });

  describe('options and sessions', () => {
    it('prepares for the model, window and reply reserve it is told, and hands every prepared request to onPrepared', async () => {
      const manager = testManager();
      const seen: { model: string | undefined; window: number; reserve: number; retry: boolean }[] = [];
      const { model } = wrapped(
        { modelId: 'my-azure-deployment', doGenerate: async () => generated(text('ok')) },
        {
          manager,
          sessionId: 's',
          model: 'gpt-4o-mini',
          contextWindow: 50_000,
          onPrepared: (prepared, call) => {
            seen.push({
              model: prepared.stats.model,
              window: prepared.stats.contextWindow,
              reserve: prepared.stats.maxOutputTokens,
              retry: call.retry,
            });
          },
        },
      );
      await major.generateText({ model, prompt: 'hi', maxOutputTokens: 1_234 });
      expect(seen).toEqual([{ model: 'gpt-4o-mini', window: 50_000, reserve: 1_234, retry: false }]);
    });

    it("reserves a call's own maxOutputTokens for that call only", async () => {
      const manager = testManager({ maxOutputTokens: 2_000 });
      const reserves: number[] = [];
      const { model } = wrapped(
        { doGenerate: async () => generated(text('ok')) },
        {
          manager,
          sessionId: 's',
          onPrepared: (prepared) => {
            reserves.push(prepared.stats.maxOutputTokens);
          },
        },
      );
      await major.generateText({ model, prompt: 'hi', maxOutputTokens: 1_234 });
      await major.generateText({ model, prompt: 'hi again' });
      expect(reserves).toEqual([1_234, 2_000]);
    });

    it('follows a regenerated reply: the old one stays in the log, hidden, and is not sent again', async () => {
      const manager = testManager();
      let replies = 0;
      const { inner, model } = wrapped(
        { doGenerate: async () => generated(text(`Answer ${++replies}`)) },
        { manager, sessionId: 's' },
      );
      await major.generateText({ model, prompt: 'Tell me a joke' });
      await major.generateText({ model, prompt: 'Tell me a joke' });
      expect(promptTexts(inner.doGenerateCalls[1]?.prompt ?? [])).toEqual(['Tell me a joke']);
      const { log, edits } = await manager.history('s');
      expect(log.map((message) => message.parts[0]?.type === 'text' && message.parts[0].text)).toEqual([
        'Tell me a joke',
        'Answer 1',
        'Answer 2',
      ]);
      expect(edits.filter((edit) => edit.type === 'branch')).toHaveLength(1);
    });
  });

  describe('usage', () => {
    it('logs the reply with the usage it reported, and the session estimate is anchored on it', async () => {
      const manager = testManager();
      const events: ContextEvent[] = [];
      manager.on((event) => events.push(event));
      const { model } = wrapped(
        { doGenerate: async () => generated(text('Hello!'), usage(5_000, 40, 4_096)) },
        { manager, sessionId: 's' },
      );
      await major.generateText({ model, system: 'Be kind.', prompt: 'Hi' });

      const { log } = await manager.history('s');
      expect(log.at(-1)).toMatchObject({
        role: 'assistant',
        parts: [{ type: 'text', text: 'Hello!' }],
        usage: { inputTokens: 5_000, outputTokens: 40, cacheReadTokens: 4_096 },
        meta: { model: 'gpt-4o' },
      });
      expect(events.filter((event) => event.type === 'model-usage')).toHaveLength(1);
      // Our own count of "Hi" + "Hello!" is a few tokens; the provider said the request took 5,000 and the
      // reply 40: the history estimate is what it reported, less the system prompt.
      const stats = await manager.stats('s');
      expect(stats.tokens.history).toBe(
        5_000 + 40 - stats.tokens.system - stats.tokens.tools - stats.tokens.summary,
      );
      const unanchored = testManager();
      await unanchored.append(
        's',
        log.map(({ role, parts }) => ({ role, parts })),
      );
      await unanchored.prepare('s', { system: 'Be kind.' });
      expect((await unanchored.stats('s')).tokens.history).toBeLessThan(50);
    });
  });

  describe('overflow', () => {
    const session = (doGenerate: () => Promise<LanguageModelV4GenerateResult>) => {
      const manager = testManager();
      const events: ContextEvent[] = [];
      manager.on((event) => events.push(event));
      const { inner, model } = wrapped({ doGenerate }, { manager, sessionId: 's' });
      const messages: ModelMessage[] = [...longConversation(8), { role: 'user', content: 'What now?' }];
      return { manager, events, inner, model, messages };
    };

    it('recovers an overflow the provider reports (OpenAI 400 context_length_exceeded) and retries once, with less', async () => {
      let calls = 0;
      const { manager, events, inner, model, messages } = session(async () => {
        calls++;
        if (calls === 1) throw openAIOverflowError();
        return generated(text('Here is the plan.'));
      });
      const result = await major.generateText({ model, messages });
      expect(result.text).toBe('Here is the plan.');
      expect(inner.doGenerateCalls).toHaveLength(2);
      const [first, second] = inner.doGenerateCalls.map((call) => promptTokens(call.prompt));
      expect(second).toBeLessThan(first ?? 0);
      expect(events.filter((event) => event.type === 'context-overflowed')).toMatchObject([{ retry: true }]);
      const { log } = await manager.history('s');
      expect(log.at(-1)?.parts).toEqual(text('Here is the plan.'));
      expect(
        log.filter(
          (message) =>
            message.role === 'user' &&
            message.parts[0]?.type === 'text' &&
            message.parts[0].text === 'What now?',
        ),
      ).toHaveLength(1);
    });

    it("follows the policy at each overflow in a row (drop to fit, then reset), then the error is the caller's", async () => {
      const { inner, model, messages, events } = session(async () => {
        throw openAIOverflowError();
      });
      await expect(major.generateText({ model, messages, maxRetries: 0 })).rejects.toThrow(
        /maximum context length/,
      );
      // default: the first overflow drops to fit and retries (maxRetries 1), the second resets to the
      // last turn and retries, the third stands.
      const overflowed = events.flatMap((event) =>
        event.type === 'context-overflowed' ? [[event.attempt, event.retry]] : [],
      );
      expect(overflowed).toEqual([
        [1, true],
        [2, true],
        [3, false],
      ]);
      expect(inner.doGenerateCalls).toHaveLength(3);
    });

    it('a session that overflowed until the error stood still takes the next message (no scale left that nothing fits)', async () => {
      let failures = 3;
      const { model, messages } = session(async () => {
        if (failures-- > 0) throw openAIOverflowError();
        return generated(text('back'), usage(50, 1));
      });
      await expect(major.generateText({ model, messages, maxRetries: 0 })).rejects.toThrow(
        /maximum context length/,
      );
      const next = await major.generateText({
        model,
        messages: [...messages, { role: 'user', content: 'x' }],
        maxRetries: 0,
      });
      expect(next.text).toBe('back');
    });

    it('does not take a rate limit for an overflow: no recovery, no retry of its own', async () => {
      const { manager, inner, model, messages, events } = session(async () => {
        throw openAIRateLimitError();
      });
      await expect(major.generateText({ model, messages, maxRetries: 0 })).rejects.toThrow(/Rate limit/);
      expect(inner.doGenerateCalls).toHaveLength(1);
      expect(events.filter((event) => event.type === 'context-overflowed')).toEqual([]);
      expect((await manager.history('s')).edits.filter((edit) => edit.layer === 'emergency')).toEqual([]);
    });
  });

  describe('streams', () => {
    const params = (prompt: string): AiSdkCallOptions => ({
      prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    });
    const read = async (stream: ReadableStream<AiSdkStreamPart>) => {
      const parts: AiSdkStreamPart[] = [];
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) return parts;
        parts.push(next.value);
      }
    };
    const textOf = (parts: AiSdkStreamPart[]) =>
      parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
    const streaming = (chunks: () => LanguageModelV4StreamPart[] | Promise<never>) => {
      const manager = testManager();
      const { inner, model } = wrapped(
        { doStream: async () => ({ stream: simulateReadableStream({ chunks: await chunks() }) }) },
        { manager, sessionId: 's' },
      );
      return { manager, inner, model };
    };
    /** The long conversation as this AI SDK's prompt, then a question: something a recovery can cut. */
    const longParams = async (): Promise<AiSdkCallOptions> => {
      const probe = major.mockModel({ doGenerate: async () => generated(text('.')) });
      await major.generateText({
        model: probe,
        messages: [...longConversation(8), { role: 'user', content: 'What now?' }],
      });
      return { prompt: probe.doGenerateCalls[0]?.prompt ?? [] };
    };

    it('retries a stream whose call throws an overflow', async () => {
      let calls = 0;
      const { inner, model, manager } = streaming(() => {
        calls++;
        if (calls === 1) return Promise.reject(openAIOverflowError());
        return streamParts(text('Recovered answer.'));
      });
      const { stream } = await model.doStream(await longParams());
      expect(textOf(await read(stream))).toBe('Recovered answer.');
      expect(inner.doStreamCalls).toHaveLength(2);
      const [first, second] = inner.doStreamCalls.map((call) => promptTokens(call.prompt));
      expect(second).toBeLessThan(first ?? 0);
      expect((await manager.history('s')).log.at(-1)?.parts).toEqual(text('Recovered answer.'));
    });

    it('retries a stream whose first chunk is an overflow error', async () => {
      let calls = 0;
      const { inner, model } = streaming(() => {
        calls++;
        return calls === 1
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'error', error: openAIOverflowError() },
            ]
          : streamParts(text('Second time lucky.'));
      });
      const { stream } = await model.doStream(await longParams());
      const parts = await read(stream);
      expect(textOf(parts)).toBe('Second time lucky.');
      expect(parts.filter((part) => part.type === 'error')).toEqual([]);
      expect(inner.doStreamCalls).toHaveLength(2);
      const [first, second] = inner.doStreamCalls.map((call) => promptTokens(call.prompt));
      expect(second).toBeLessThan(first ?? 0);
    });

    it.runIf(major.specificationVersion === 'v4')(
      'retries a stream whose overflow error follows a keep-alive ping (V4): a ping is not content',
      async () => {
        let calls = 0;
        const { inner, model } = streaming(() =>
          ++calls === 1
            ? [
                { type: 'stream-start', warnings: [] },
                { type: 'ping' },
                { type: 'error', error: openAIOverflowError() },
              ]
            : streamParts(text('After the ping.')),
        );
        const parts = await read((await model.doStream(await longParams())).stream);
        expect(textOf(parts)).toBe('After the ping.');
        expect(inner.doStreamCalls).toHaveLength(2);
      },
    );

    it('passes an overflow after content through: the caller has seen bytes, nothing is retried', async () => {
      const { inner, model, manager } = streaming(() => [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Partial' },
        { type: 'error', error: openAIOverflowError() },
      ]);
      const parts = await read((await model.doStream(params('hello'))).stream);
      expect(parts.map((part) => part.type)).toEqual(['stream-start', 'text-start', 'text-delta', 'error']);
      expect(inner.doStreamCalls).toHaveLength(1);
      // No finish, no reply: only the user's message is logged.
      expect((await manager.history('s')).log.map((message) => message.role)).toEqual(['user']);
    });

    it('logs the streamed reply with the usage of its finish part', async () => {
      const { model, manager } = streaming(() => streamParts(text('Streamed hello.'), usage(777, 7)));
      await read((await model.doStream(params('hello'))).stream);
      expect((await manager.history('s')).log.at(-1)).toMatchObject({
        role: 'assistant',
        parts: text('Streamed hello.'),
        usage: { inputTokens: 777, outputTokens: 7 },
      });
    });
  });
});

describe('ctxkitMiddleware and the specification a model speaks', () => {
  it('refuses a model of a specification it does not know, saying which ones it works with', async () => {
    const middleware = ctxkitMiddleware({ manager: testManager(), sessionId: 's' });
    await expect(
      middleware.transformParams({
        type: 'generate',
        params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
        model: { specificationVersion: 'v2', provider: 'openai.chat', modelId: 'gpt-4o' },
      }),
    ).rejects.toSatisfy(
      (error) =>
        InvalidInputError.isInstance(error) && /AI SDK 6 .* and AI SDK 7/.test((error as Error).message),
    );
  });
});
