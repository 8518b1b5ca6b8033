/**
 * AI SDK prompts (`LanguageModelV3Prompt`, what a language model middleware sees) ↔ ctxkit messages.
 *
 * Reading:
 * - the leading system messages → the system prompt (joined with a blank line; their provider options
 *   merged); a later system message → a user message with `meta.kind = 'system_note'`;
 * - text → text, file → media (a URL as its URL, base64 or bytes as a `data:` URL), reasoning →
 *   reasoning (Anthropic's signature and redacted data also in ctxkit's own fields), tool call → tool call
 *   (its input as JSON text);
 * - a tool message → one ctxkit tool message per result (ctxkit holds one result per message), the
 *   outputs as `ai-sdk-tool-output.ts` says;
 * - what ctxkit does not model is kept, never dropped: provider-executed tool calls and results inside an
 *   assistant message become text parts that say what they are (counted, never paired with the agent's
 *   own calls) and are sent back as they came; tool-approval responses ride along in the meta of the
 *   tool message next to them (a tool message of approvals only is held as a `user` message of kind
 *   `tool_approval`);
 * - every `providerOptions`, and whatever else a part has beyond ctxkit's fields, goes to `meta.aiSdk`
 *   (see `ai-sdk-meta.ts`).
 *
 * Writing is the reverse, so `toAiSdkPrompt(fromAiSdkPrompt(prompt))` is `prompt` (one leading system
 * message, no message without content). A message with nothing to send (every part of it compacted away)
 * is left out: providers refuse empty content, and join the same-role messages around it. Messages ctxkit made (a summary, a reminder, the stand-in result of an interrupted call) are
 * user text, a system message for a system note, and an error-text result.
 */
import type {
  JSONValue,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ReasoningPart,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';
import { canonicalJson } from '../../core/canonical-json.ts';
import type { MediaPart, Message, MessageInput, Part, ToolResultPart } from '../../core/message.ts';
import { textOf } from '../../core/message.ts';
import { ANTHROPIC_RAW_ARGS_KEY } from '../anthropic-messages.ts';
import { base64DataUrl, fileIdOf, parseDataUrl } from '../media-ref.ts';
import {
  AI_SDK_META_KEY,
  type AiSdkDataKind,
  type AiSdkMessageMeta,
  type AiSdkMeta,
  type AiSdkPartMeta,
  aiSdkMetaOf,
  definedOnly,
  matchPartMeta,
  type ProviderOptions,
  partFingerprint,
} from './ai-sdk-meta.ts';
import { fromAiSdkToolOutput, toAiSdkToolOutput, toJson } from './ai-sdk-tool-output.ts';

/** The kind of the user message that holds a tool message of tool-approval responses only. */
export const TOOL_APPROVAL_KIND = 'tool_approval';

/** An AI SDK prompt read for ctxkit: the system prompt kept apart, as ctxkit keeps it. */
export interface AiSdkTranscript {
  system: string;
  /** The provider options of the leading system messages, merged (Anthropic cache control, say). */
  systemProviderOptions?: ProviderOptions;
  messages: MessageInput[];
}

type AssistantContent = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'];
type AssistantPart = AssistantContent[number];
type ToolContent = Extract<LanguageModelV3Message, { role: 'tool' }>['content'];
type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number];

interface Converted {
  part: Part;
  extras?: Omit<AiSdkPartMeta, 'at' | 'of'>;
}

export function fromAiSdkPrompt(prompt: LanguageModelV3Prompt): AiSdkTranscript {
  const system: string[] = [];
  let systemProviderOptions: ProviderOptions | undefined;
  const messages: MessageInput[] = [];
  let leading = true;
  for (const message of prompt) {
    if (message.role === 'system' && leading) {
      system.push(message.content);
      if (message.providerOptions !== undefined)
        systemProviderOptions = mergeOptions(systemProviderOptions, message.providerOptions);
      continue;
    }
    leading = false;
    messages.push(...fromAiSdkMessage(message));
  }
  return {
    system: system.join('\n\n'),
    ...(systemProviderOptions !== undefined && { systemProviderOptions }),
    messages,
  };
}

