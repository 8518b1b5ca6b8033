/**
 * The middlewares' door to the window rule: both go through `prepare`, so they answer as the library
 * does for the same inputs (picoclaw's 4 × the reply reserve, the unknown-model error elsewhere).
 */
import { AIMessage, createAgent, fakeModel, HumanMessage } from 'langchain';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { ctxkitMiddleware } from './ai-sdk/ai-sdk-middleware.ts';
import { AI_SDK_MAJORS } from './ai-sdk/testing/ai-sdk-majors.ts';
import { generated } from './ai-sdk/testing/ai-sdk-testing.ts';
import { ctxkitContextMiddleware } from './langchain/ctxkit-context-middleware.ts';

const UNKNOWN = /unknown model "my-local-model" and no context window configured/;

describe('the AI SDK middleware: the window rule through prepare', () => {
  const major = (() => {
    const first = AI_SDK_MAJORS[0];
    if (first === undefined) throw new Error('no AI SDK major to test');
    return first;
  })();

  async function windowOf(preset: keyof typeof PRESETS, maxOutputTokens: number): Promise<number[]> {
    const manager = createContextManager({ policy: PRESETS[preset] });
    const windows: number[] = [];
    const inner = major.mockModel({
      modelId: 'my-local-model',
      doGenerate: async () => generated([{ type: 'text', text: 'ok' }]),
    });
    const model = major.wrap(
      inner,
      ctxkitMiddleware({
        manager,
        sessionId: 's',
        onPrepared: (prepared) => {
          windows.push(prepared.stats.contextWindow);
        },
      }),
    );
    await major.generateText({ model, prompt: 'hi', maxOutputTokens });
    return windows;
  }

  it('picoclaw: 4 × the call’s maxOutputTokens; any other preset: the unknown-model error', async () => {
    expect(await windowOf('picoclaw', 2_048)).toEqual([8_192]);
    await expect(windowOf('default', 2_048)).rejects.toThrow(UNKNOWN);
  });
});

describe('the LangChain.js middleware: the window rule through prepare', () => {
  /** LangChain's fake chat model, with a LangChain profile when asked. */
  function model(profile?: { maxInputTokens: number }) {
    const fake = fakeModel().respond(new AIMessage('ok'));
    if (profile) Object.defineProperty(fake, 'profile', { value: profile });
    return fake;
  }

  async function windowOf(preset: keyof typeof PRESETS, profile?: { maxInputTokens: number }) {
    const manager = createContextManager({ policy: PRESETS[preset] });
    const windows: number[] = [];
    const agent = createAgent({
      model: model(profile),
      tools: [],
      middleware: [
        ctxkitContextMiddleware({
          manager,
          onPrepare: (prepared) => {
            windows.push(prepared.stats.contextWindow);
          },
        }),
      ],
    });
    await agent.invoke({ messages: [new HumanMessage('hello')] }, { configurable: { thread_id: 't' } });
    return windows;
  }

  it('LangChain’s profile is a model profile: used where the policy looks windows up, not under picoclaw', async () => {
    expect(await windowOf('default', { maxInputTokens: 50_000 })).toEqual([50_000]);
    expect(await windowOf('picoclaw', { maxInputTokens: 50_000 })).toEqual([4 * 32_768]);
    await expect(windowOf('default')).rejects.toThrow(/unknown model "\(no model set\)"/);
  });
});
