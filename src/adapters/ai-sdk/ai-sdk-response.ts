/**
 * A model's response (generate result content, or a stream's parts) → the assistant message ctxkit logs,
 * with the usage the provider reported. It is built as the AI SDK builds the assistant message of its next
 * prompt (`toResponseMessages`: empty texts and sources left out, tool-call input parsed, a provider's
 * tool result as its model output), then read like any prompt message, so the next call's `sync` finds it
 * already logged instead of logging it twice.
 */
import type {
  JSONValue,
  LanguageModelV3Content,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { MessageInput, Usage } from '../../core/message.ts';
import { definedOnly } from './ai-sdk-meta.ts';
import { fromAssistantContent } from './ai-sdk-prompt.ts';

type AssistantContent = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'];

/** ctxkit's usage from the AI SDK's: totals (cache reads and writes included in the input), then the details. */
export function usageFromAiSdk(usage: LanguageModelV3Usage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const { inputTokens: input, outputTokens: output } = usage;
  const inputTokens =
    input.total ??
    (input.noCache !== undefined || input.cacheRead !== undefined || input.cacheWrite !== undefined
      ? (input.noCache ?? 0) + (input.cacheRead ?? 0) + (input.cacheWrite ?? 0)
      : undefined);
  const outputTokens =
    output.total ??
    (output.text !== undefined || output.reasoning !== undefined
      ? (output.text ?? 0) + (output.reasoning ?? 0)
      : undefined);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return definedOnly({
    inputTokens: inputTokens ?? 0,
    outputTokens: outputTokens ?? 0,
    cacheReadTokens: input.cacheRead,
    cacheWriteTokens: input.cacheWrite,
    reasoningTokens: output.reasoning,
  });
}

export interface ResponseMessageOptions {
  usage?: LanguageModelV3Usage;
  /** The model that answered (the response's model id), kept in `meta.model`. */
  model?: string;
}

/**
 * The assistant message of a response, as ctxkit logs it; undefined when the response has nothing the AI
 * SDK would put in its next prompt (then there is nothing to log).
 */
export function fromAiSdkResponse(
  content: readonly LanguageModelV3Content[],
  options: ResponseMessageOptions = {},
): MessageInput | undefined {
  const assistant = responseContent(content);
  if (assistant.length === 0) return undefined;
  const message = fromAssistantContent(assistant);
  const usage = usageFromAiSdk(options.usage);
  return {
    ...message,
    meta: { ...message.meta, ...(options.model !== undefined && { model: options.model }) },
    ...(usage && { usage }),
  };
}

/** The content as the AI SDK puts it in the assistant message of its next prompt. */
export function responseContent(content: readonly LanguageModelV3Content[]): AssistantContent {
  const out: AssistantContent = [];
  for (const part of content) {
    const providerOptions = part.providerMetadata;
    switch (part.type) {
      case 'text':
        if (part.text.length > 0) out.push(definedOnly({ type: 'text', text: part.text, providerOptions }));
        break;
      case 'reasoning':
        out.push(definedOnly({ type: 'reasoning', text: part.text, providerOptions }));
        break;
      case 'file':
        out.push(
          definedOnly({
            type: 'file',
            data: typeof part.data === 'string' ? part.data : Buffer.from(part.data).toString('base64'),
            mediaType: part.mediaType,
            providerOptions,
          }),
        );
        break;
      case 'tool-call':
        out.push(
          definedOnly({
            type: 'tool-call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: parseInput(part.input),
            providerExecuted: part.providerExecuted,
            providerOptions,
          }),
        );
        break;
      case 'tool-result':
        out.push(
          definedOnly({
            type: 'tool-result',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            output: providerToolOutput(part.result, part.isError === true),
            providerOptions,
          }),
        );
        break;
      default:
        // Sources and tool-approval requests are not part of the next prompt.
        break;
    }
  }
  return out;
}

/** The AI SDK parses a call's input; input it cannot parse goes into its next prompt as `{}`. */
function parseInput(input: string): unknown {
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return {};
  }
}

/** A provider-executed tool's result as the AI SDK's next prompt has it (no `toModelOutput`). */
function providerToolOutput(result: JSONValue, isError: boolean): LanguageModelV3ToolResultOutput {
  if (isError) return { type: 'error-json', value: result };
  return typeof result === 'string' ? { type: 'text', value: result } : { type: 'json', value: result };
}

interface OpenPart {
  type: 'text' | 'reasoning';
  text: string;
  providerMetadata?: SharedV3ProviderMetadata;
}

/**
 * Collects a stream's response as `streamText` does (texts and reasoning by id, in the order they
 * started, their provider metadata the latest given), and the usage of its `finish` part.
 */
export class StreamResponseRecorder {
  readonly #content: LanguageModelV3Content[] = [];
  readonly #open = new Map<string, OpenPart>();
  usage: LanguageModelV3Usage | undefined;
  model: string | undefined;
  finished = false;

  record(part: LanguageModelV3StreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const type: 'text' | 'reasoning' = part.type === 'text-start' ? 'text' : 'reasoning';
        const entry: OpenPart = definedOnly({ type, text: '', providerMetadata: part.providerMetadata });
        this.#open.set(`${type}:${part.id}`, entry);
        this.#content.push(entry as LanguageModelV3Content);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const entry = this.#open.get(`${part.type === 'text-delta' ? 'text' : 'reasoning'}:${part.id}`);
        if (!entry) break;
        entry.text += part.delta;
        if (part.providerMetadata !== undefined) entry.providerMetadata = part.providerMetadata;
        break;
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`;
        const entry = this.#open.get(key);
        if (entry && part.providerMetadata !== undefined) entry.providerMetadata = part.providerMetadata;
        this.#open.delete(key);
        break;
      }
      case 'file':
      case 'tool-call':
        this.#content.push(part);
        break;
      case 'tool-result':
        if (part.preliminary !== true) this.#content.push(part);
        break;
      case 'response-metadata':
        if (part.modelId !== undefined) this.model = part.modelId;
        break;
      case 'finish':
        this.usage = part.usage;
        this.finished = true;
        break;
      default:
        break;
    }
  }

  /** The response's assistant message, as `fromAiSdkResponse` makes it. */
  message(fallbackModel?: string): MessageInput | undefined {
    const model = this.model ?? fallbackModel;
    return fromAiSdkResponse(this.#content, {
      ...(this.usage && { usage: this.usage }),
      ...(model !== undefined && { model }),
    });
  }
}