/** One AI SDK message as ctxkit messages (several for a tool message with several results). */
export function fromAiSdkMessage(message: LanguageModelV3Message): MessageInput[] {
  const providerOptions = message.providerOptions;
  switch (message.role) {
    case 'system':
      return [
        withMeta(
          { role: 'user', parts: [{ type: 'text', text: message.content }], meta: { kind: 'system_note' } },
          definedOnly({ providerOptions }),
        ),
      ];
    case 'user':
      return [build('user', message.content.map(fromUserPart), providerOptions)];
    case 'assistant':
      return [fromAssistantContent(message.content, providerOptions)];
    case 'tool':
      return fromToolContent(message.content, providerOptions);
  }
}

/** An assistant message's content (a prompt's, or a response's as the AI SDK puts it in the next prompt). */
export function fromAssistantContent(
  content: AssistantContent,
  providerOptions?: ProviderOptions,
): MessageInput {
  return build('assistant', content.map(fromAssistantPart), providerOptions);
}

function build(
  role: 'user' | 'assistant',
  converted: Converted[],
  providerOptions: ProviderOptions | undefined,
) {
  const parts = converted.map((entry) => entry.part);
  const extras = partExtras(converted);
  return withMeta({ role, parts }, definedOnly({ providerOptions, parts: extras }));
}

function partExtras(converted: readonly Converted[]): AiSdkPartMeta[] | undefined {
  const extras: AiSdkPartMeta[] = [];
  converted.forEach((entry, at) => {
    if (entry.extras) extras.push({ at, of: partFingerprint(entry.part), ...entry.extras });
  });
  return extras.length > 0 ? extras : undefined;
}

function withMeta(message: MessageInput, aiSdk: AiSdkMessageMeta): MessageInput {
  if (Object.keys(aiSdk).length === 0) return message;
  const meta: AiSdkMeta = { ...message.meta, [AI_SDK_META_KEY]: aiSdk };
  return { ...message, meta };
}

function fromUserPart(part: UserPart): Converted {
  return part.type === 'text' ? fromTextPart(part) : fromFilePart(part);
}

function fromAssistantPart(part: AssistantPart): Converted {
  switch (part.type) {
    case 'text':
      return fromTextPart(part);
    case 'file':
      return fromFilePart(part);
    case 'reasoning':
      return fromReasoningPart(part);
    case 'tool-call':
      if (part.providerExecuted === true) return unmodeled(part);
      return fromToolCallPart(part);
    case 'tool-result':
      return unmodeled(part);
  }
}

function fromTextPart(part: LanguageModelV3TextPart): Converted {
  return {
    part: { type: 'text', text: part.text },
    ...(part.providerOptions !== undefined && { extras: { providerOptions: part.providerOptions } }),
  };
}

function fromFilePart(part: LanguageModelV3FilePart): Converted {
  const { data, mediaType } = part;
  let ref: string;
  let kind: AiSdkDataKind;
  if (data instanceof URL) {
    ref = data.href;
    kind = 'url';
  } else if (typeof data === 'string') {
    ref = base64DataUrl(mediaType, data);
    kind = 'base64';
  } else {
    ref = base64DataUrl(
      mediaType,
      Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
    );
    kind = 'bytes';
  }
  const media: MediaPart = definedOnly({ type: 'media', mediaType, ref, name: part.filename });
  const extras = definedOnly({
    providerOptions: part.providerOptions,
    data: kind === defaultDataKind(ref) ? undefined : kind,
    originalUrl: part.originalUrl,
  });
  return { part: media, ...(Object.keys(extras).length > 0 && { extras }) };
}

const defaultDataKind = (ref: string): AiSdkDataKind => (ref.startsWith('data:') ? 'base64' : 'url');

function fromReasoningPart(part: LanguageModelV3ReasoningPart): Converted {
  const anthropic = part.providerOptions?.anthropic;
  const signature = anthropic?.signature;
  const redactedData = anthropic?.redactedData;
  return {
    part: definedOnly({
      type: 'reasoning',
      text: part.text,
      signature: typeof signature === 'string' ? signature : undefined,
      redactedData: typeof redactedData === 'string' ? redactedData : undefined,
    }),
    ...(part.providerOptions !== undefined && { extras: { providerOptions: part.providerOptions } }),
  };
}

function fromToolCallPart(part: LanguageModelV3ToolCallPart): Converted {
  const extras = definedOnly({
    providerOptions: part.providerOptions,
    providerExecuted: part.providerExecuted === false ? (false as const) : undefined,
  });
  return {
    part: { type: 'tool-call', callId: part.toolCallId, name: part.toolName, args: argsText(part.input) },
    ...(Object.keys(extras).length > 0 && { extras }),
  };
}

