/**
 * ctxkit messages → an AI SDK prompt, in the specification version of the model it is for: V3 (AI SDK 6)
 * or V4 (AI SDK 7). The reverse of `ai-sdk-prompt.ts`, so `toAiSdkPrompt(fromAiSdkPrompt(prompt))` is
 * `prompt` in its own version (one leading system message, no message without content).
 *
 * The versions differ only in file data, tool outputs' files and the parts only V4 has; everything else is
 * written once. A session may cross versions (logged under AI SDK 6, continued under AI SDK 7): a file
 * goes as the other version's equivalent (a provider's tool result kept whole too: its output is written
 * anew), a V4 reasoning file as a V3 file (V3 assistant messages hold files; only the reasoning mark is
 * lost), and a part V3 has no type for (a V4 custom part, or a type newer than ctxkit) is left out of a V3
 * prompt.
 *
 * A message with nothing to send (every part of it compacted away) is left out: providers refuse empty
 * content, and join the same-role messages around it. Messages ctxkit made (a summary, a reminder, the
 * stand-in result of an interrupted call) are user text, a system message for a system note, and an
 * error-text result.
 */

import { ANTHROPIC_RAW_ARGS_KEY } from '../../adapters/anthropic-messages.ts';
import type { MediaPart, Message, Part } from '../../core/message.ts';
import { textOf } from '../../core/message.ts';
import { toV3FileData, toV4File, toV4FileData } from './ai-sdk-file-data.ts';
import { parseJson, revivedPart } from './ai-sdk-json.ts';
import {
  type AiSdkOutputMeta,
  type AiSdkPartMeta,
  aiSdkMetaOf,
  definedOnly,
  keptOptions,
  matchPartMeta,
  type ProviderOptions,
} from './ai-sdk-meta.ts';
import { type UnmodeledPart, unmodeledPartText } from './ai-sdk-prompt.ts';
import type {
  AiSdkPromptMessage,
  AiSdkReasoningPart,
  AiSdkSpecificationVersion,
  AiSdkTextPart,
  AiSdkToolApprovalResponsePart,
  AiSdkToolCallPart,
  AiSdkToolResultPart,
  AiSdkV3FilePart,
  AiSdkV3Prompt,
  AiSdkV3ToolResultOutput,
  AiSdkV4CustomPart,
  AiSdkV4FilePart,
  AiSdkV4Prompt,
  AiSdkV4ReasoningFilePart,
  AiSdkV4ToolResultOutput,
} from './ai-sdk-spec.ts';
import {
  fromAiSdkToolOutput,
  type ToolResultContent,
  toV3ToolOutput,
  toV4ToolOutput,
} from './ai-sdk-tool-output.ts';

/** What `toAiSdkPrompt` converts: a prepared request (`manager.prepare`) or a transcript. */
export interface ToAiSdkPromptInput {
  system: string;
  systemProviderOptions?: ProviderOptions;
  messages: readonly Pick<Message, 'role' | 'parts' | 'meta'>[];
}

export interface ToAiSdkPromptOptions {
  /** The specification the model speaks: `v4` (AI SDK 7, the default) or `v3` (AI SDK 6). */
  specificationVersion?: AiSdkSpecificationVersion;
  /**
   * The provider the prompt is for, as the AI SDK names it before the dot of a model's `provider`
   * (`openai`, `anthropic`). V4 sends a provider's file id keyed by provider: a file ctxkit holds as a bare
   * id needs it. ctxkit's middleware passes the wrapped model's.
   */
  provider?: string;
}

export function toAiSdkPrompt(
  input: ToAiSdkPromptInput,
  options: ToAiSdkPromptOptions & { specificationVersion: 'v3' },
): AiSdkV3Prompt;
export function toAiSdkPrompt(
  input: ToAiSdkPromptInput,
  options?: ToAiSdkPromptOptions & { specificationVersion?: 'v4' },
): AiSdkV4Prompt;
export function toAiSdkPrompt(
  input: ToAiSdkPromptInput,
  options?: ToAiSdkPromptOptions,
): AiSdkV3Prompt | AiSdkV4Prompt;
export function toAiSdkPrompt(
  input: ToAiSdkPromptInput,
  options: ToAiSdkPromptOptions = {},
): AiSdkV3Prompt | AiSdkV4Prompt {
  const { provider } = options;
  return options.specificationVersion === 'v3'
    ? writePrompt(input, v3Parts(provider))
    : writePrompt(input, v4Parts(provider));
}

