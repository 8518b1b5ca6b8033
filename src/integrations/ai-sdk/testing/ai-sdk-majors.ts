/**
 * Test support: the two AI SDK majors ctxkit supports, each the real package (`ai` is AI SDK 7, `ai-v6`
 * AI SDK 6), behind the few calls the shared suites make, so one suite runs against both
 * (`describe.each(AI_SDK_MAJORS)`). Each major is driven through its own `wrapLanguageModel`,
 * `generateText`, `streamText` and mock model; only the settings a suite passes are translated (AI SDK 7
 * calls the system prompt `instructions`).
 *
 * Mock results are written once, as V4 values: text, reasoning, tool calls and results, usage and finish
 * reasons are the same in V3. A suite that sends files builds them per version.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider-v3';
import * as ai7 from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import type { CtxkitMiddleware } from '../ai-sdk-middleware.ts';
import type { AiSdkCallOptions, AiSdkSpecificationVersion, AiSdkStreamPart } from '../ai-sdk-spec.ts';

export interface MockModelOptions {
  modelId?: string;
  provider?: string;
  doGenerate?: (call: AiSdkCallOptions) => Promise<LanguageModelV4GenerateResult>;
  doStream?: (call: AiSdkCallOptions) => Promise<LanguageModelV4StreamResult>;
}

/** A mock model of a major, and the calls it received. */
export interface MockModel {
  readonly doGenerateCalls: readonly AiSdkCallOptions[];
  readonly doStreamCalls: readonly AiSdkCallOptions[];
}

/** A model wrapped by a major's `wrapLanguageModel`. */
export interface WrappedModel {
  doStream(params: AiSdkCallOptions): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>;
}

/** The settings of `generateText` / `streamText` the suites use, the same for both majors. */
export interface TextSettings {
  model: WrappedModel | MockModel;
  system?: string;
  prompt?: string;
  /** `ModelMessage`s: what a suite writes itself (text, tool calls, text results) or a result gave back. */
  messages?: readonly unknown[];
  /** Tools made with `tool()` (the same function in both majors). */
  tools?: Record<string, unknown>;
  /** Stop after this many steps (`stopWhen: stepCountIs(steps)`); one when unset. */
  steps?: number;
  maxOutputTokens?: number;
  maxRetries?: number;
  providerOptions?: Record<string, Record<string, string>>;
}

export interface TextOutcome {
  text: string;
  /** The messages to send back on the next turn. */
  responseMessages: unknown[];
  warnings: readonly unknown[];
}

export interface AiSdkMajor {
  name: string;
  specificationVersion: AiSdkSpecificationVersion;
  mockModel(options: MockModelOptions): MockModel;
  wrap(model: MockModel, middleware: CtxkitMiddleware): WrappedModel;
  generateText(settings: TextSettings): Promise<TextOutcome>;
  streamText(settings: TextSettings): Promise<TextOutcome>;
}

/*
 * Each major's functions are typed against its own package; the handles the suites pass around are typed
 * by what the suites read of them, and each major takes back only handles it made.
 */

const AI_SDK_7: AiSdkMajor = {
  name: 'AI SDK 7',
  specificationVersion: 'v4',
  mockModel: ({ doGenerate, doStream, ...rest }) =>
    new MockLanguageModelV4({
      ...rest,
      ...(doGenerate && { doGenerate: (call: LanguageModelV4CallOptions) => doGenerate(call) }),
      ...(doStream && { doStream: (call: LanguageModelV4CallOptions) => doStream(call) }),
    }),
  wrap: (model, middleware) => ai7.wrapLanguageModel({ model: model as MockLanguageModelV4, middleware }),
  async generateText(settings) {
    const result = await ai7.generateText(settings7(settings));
    return { text: result.text, responseMessages: result.responseMessages, warnings: result.warnings ?? [] };
  },
  async streamText(settings) {
    const result = ai7.streamText(settings7(settings));
    const [text, responseMessages, warnings] = await Promise.all([
      result.text,
      result.responseMessages,
      result.warnings,
    ]);
    return { text, responseMessages, warnings: warnings ?? [] };
  },
};

function settings7({ model, system, prompt, messages, tools, steps, ...rest }: TextSettings) {
  return {
    ...rest,
    model: model as unknown as ai7.LanguageModel,
    ...(system !== undefined && { instructions: system }),
    ...(messages !== undefined ? { messages: messages as ai7.ModelMessage[] } : { prompt: prompt ?? '' }),
    ...(tools !== undefined && { tools: tools as ai7.ToolSet }),
    stopWhen: ai7.stepCountIs(steps ?? 1),
  };
}

const AI_SDK_6: AiSdkMajor = {
  name: 'AI SDK 6',
  specificationVersion: 'v3',
  mockModel: ({ doGenerate, doStream, ...rest }) =>
    new MockLanguageModelV3({
      ...rest,
      ...(doGenerate && {
        doGenerate: async (call: LanguageModelV3CallOptions) =>
          (await doGenerate(call)) as unknown as LanguageModelV3GenerateResult,
      }),
      ...(doStream && {
        doStream: async (call: LanguageModelV3CallOptions) =>
          (await doStream(call)) as unknown as LanguageModelV3StreamResult,
      }),
    }),
  wrap: (model, middleware) => ai6.wrapLanguageModel({ model: model as MockLanguageModelV3, middleware }),
  async generateText(settings) {
    const result = await ai6.generateText(settings6(settings));
    return { text: result.text, responseMessages: result.response.messages, warnings: result.warnings ?? [] };
  },
  async streamText(settings) {
    const result = ai6.streamText(settings6(settings));
    const [text, response, warnings] = await Promise.all([result.text, result.response, result.warnings]);
    return { text, responseMessages: response.messages, warnings: warnings ?? [] };
  },
};

function settings6({ model, system, prompt, messages, tools, steps, ...rest }: TextSettings) {
  return {
    ...rest,
    model: model as unknown as ai6.LanguageModel,
    ...(system !== undefined && { system }),
    ...(messages !== undefined ? { messages: messages as ai6.ModelMessage[] } : { prompt: prompt ?? '' }),
    ...(tools !== undefined && { tools: tools as ai6.ToolSet }),
    stopWhen: ai6.stepCountIs(steps ?? 1),
  };
}

/** Both majors, the current one first. */
export const AI_SDK_MAJORS: readonly AiSdkMajor[] = [AI_SDK_7, AI_SDK_6];
