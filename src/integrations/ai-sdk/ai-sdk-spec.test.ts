/**
 * ctxkit's copy of the AI SDK's specification against both versions of `@ai-sdk/provider`: what ctxkit
 * writes must be the version's own type, and what a version hands over must fit what ctxkit reads.
 * Checked by the type checker (`tsc --noEmit`); the test only names what each check holds.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider-v3';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AiSdkCallOptions,
  AiSdkContent,
  AiSdkGenerateResult,
  AiSdkMessage,
  AiSdkStreamPart,
  AiSdkToolResultOutput,
  AiSdkUsage,
  AiSdkV3Message,
  AiSdkV3Prompt,
  AiSdkV3ToolResultOutput,
  AiSdkV4Message,
  AiSdkV4Prompt,
  AiSdkV4ToolResultOutput,
} from './ai-sdk-spec.ts';

describe('the AI SDK specification as ctxkit declares it', () => {
  it('V3 prompts are `@ai-sdk/provider` 3’s, both ways', () => {
    expectTypeOf<AiSdkV3Prompt>().toExtend<LanguageModelV3Prompt>();
    expectTypeOf<LanguageModelV3Prompt>().toExtend<AiSdkV3Prompt>();
    expectTypeOf<AiSdkV3Message>().toExtend<LanguageModelV3Message>();
    expectTypeOf<LanguageModelV3Message>().toExtend<AiSdkV3Message>();
    expectTypeOf<AiSdkV3ToolResultOutput>().toExtend<LanguageModelV3ToolResultOutput>();
    expectTypeOf<LanguageModelV3ToolResultOutput>().toExtend<AiSdkV3ToolResultOutput>();
  });

  it('V4 prompts are `@ai-sdk/provider` 4’s, both ways', () => {
    expectTypeOf<AiSdkV4Prompt>().toExtend<LanguageModelV4Prompt>();
    expectTypeOf<LanguageModelV4Prompt>().toExtend<AiSdkV4Prompt>();
    expectTypeOf<AiSdkV4Message>().toExtend<LanguageModelV4Message>();
    expectTypeOf<LanguageModelV4Message>().toExtend<AiSdkV4Message>();
    expectTypeOf<AiSdkV4ToolResultOutput>().toExtend<LanguageModelV4ToolResultOutput>();
    expectTypeOf<LanguageModelV4ToolResultOutput>().toExtend<AiSdkV4ToolResultOutput>();
  });

  it('the versions are not interchangeable where they differ (file data, tool output files)', () => {
    expectTypeOf<AiSdkV3Prompt>().not.toExtend<LanguageModelV4Prompt>();
    expectTypeOf<AiSdkV4Prompt>().not.toExtend<LanguageModelV3Prompt>();
  });

  it('what either version hands a middleware fits what ctxkit reads', () => {
    expectTypeOf<LanguageModelV3Message>().toExtend<AiSdkMessage>();
    expectTypeOf<LanguageModelV4Message>().toExtend<AiSdkMessage>();
    expectTypeOf<LanguageModelV3ToolResultOutput>().toExtend<AiSdkToolResultOutput>();
    expectTypeOf<LanguageModelV4ToolResultOutput>().toExtend<AiSdkToolResultOutput>();
    expectTypeOf<LanguageModelV3CallOptions>().toExtend<AiSdkCallOptions>();
    expectTypeOf<LanguageModelV4CallOptions>().toExtend<AiSdkCallOptions>();
    expectTypeOf<LanguageModelV3Content>().toExtend<AiSdkContent>();
    expectTypeOf<LanguageModelV4Content>().toExtend<AiSdkContent>();
    expectTypeOf<LanguageModelV3GenerateResult>().toExtend<AiSdkGenerateResult>();
    expectTypeOf<LanguageModelV4GenerateResult>().toExtend<AiSdkGenerateResult>();
    expectTypeOf<LanguageModelV3StreamPart>().toExtend<AiSdkStreamPart>();
    expectTypeOf<LanguageModelV4StreamPart>().toExtend<AiSdkStreamPart>();
    expectTypeOf<LanguageModelV3Usage>().toExtend<AiSdkUsage>();
    expectTypeOf<LanguageModelV4Usage>().toExtend<AiSdkUsage>();
  });
});
