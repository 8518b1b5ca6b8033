/**
 * A model's response (generate result content, or a stream's parts) → the assistant message ctxkit logs,
 * with the usage the provider reported. It is built as the AI SDK of the model's specification version
 * builds the assistant message of its next prompt (`toResponseMessages`: sources left out, empty texts too
 * (under V4 only those without provider metadata), tool-call input parsed, a provider's tool result as its
 * model output, a file as base64 data), then read like any prompt message, so the next call's `sync`
 * finds it already logged instead of logging it twice.
 *
 * A V4 file the model gives as a URL is one the AI SDK downloads before its next prompt; ctxkit, which
 * downloads nothing, logs the URL, so `sync` later sees that file's message as edited.
 */
import type { MessageInput, Usage } from '../../core/message.ts';
import { base64Of } from './ai-sdk-file-data.ts';
import { parseJson } from './ai-sdk-json.ts';
import { definedOnly, keptOptions } from './ai-sdk-meta.ts';
import { type AssistantPart, fromAssistantContent } from './ai-sdk-prompt.ts';
import type {
  AiSdkContent,
  AiSdkSpecificationVersion,
  AiSdkStreamPart,
  AiSdkUsage,
  AiSdkV4FileDataData,
  AiSdkV4FileDataUrl,
  AiSdkV4ToolResultOutput,
  ReadonlyJSONValue,
  ReadonlyProviderOptions,
} from './ai-sdk-spec.ts';

/** ctxkit's usage from the AI SDK's: totals (cache reads and writes included in the input), then the details. */
export function usageFromAiSdk(usage: AiSdkUsage | undefined): Usage | undefined {
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
  usage?: AiSdkUsage;
  /** The model that answered (the response's model id), kept in `meta.model`. */
  model?: string;
  /** The specification the model speaks: `v4` (AI SDK 7, the default) or `v3` (AI SDK 6). */
  specificationVersion?: AiSdkSpecificationVersion;
}

/**
 * The assistant message of a response, as ctxkit logs it; undefined when the response has nothing the AI
 * SDK would put in its next prompt (then there is nothing to log).
 */
export function fromAiSdkResponse(
  content: readonly AiSdkContent[],
  options: ResponseMessageOptions = {},
): MessageInput | undefined {
  const assistant = responseContent(content, options.specificationVersion ?? 'v4');
  if (assistant.length === 0) return undefined;
  const message = fromAssistantContent(assistant);
  const usage = usageFromAiSdk(options.usage);
  return {
    ...message,
    meta: { ...message.meta, ...(options.model !== undefined && { model: options.model }) },
    ...(usage && { usage }),
  };
}

/** The content as the AI SDK of `version` puts it in the assistant message of its next prompt. */
function responseContent(
  content: readonly AiSdkContent[],
  version: AiSdkSpecificationVersion,
): AssistantPart[] {
  const out: AssistantPart[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        // AI SDK 7 keeps an empty text that carries provider metadata (an item id, a signature).
        if (part.text.length > 0 || (version === 'v4' && part.providerMetadata != null))
          out.push(definedOnly({ type: 'text', text: part.text, providerOptions: part.providerMetadata }));
        break;
      case 'reasoning':
        out.push(definedOnly({ type: 'reasoning', text: part.text, providerOptions: part.providerMetadata }));
        break;
      case 'custom':
        out.push(
          definedOnly({
            type: 'custom',
            kind: part.kind,
            providerOptions: part.providerMetadata,
          }),
        );
        break;
      case 'file':
      case 'reasoning-file':
        out.push(responseFile(part.type, part.data, part.mediaType, part.providerMetadata, version));
        break;
      case 'tool-call':
        out.push(
          definedOnly({
            type: 'tool-call',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: parseInput(part.input),
            providerExecuted: part.providerExecuted,
            providerOptions: keptOptions(part.providerMetadata),
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
            providerOptions: part.providerMetadata,
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

/** A response's file as the next prompt has it: base64 data (V3 plain, V4 tagged); a V4 URL as its URL. */
function responseFile(
  type: 'file' | 'reasoning-file',
  data: string | Uint8Array | AiSdkV4FileDataData | AiSdkV4FileDataUrl,
  mediaType: string,
  providerOptions: ReadonlyProviderOptions | undefined,
  version: AiSdkSpecificationVersion,
): AssistantPart {
  const given =
    typeof data === 'string' || data instanceof Uint8Array ? data : data.type === 'data' ? data.data : data;
  const inline = given instanceof Uint8Array ? base64Of(given) : given;
  if (version === 'v3' && typeof inline === 'string')
    return definedOnly({
      type: 'file' as const,
      data: inline,
      mediaType,
      providerOptions: keptOptions(providerOptions),
    });
  const v4Data = typeof inline === 'string' ? { type: 'data' as const, data: inline } : inline;
  // One branch per part type, so each is checked as its own.
  return type === 'file'
    ? definedOnly({ type, data: v4Data, mediaType, providerOptions })
    : definedOnly({ type, data: v4Data, mediaType, providerOptions });
}

/** The AI SDK parses a call's input; input it cannot parse goes into its next prompt as `{}`. */
function parseInput(input: string): unknown {
  const parsed = parseJson(input);
  return parsed ? parsed.value : {};
}

/** A provider-executed tool's result as the AI SDK's next prompt has it (no `toModelOutput`; alike in both versions). */
function providerToolOutput(result: ReadonlyJSONValue, isError: boolean): AiSdkV4ToolResultOutput {
  if (isError) return { type: 'error-json', value: result };
  return typeof result === 'string' ? { type: 'text', value: result } : { type: 'json', value: result };
}

interface OpenPart {
  type: 'text' | 'reasoning';
  text: string;
  providerMetadata?: ReadonlyProviderOptions;
}

/**
 * Collects a stream's response as `streamText` does (texts and reasoning by id, in the order they
 * started, their provider metadata the latest given; files, custom parts, tool calls and results in
 * order), and the usage of its `finish` part.
 */
export class StreamResponseRecorder {
  readonly #content: AiSdkContent[] = [];
  readonly #open = new Map<string, OpenPart>();
  readonly #version: AiSdkSpecificationVersion;
  #usage: AiSdkUsage | undefined;
  #model: string | undefined;

  constructor(version: AiSdkSpecificationVersion) {
    this.#version = version;
  }

  record(part: AiSdkStreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const type: 'text' | 'reasoning' = part.type === 'text-start' ? 'text' : 'reasoning';
        const entry: OpenPart = definedOnly({ type, text: '', providerMetadata: part.providerMetadata });
        this.#open.set(`${type}:${part.id}`, entry);
        this.#content.push(entry);
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
      case 'reasoning-file':
      case 'custom':
      case 'tool-call':
        this.#content.push(part);
        break;
      case 'tool-result':
        if (part.preliminary !== true) this.#content.push(part);
        break;
      case 'response-metadata':
        if (part.modelId !== undefined) this.#model = part.modelId;
        break;
      case 'finish':
        this.#usage = part.usage;
        break;
      default:
        break;
    }
  }

  /** The response's assistant message, as `fromAiSdkResponse` makes it. */
  message(fallbackModel?: string): MessageInput | undefined {
    const model = this.#model ?? fallbackModel;
    return fromAiSdkResponse(this.#content, {
      ...(this.#usage && { usage: this.#usage }),
      ...(model !== undefined && { model }),
      specificationVersion: this.#version,
    });
  }
}
