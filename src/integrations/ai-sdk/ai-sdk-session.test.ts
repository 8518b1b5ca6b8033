/**
 * A prompt through a real session: `sync` it, `prepare` with room to spare, convert the view back. Nothing
 * to compact, so the model must receive the prompt the caller sent, provider options and parts ctxkit does
 * not model included, from the memory store and from SQLite read back by a fresh manager: for a V3 prompt
 * (AI SDK 6) and a V4 prompt (AI SDK 7).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContextManager } from '../../engine/context-manager.ts';
import { createSqliteSessionStore } from '../../store/sqlite-session-store.ts';
import { fromAiSdkPrompt } from './ai-sdk-prompt.ts';
import type {
  AiSdkSpecificationVersion,
  AiSdkV3Message,
  AiSdkV3Prompt,
  AiSdkV3ToolResultOutput,
  AiSdkV4Prompt,
  ProviderOptions,
} from './ai-sdk-spec.ts';
import { toAiSdkPrompt } from './ai-sdk-write-prompt.ts';
import { testManager } from './testing/ai-sdk-testing.ts';

const asJson = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_key, member: unknown) => {
      if (member instanceof URL) return { url: member.href };
      if (member instanceof Uint8Array) return { bytes: Buffer.from(member).toString('base64') };
      return member;
    }),
  );

const words = fc
  .array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'build', 'test', 'ok', '42'), {
    minLength: 1,
    maxLength: 8,
  })
  .map((list) => list.join(' '));
const options: fc.Arbitrary<ProviderOptions | undefined> = fc.option(
  fc.constantFrom<ProviderOptions>(
    { anthropic: { cacheControl: { type: 'ephemeral' } } },
    { openai: { itemId: 'msg_123' } },
    { google: { thoughtSignature: 'c2ln' } },
  ),
  { nil: undefined },
);
const withOptions = <T extends object>(value: T, providerOptions: ProviderOptions | undefined): T =>
  providerOptions ? { ...value, providerOptions } : value;

/**
 * The conversations are built as V3 prompts; a V4 one is the same with V4's file data (tagged) and tool
 * output files (`file` items).
 */
const output: fc.Arbitrary<AiSdkV3ToolResultOutput> = fc.oneof(
  words.map((value) => ({ type: 'text' as const, value })),
  words.map((value) => ({ type: 'error-text' as const, value })),
  fc.record({ ok: fc.boolean(), note: words }).map((value) => ({ type: 'json' as const, value })),
  fc.constant({ type: 'execution-denied' as const, reason: 'not allowed' }),
  fc.tuple(words, fc.base64String({ minLength: 4, maxLength: 12 })).map(([text, data]) => ({
    type: 'content' as const,
    value: [
      { type: 'text' as const, text },
      { type: 'image-data' as const, data, mediaType: 'image/png' },
    ],
  })),
);

/** A V3 conversation as V4 gives it. */
function asV4(prompt: AiSdkV3Prompt): AiSdkV4Prompt {
  return prompt.map((message) => {
    if (message.role === 'system') return message;
    if (message.role === 'user')
      return {
        ...message,
        content: message.content.map((part) =>
          // The conversations' images are bytes.
          part.type === 'file'
            ? { ...part, data: { type: 'data' as const, data: part.data as Uint8Array } }
            : part,
        ),
      };
    const content = message.content.map((part) =>
      part.type === 'tool-result' && part.output.type === 'content'
        ? {
            ...part,
            output: {
              type: 'content' as const,
              value: part.output.value.map((item) =>
                item.type === 'image-data'
                  ? {
                      type: 'file' as const,
                      data: { type: 'data' as const, data: item.data },
                      mediaType: item.mediaType,
                    }
                  : item,
              ),
            },
          }
        : part,
    );
    return { ...message, content } as AiSdkV4Prompt[number];
  });
}

