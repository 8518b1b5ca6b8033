/**
 * The middleware under the AI SDK's own loops, AI SDK 7 and AI SDK 6: `generateText` and `streamText` with
 * tools, several steps, resending the whole history on every step. The session's log must hold every step
 * exactly once.
 */
import { jsonSchema, tool } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../../core/message.ts';
import { ctxkitMiddleware } from './ai-sdk-middleware.ts';
import { AI_SDK_MAJORS, type AiSdkMajor, type WrappedModel } from './testing/ai-sdk-majors.ts';
import { generated, streamed, testManager, toolCall, usage } from './testing/ai-sdk-testing.ts';

const tools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async ({ path }) => `contents of ${path}: ${'x'.repeat(200)}`,
  }),
};

/** Role and what each message says, to compare logs at a glance. */
const shape = (log: readonly Message[]) =>
  log.map((message) => {
    const parts = message.parts.map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-call') return `call ${part.name} ${part.args}`;
      if (part.type === 'tool-result') return `result ${part.callId}`;
      return part.type;
    });
    return `${message.role}: ${parts.join(' | ')}`;
  });

/** A model that calls read_file twice, one step each, then answers; each step reports more input. */
function scriptedModel(major: AiSdkMajor) {
  const steps = [
    [toolCall('c1', 'read_file', { path: 'a.ts' })],
    [{ type: 'text' as const, text: 'Now the other one.' }, toolCall('c2', 'read_file', { path: 'b.ts' })],
    [{ type: 'text' as const, text: 'Both files are fine.' }],
  ];
  let step = 0;
  const next = () => {
    const content = steps[Math.min(step, steps.length - 1)] ?? [];
    const reported = usage(1_000 * (step + 1), 20);
    step++;
    return { content, reported };
  };
  return major.mockModel({
    modelId: 'gpt-4o',
    doGenerate: async () => {
      const { content, reported } = next();
      return generated(content, reported);
    },
    doStream: async () => {
      const { content, reported } = next();
      return streamed(content, reported);
    },
  });
}

const EXPECTED_FIRST_CONVERSATION = [
  'user: Check a.ts and b.ts',
  'assistant: call read_file {"path":"a.ts"}',
  'tool: result c1',
  'assistant: Now the other one. | call read_file {"path":"b.ts"}',
  'tool: result c2',
  'assistant: Both files are fine.',
];

describe.each(AI_SDK_MAJORS)('$name', (major) => {
  describe.each(['generate', 'stream'] as const)('%sText over the wrapped model', (kind) => {
    const run = async (model: WrappedModel, messages: readonly unknown[]): Promise<unknown[]> => {
      const settings = { model, system: 'You review code.', tools, messages, steps: 5 };
      const outcome =
        kind === 'generate' ? await major.generateText(settings) : await major.streamText(settings);
      return outcome.responseMessages;
    };

    it('logs each step exactly once, with its usage, while the SDK resends the whole history', async () => {
      const manager = testManager();
      const afterTurn = vi.spyOn(manager, 'afterTurn');
      const inner = scriptedModel(major);
      const model = major.wrap(inner, ctxkitMiddleware({ manager, sessionId: 's1' }));
      const first = [{ role: 'user', content: 'Check a.ts and b.ts' }];
      const response = await run(model, first);

      const calls = kind === 'generate' ? inner.doGenerateCalls : inner.doStreamCalls;
      expect(calls).toHaveLength(3);
      const { log, edits } = await manager.history('s1');
      expect(shape(log)).toEqual(EXPECTED_FIRST_CONVERSATION);
      // Nothing was logged twice and hidden again: the SDK's resent history matched the log every step.
      expect(edits.filter((edit) => edit.type === 'branch')).toEqual([]);
      expect(log.filter((message) => message.role === 'assistant').map((message) => message.usage)).toEqual([
        { inputTokens: 1_000, outputTokens: 20 },
        { inputTokens: 2_000, outputTokens: 20 },
        { inputTokens: 3_000, outputTokens: 20 },
      ]);
      // afterTurn once per model call: after each reply and its tool results were logged. The turn ends
      // with the reply that calls no tool: only there may a turn's compaction (a summary) start.
      expect(afterTurn).toHaveBeenCalledTimes(3);
      const afterEach = await Promise.all(afterTurn.mock.results.map((result) => result.value));
      expect(afterEach.map((result) => [result.turnEnded, result.scheduled])).toEqual([
        [false, false],
        [false, false],
        [true, false],
      ]);
      // Every step's prompt was ctxkit's view of the log: the system prompt, then the conversation so far.
      expect(calls[2]?.prompt.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
      ]);

      // The next user turn resends everything again: only the new message is logged.
      await run(model, [...first, ...response, { role: 'user', content: 'Thanks. And c.ts?' }]);
      const after = await manager.history('s1');
      expect(shape(after.log).slice(0, 7)).toEqual([
        ...EXPECTED_FIRST_CONVERSATION,
        'user: Thanks. And c.ts?',
      ]);
      expect(after.log.length).toBe(7 + 1); // the last step answers at once (the script's final reply)
      expect(after.edits.filter((edit) => edit.type === 'branch')).toEqual([]);
    });
  });
});