/** A tool call's input as ctxkit's argument text: its JSON. */
export function argsText(input: unknown): string {
  return JSON.stringify(input) ?? '{}';
}

/** ctxkit's argument text as a tool call's input; text that is not JSON goes as Anthropic's adapter sends it. */
function inputOf(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return { [ANTHROPIC_RAW_ARGS_KEY]: args };
  }
}

/**
 * What ctxkit shows in place of a part it does not model: a provider-executed tool call or result. It
 * says what it is and holds the payload, so it is counted as it is sent; it is sent back as the part.
 */
export function unmodeledPartText(part: LanguageModelV3ToolCallPart | LanguageModelV3ToolResultPart): string {
  if (part.type === 'tool-call')
    return `[${part.toolName} call ${part.toolCallId}, run by the provider] ${canonicalJson(part.input)}`;
  const { providerOptions: _options, ...output } = { providerOptions: undefined, ...part.output };
  return `[${part.toolName} result ${part.toolCallId}, from the provider] ${canonicalJson(output)}`;
}

function unmodeled(part: LanguageModelV3ToolCallPart | LanguageModelV3ToolResultPart): Converted {
  return { part: { type: 'text', text: unmodeledPartText(part) }, extras: { part: toJson(part) } };
}

function fromToolContent(content: ToolContent, providerOptions: ProviderOptions | undefined): MessageInput[] {
  const out: MessageInput[] = [];
  let pending: JSONValue[] = [];
  for (const part of content) {
    if (part.type === 'tool-approval-response') {
      pending.push(toJson(part));
      continue;
    }
    const converted = fromToolOutput(part);
    const first = out.length === 0;
    out.push(
      withMeta(
        { role: 'tool', parts: [converted.part] },
        definedOnly({
          providerOptions: first ? providerOptions : undefined,
          parts: partExtras([converted]),
          joinPrevious: first ? undefined : (true as const),
          before: pending.length > 0 ? pending : undefined,
        }),
      ),
    );
    pending = [];
  }
  if (pending.length === 0) return out;
  const last = out.at(-1);
  if (last) {
    const meta = aiSdkMetaOf({ meta: last.meta ?? {} }) ?? {};
    out[out.length - 1] = withMeta(last, { ...meta, after: pending });
    return out;
  }
  return [
    withMeta(
      {
        role: 'user',
        parts: [{ type: 'text', text: approvalsText(pending) }],
        meta: { kind: TOOL_APPROVAL_KIND },
      },
      definedOnly({ role: 'tool' as const, after: pending, providerOptions }),
    ),
  ];
}

function approvalsText(parts: readonly JSONValue[]): string {
  return parts
    .map((part) => {
      const { approvalId, approved, reason } = part as {
        approvalId?: string;
        approved?: boolean;
        reason?: string;
      };
      return `[tool approval ${approvalId ?? ''}: ${approved ? 'approved' : 'denied'}${reason ? ` (${reason})` : ''}]`;
    })
    .join('\n');
}

function fromToolOutput(part: LanguageModelV3ToolResultPart): Converted {
  const output = fromAiSdkToolOutput(part.output);
  const result: ToolResultPart = {
    type: 'tool-result',
    callId: part.toolCallId,
    name: part.toolName,
    content: output.content,
    isError: output.isError,
    ...(output.media && { media: output.media }),
  };
  const extras = definedOnly({ providerOptions: part.providerOptions, output: output.meta });
  return { part: result, ...(Object.keys(extras).length > 0 && { extras }) };
}

/** What `toAiSdkPrompt` converts: a prepared request (`manager.prepare`) or a transcript. */
export interface ToAiSdkPromptInput {
  system: string;
  systemProviderOptions?: ProviderOptions;
  messages: readonly Pick<Message, 'role' | 'parts' | 'meta'>[];
}

