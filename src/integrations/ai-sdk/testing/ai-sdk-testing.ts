/**
 * Test support for the AI SDK adapter: a ctxkit manager on a fixed clock, and mock model results as the
 * AI SDK's providers return them (as V4 values; see `ai-sdk-majors.ts` for V3).
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { type Policy, PRESETS } from '../../../core/policy/index.ts';
import { type ContextManagerOptions, createContextManager } from '../../../engine/context-manager.ts';
import type { AiSdkPrompt } from '../ai-sdk-spec.ts';

export const testClock = (): (() => number) => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

export function testManager(options: Partial<ContextManagerOptions> & { policy?: Policy } = {}) {
  return createContextManager({
    policy: { ...PRESETS.default, model: 'gpt-4o' },
    clock: testClock(),
    ...options,
  });
}

export const usage = (input: number, output: number, cacheRead?: number): LanguageModelV4Usage => ({
  inputTokens: {
    total: input,
    noCache: cacheRead === undefined ? input : input - cacheRead,
    cacheRead,
    cacheWrite: undefined,
  },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

export const generated = (
  content: LanguageModelV4Content[],
  reported: LanguageModelV4Usage = usage(100, 10),
): LanguageModelV4GenerateResult => ({
  content,
  finishReason: {
    unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
    raw: undefined,
  },
  usage: reported,
  warnings: [],
});

export const toolCall = (toolCallId: string, toolName: string, input: unknown): LanguageModelV4Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});

/** A response as stream parts: its texts and tool calls, then `finish` with the usage. */
export function streamed(
  content: LanguageModelV4Content[],
  reported: LanguageModelV4Usage = usage(100, 10),
): LanguageModelV4StreamResult {
  return { stream: simulateReadableStream({ chunks: streamParts(content, reported) }) };
}

export function streamParts(
  content: LanguageModelV4Content[],
  reported: LanguageModelV4Usage = usage(100, 10),
): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  content.forEach((part, index) => {
    if (part.type === 'text') {
      const id = `t${index}`;
      const providerMetadata = part.providerMetadata;
      parts.push({ type: 'text-start', id });
      for (const word of part.text.split(/(?<= )/)) parts.push({ type: 'text-delta', id, delta: word });
      parts.push({ type: 'text-end', id, ...(providerMetadata && { providerMetadata }) });
    } else if (part.type === 'reasoning') {
      const id = `r${index}`;
      const providerMetadata = part.providerMetadata;
      parts.push({ type: 'reasoning-start', id });
      parts.push({ type: 'reasoning-delta', id, delta: part.text });
      parts.push({ type: 'reasoning-end', id, ...(providerMetadata && { providerMetadata }) });
    } else parts.push(part as LanguageModelV4StreamPart);
  });
  parts.push({ type: 'finish', usage: reported, finishReason: generated(content).finishReason });
  return parts;
}

/** The error `@ai-sdk/openai` throws for OpenAI's 400 `context_length_exceeded`. */
export function openAIOverflowError(): APICallError {
  const error = {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  };
  return new APICallError({
    message: error.message,
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 400,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ error }),
    isRetryable: false,
    data: { error },
  });
}

/** The error `@ai-sdk/openai` throws for a 429 whose text talks about tokens. */
export function openAIRateLimitError(): APICallError {
  const error = {
    message:
      'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.',
    type: 'tokens',
    param: null,
    code: 'rate_limit_exceeded',
  };
  return new APICallError({
    message: error.message,
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 429,
    responseBody: JSON.stringify({ error }),
    isRetryable: true,
    data: { error },
  });
}

/** Every text the prompt sends, in order (system, texts, reasoning, tool inputs and outputs). */
export function promptTexts(prompt: AiSdkPrompt): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      texts.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
      else if (part.type === 'tool-call') texts.push(JSON.stringify(part.input));
      else if (part.type === 'tool-result') {
        const output = part.output;
        if (output.type === 'text' || output.type === 'error-text') texts.push(output.value);
        else if (output.type === 'json' || output.type === 'error-json')
          texts.push(JSON.stringify(output.value));
      }
    }
  }
  return texts;
}