/** How a version writes what it does not share with the other. */
interface VersionParts<File, Output, Extra> {
  file(part: MediaPart, extras: AiSdkPartMeta | undefined): File;
  /** An assistant's file: V4 writes a reasoning file as one. */
  assistantFile(part: MediaPart, extras: AiSdkPartMeta | undefined): File | Extra;
  output(result: ToolResultContent, meta: AiSdkOutputMeta | undefined): Output;
  /**
   * A part ctxkit kept whole that is neither a tool call nor a tool result (a V4 custom part, or a type
   * newer than ctxkit): as it came, or undefined when this version has no such type.
   */
  ownPart(part: UnmodeledPart): Extra | undefined;
}

function v3Parts(
  provider: string | undefined,
): VersionParts<AiSdkV3FilePart, AiSdkV3ToolResultOutput, never> {
  const file = (part: MediaPart, extras: AiSdkPartMeta | undefined): AiSdkV3FilePart =>
    definedOnly({
      type: 'file',
      data: toV3FileData(part.ref, extras, provider),
      mediaType: part.mediaType,
      filename: part.name,
      originalUrl: extras?.originalUrl,
      providerOptions: extras?.providerOptions,
    });
  return { file, assistantFile: file, output: toV3ToolOutput, ownPart: () => undefined };
}

function v4Parts(
  provider: string | undefined,
): VersionParts<AiSdkV4FilePart, AiSdkV4ToolResultOutput, AiSdkV4CustomPart | AiSdkV4ReasoningFilePart> {
  const file = (part: MediaPart, extras: AiSdkPartMeta | undefined): AiSdkV4FilePart =>
    toV4File(part, extras, provider);
  return {
    file,
    assistantFile: (part, extras) => {
      if (!extras?.reasoning) return file(part, extras);
      const data = toV4FileData(part.ref, extras, provider);
      // A reasoning file holds inline data or a URL only; anything else goes as a plain file.
      if (data.type !== 'data' && data.type !== 'url') return file(part, extras);
      return definedOnly({
        type: 'reasoning-file',
        data,
        mediaType: part.mediaType,
        providerOptions: extras.providerOptions,
      });
    },
    output: (result, meta) => toV4ToolOutput(result, meta, provider),
    // Only a V4 prompt holds these (V3 has no custom part and no newer types), so they go back as they came.
    ownPart: (part) => part as AiSdkV4CustomPart,
  };
}

type Written<File, Output, Extra> = AiSdkPromptMessage<ProviderOptions, File, Output, Extra>;
type ToolContent<Output> = Array<AiSdkToolResultPart<Output> | AiSdkToolApprovalResponsePart>;

function writePrompt<File, Output, Extra>(
  input: ToAiSdkPromptInput,
  version: VersionParts<File, Output, Extra>,
): Written<File, Output, Extra>[] {
  const prompt: Written<File, Output, Extra>[] = [];
  if (input.system !== '' || input.systemProviderOptions !== undefined)
    prompt.push(withOptions({ role: 'system', content: input.system }, input.systemProviderOptions));
  for (const message of input.messages) {
    const meta = aiSdkMetaOf(message);
    const providerOptions = meta?.providerOptions;
    // Tool-approval responses, kept as they came.
    const approvalsBefore = (meta?.before ?? []) as unknown as AiSdkToolApprovalResponsePart[];
    const approvalsAfter = (meta?.after ?? []) as unknown as AiSdkToolApprovalResponsePart[];
    if (meta?.role === 'tool') {
      prompt.push(
        withOptions({ role: 'tool', content: [...approvalsBefore, ...approvalsAfter] }, providerOptions),
      );
      continue;
    }
    const extras = matchPartMeta(message.parts, meta?.parts);
    switch (message.role) {
      case 'user': {
        if (message.meta.kind === 'system_note') {
          prompt.push(withOptions({ role: 'system', content: textOf(message) }, providerOptions));
          break;
        }
        const content = message.parts.flatMap((part, index): Array<AiSdkTextPart | File> => {
          const partExtras = extras[index];
          if (part.type === 'text')
            return [
              withOptions<AiSdkTextPart>({ type: 'text', text: part.text }, partExtras?.providerOptions),
            ];
          if (part.type === 'media') return [version.file(part, partExtras)];
          // A user message holds text and media only (ctxkit validates it); anything else goes as text.
          return [{ type: 'text', text: textOf({ parts: [part] }) }];
        });
        if (content.length > 0) prompt.push(withOptions({ role: 'user', content }, providerOptions));
        break;
      }
      case 'assistant': {
        const content = message.parts.flatMap((part, index) => assistantParts(part, extras[index], version));
        if (content.length > 0) prompt.push(withOptions({ role: 'assistant', content }, providerOptions));
        break;
      }
      case 'tool': {
        const content: ToolContent<Output> = [
          ...approvalsBefore,
          ...message.parts.flatMap((part, index) => toolParts(part, extras[index], version)),
          ...approvalsAfter,
        ];
        const previous = prompt.at(-1);
        if (meta?.joinPrevious && previous?.role === 'tool') {
          previous.content.push(...content);
          break;
        }
        if (content.length > 0) prompt.push(withOptions({ role: 'tool', content }, providerOptions));
        break;
      }
    }
  }
  return prompt;
}