/** One turn: the user asks, the assistant thinks, maybe searches (provider-run) and calls tools, then answers. */
const turn = (index: number) =>
  fc
    .record({
      question: words,
      questionOptions: options,
      image: fc.option(fc.uint8Array({ minLength: 1, maxLength: 8 }), { nil: undefined }),
      reasoning: fc.option(fc.tuple(words, options), { nil: undefined }),
      search: fc.boolean(),
      calls: fc.array(fc.tuple(words, options, output, options), { maxLength: 3 }),
      answer: words,
      answerOptions: options,
    })
    .map((t): AiSdkV3Message[] => {
      const messages: AiSdkV3Message[] = [
        {
          role: 'user',
          content: [
            withOptions({ type: 'text' as const, text: t.question }, t.questionOptions),
            ...(t.image ? [{ type: 'file' as const, data: t.image, mediaType: 'image/png' }] : []),
          ],
        },
      ];
      const content: Extract<AiSdkV3Message, { role: 'assistant' }>['content'] = [];
      if (t.reasoning)
        content.push(withOptions({ type: 'reasoning' as const, text: t.reasoning[0] }, t.reasoning[1]));
      if (t.search) {
        const id = `ws${index}`;
        content.push(
          {
            type: 'tool-call',
            toolCallId: id,
            toolName: 'web_search',
            input: { q: t.question },
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: 'web_search',
            output: { type: 'json', value: [{ url: 'https://example.com' }] },
          },
        );
      }
      for (const [call, [args, callOptions]] of t.calls.entries())
        content.push(
          withOptions(
            {
              type: 'tool-call' as const,
              toolCallId: `c${index}_${call}`,
              toolName: 'grep',
              input: { pattern: args },
            },
            callOptions,
          ),
        );
      if (t.calls.length === 0) {
        content.push(withOptions({ type: 'text' as const, text: t.answer }, t.answerOptions));
        messages.push({ role: 'assistant', content });
        return messages;
      }
      messages.push({ role: 'assistant', content });
      messages.push({
        role: 'tool',
        content: t.calls.map(([, , result, resultOptions], call) =>
          withOptions(
            {
              type: 'tool-result' as const,
              toolCallId: `c${index}_${call}`,
              toolName: 'grep',
              output: result,
            },
            resultOptions,
          ),
        ),
      });
      messages.push({
        role: 'assistant',
        content: [withOptions({ type: 'text' as const, text: t.answer }, t.answerOptions)],
      });
      return messages;
    });

const conversation: fc.Arbitrary<AiSdkV3Prompt> = fc
  .integer({ min: 1, max: 5 })
  .chain((turns) => fc.tuple(...Array.from({ length: turns }, (_, index) => turn(index))))
  .chain((turns) =>
    options.map(
      (systemOptions): AiSdkV3Prompt => [
        withOptions({ role: 'system' as const, content: 'You are a careful agent.' }, systemOptions),
        ...turns.flat(),
      ],
    ),
  );

type Prompt = AiSdkV3Prompt | AiSdkV4Prompt;

async function throughSession(
  manager: ContextManager,
  sessionId: string,
  prompt: Prompt,
  version: AiSdkSpecificationVersion,
) {
  const { system, systemProviderOptions, messages } = fromAiSdkPrompt(prompt);
  await manager.sync(sessionId, messages);
  return view(manager, sessionId, system, systemProviderOptions, version);
}

async function view(
  manager: ContextManager,
  sessionId: string,
  system: string,
  systemProviderOptions: ProviderOptions | undefined,
  version: AiSdkSpecificationVersion,
) {
  const prepared = await manager.prepare(sessionId, {
    system,
    contextWindow: 200_000,
    maxOutputTokens: 4_000,
  });
  return toAiSdkPrompt(
    { ...prepared, ...(systemProviderOptions && { systemProviderOptions }) },
    { specificationVersion: version },
  );
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.each([
  { version: 'v3' as const, spec: 'V3 (AI SDK 6)', of: (prompt: AiSdkV3Prompt): Prompt => prompt },
  { version: 'v4' as const, spec: 'V4 (AI SDK 7)', of: asV4 },
])('a $spec prompt through a ctxkit session', ({ version, of }) => {
  it('reaches the model as sent when nothing needs compacting (property, memory store)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(conversation.map(of), async (prompt) => {
        const manager = testManager();
        const sent = await throughSession(manager, `s${run++}`, prompt, version);
        expect(asJson(sent)).toEqual(asJson(prompt));
      }),
      { numRuns: 60 },
    );
  });

  it('keeps what the AI SDK carries across a restart (SQLite, read back by a fresh manager)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-ai-sdk-'));
    dirs.push(dir);
    const prompts = fc.sample(conversation.map(of), { numRuns: 8, seed: 7 });
    const writer = testManager({ store: await createSqliteSessionStore({ dataDir: dir }) });
    for (const [index, prompt] of prompts.entries())
      await throughSession(writer, `s${index}`, prompt, version);
    const reader = testManager({ store: await createSqliteSessionStore({ dataDir: dir }) });
    for (const [index, prompt] of prompts.entries()) {
      const { system, systemProviderOptions } = fromAiSdkPrompt(prompt);
      // Resent as the AI SDK resends it: the stored messages are recognized, nothing is added.
      const again = await throughSession(reader, `s${index}`, prompt, version);
      expect(asJson(again)).toEqual(asJson(prompt));
      expect(asJson(await view(reader, `s${index}`, system, systemProviderOptions, version))).toEqual(
        asJson(prompt),
      );
      expect((await reader.history(`s${index}`)).log).toHaveLength(fromAiSdkPrompt(prompt).messages.length);
    }
  });
});