export function toAiSdkPrompt(input: ToAiSdkPromptInput): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (input.system !== '' || input.systemProviderOptions !== undefined)
    prompt.push(withOptions({ role: 'system', content: input.system }, input.systemProviderOptions));
  for (const message of input.messages) {
    const meta = aiSdkMetaOf(message);
    const providerOptions = meta?.providerOptions;
    const unmodeledBefore = (meta?.before ?? []) as unknown as ToolContent;
    const unmodeledAfter = (meta?.after ?? []) as unknown as ToolContent;
    if (meta?.role === 'tool') {
      prompt.push(
        withOptions({ role: 'tool', content: [...unmodeledBefore, ...unmodeledAfter] }, providerOptions),
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
        const content = message.parts.flatMap((part, index) => toUserParts(part, extras[index]));
        if (content.length > 0) prompt.push(withOptions({ role: 'user', content }, providerOptions));
        break;
      }
      case 'assistant': {
        const content = message.parts.flatMap((part, index) => toAssistantParts(part, extras[index]));
        if (content.length > 0) prompt.push(withOptions({ role: 'assistant', content }, providerOptions));
        break;
      }
      case 'tool': {
        const content: ToolContent = [
          ...unmodeledBefore,
          ...message.parts.flatMap((part, index) => toToolParts(part, extras[index])),
          ...unmodeledAfter,
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

function toUserParts(part: Part, extras: AiSdkPartMeta | undefined): UserPart[] {
  switch (part.type) {
    case 'text':
      return [withOptions({ type: 'text', text: part.text }, extras?.providerOptions)];
    case 'media':
      return [toFilePart(part, extras)];
    default:
      // A user message holds text and media only (ctxkit validates it); anything else goes as text.
      return [{ type: 'text', text: textOf({ parts: [part] }) }];
  }
}

function toAssistantParts(part: Part, extras: AiSdkPartMeta | undefined): AssistantPart[] {
  switch (part.type) {
    case 'text':
      if (extras?.part !== undefined) {
        const original = extras.part as unknown as
          | LanguageModelV3ToolCallPart
          | LanguageModelV3ToolResultPart;
        if (unmodeledPartText(original) === part.text) return [original];
      }
      return [withOptions({ type: 'text', text: part.text }, extras?.providerOptions)];
    case 'reasoning':
      return [
        withOptions(
          { type: 'reasoning', text: part.text },
          extras?.providerOptions ?? reasoningOptions(part),
        ),
      ];
    case 'media':
      return [toFilePart(part, extras)];
    case 'tool-call':
      return [
        withOptions(
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
      return toToolParts(part, extras);
  }
}

/** A reasoning part that came from elsewhere with an Anthropic signature: the options Anthropic's provider reads. */
function reasoningOptions(part: Extract<Part, { type: 'reasoning' }>): ProviderOptions | undefined {
  if (part.signature === undefined && part.redactedData === undefined) return undefined;
  return { anthropic: definedOnly({ signature: part.signature, redactedData: part.redactedData }) };
}

function toToolParts(part: Part, extras: AiSdkPartMeta | undefined): LanguageModelV3ToolResultPart[] {
  if (part.type !== 'tool-result') return [];
  return [
    withOptions(
      {
        type: 'tool-result',
        toolCallId: part.callId,
        toolName: part.name,
        output: toAiSdkToolOutput(part, extras?.output),
      },
      extras?.providerOptions,
    ),
  ];
}

function toFilePart(part: MediaPart, extras: AiSdkPartMeta | undefined): LanguageModelV3FilePart {
  const kind = extras?.data ?? defaultDataKind(part.ref);
  const dataUrl = parseDataUrl(part.ref);
  let data: LanguageModelV3FilePart['data'];
  if (kind !== 'url' && dataUrl?.base64) {
    data = kind === 'bytes' ? new Uint8Array(Buffer.from(dataUrl.data, 'base64')) : dataUrl.data;
  } else {
    data = urlOrText(part.ref);
  }
  return definedOnly({
    type: 'file',
    data,
    mediaType: part.mediaType,
    filename: part.name,
    originalUrl: extras?.originalUrl,
    providerOptions: extras?.providerOptions,
  });
}

/**
 * A ref that is not inline data: a provider file id as the id (the AI SDK's providers take a string that
 * starts with their file-id prefix as one), a URL as a URL, anything else as text.
 */
function urlOrText(ref: string): URL | string {
  const fileId = fileIdOf(ref);
  if (fileId !== undefined) return fileId;
  try {
    return new URL(ref);
  } catch {
    return ref;
  }
}

function mergeOptions(a: ProviderOptions | undefined, b: ProviderOptions): ProviderOptions {
  if (a === undefined) return b;
  const merged: ProviderOptions = { ...a };
  for (const [provider, options] of Object.entries(b)) merged[provider] = { ...merged[provider], ...options };
  return merged;
}