function withOptions<T extends object>(value: T, providerOptions: ProviderOptions | undefined): T {
  return providerOptions !== undefined ? { ...value, providerOptions } : value;
}

type AssistantPart<File, Output, Extra> = Extract<
  Written<File, Output, Extra>,
  { role: 'assistant' }
>['content'][number];

function assistantParts<File, Output, Extra>(
  part: Part,
  extras: AiSdkPartMeta | undefined,
  version: VersionParts<File, Output, Extra>,
): AssistantPart<File, Output, Extra>[] {
  switch (part.type) {
    case 'text':
      if (extras?.part !== undefined) {
        const original = revivedPart(extras.part) as UnmodeledPart;
        if (unmodeledPartText(original) === part.text) return unmodeledBack(original, version);
      }
      return [withOptions<AiSdkTextPart>({ type: 'text', text: part.text }, extras?.providerOptions)];
    case 'reasoning':
      return [
        withOptions<AiSdkReasoningPart>(
          { type: 'reasoning', text: part.text },
          extras?.providerOptions ?? reasoningOptions(part),
        ),
      ];
    case 'media':
      return [version.assistantFile(part, extras)];
    case 'tool-call':
      return [
        withOptions<AiSdkToolCallPart>(
          {
            type: 'tool-call',
            toolCallId: part.callId,
            toolName: part.name,
            input: inputOf(part.args),
            ...(extras?.providerExecuted === false && { providerExecuted: false }),
          },
          extras?.providerOptions,
        ),
      ];
    case 'tool-result':
      return toolParts(part, extras, version);
  }
}

/**
 * A part ctxkit kept whole, for `version`: a tool call is alike in both versions; a result's output is
 * written anew, since the version it was kept in may not be this one (V3's `image-data` items, V4's `file`).
 */
function unmodeledBack<File, Output, Extra>(
  part: UnmodeledPart,
  version: VersionParts<File, Output, Extra>,
): AssistantPart<File, Output, Extra>[] {
  switch (part.type) {
    case 'tool-call': {
      const { providerOptions, ...call } = part;
      return [withOptions(call, keptOptions(providerOptions))];
    }
    case 'tool-result': {
      const { providerOptions, output, ...result } = part;
      const read = fromAiSdkToolOutput(output);
      return [
        withOptions({ ...result, output: version.output(read, read.meta) }, keptOptions(providerOptions)),
      ];
    }
    default: {
      const own = version.ownPart(part);
      return own === undefined ? [] : [own];
    }
  }
}

/** A reasoning part that came from elsewhere with an Anthropic signature: the options Anthropic's provider reads. */
function reasoningOptions(part: Extract<Part, { type: 'reasoning' }>): ProviderOptions | undefined {
  if (part.signature === undefined && part.redactedData === undefined) return undefined;
  return { anthropic: definedOnly({ signature: part.signature, redactedData: part.redactedData }) };
}

function toolParts<File, Output, Extra>(
  part: Part,
  extras: AiSdkPartMeta | undefined,
  version: VersionParts<File, Output, Extra>,
): AiSdkToolResultPart<Output>[] {
  if (part.type !== 'tool-result') return [];
  return [
    withOptions(
      {
        type: 'tool-result',
        toolCallId: part.callId,
        toolName: part.name,
        output: version.output(part, extras?.output),
      },
      extras?.providerOptions,
    ),
  ];
}

/** ctxkit's argument text as a tool call's input; text that is not JSON goes as Anthropic's adapter sends it. */
function inputOf(args: string): unknown {
  const parsed = parseJson(args);
  return parsed ? parsed.value : { [ANTHROPIC_RAW_ARGS_KEY]: args };
}
