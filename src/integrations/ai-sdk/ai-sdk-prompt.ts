/**
 * AI SDK prompts (what a language model middleware sees: `LanguageModelV3Prompt` under AI SDK 6,
 * `LanguageModelV4Prompt` under AI SDK 7) → ctxkit messages. Writing back is `ai-sdk-write-prompt.ts`.
 *
 * - the leading system messages → the system prompt (joined with a blank line; their provider options
 *   merged); a later system message → a user message with `meta.kind = 'system_note'`;
 * - text → text, file → media (see `ai-sdk-file-data.ts`), reasoning → reasoning (Anthropic's signature
 *   and redacted data also in ctxkit's own fields), tool call → tool call (its input as JSON text), a V4
 *   reasoning file → media marked as such;
 * - a tool message → one ctxkit tool message per result (ctxkit holds one result per message), the
 *   outputs as `ai-sdk-tool-output.ts` says;
 * - what ctxkit does not model is kept, never dropped: provider-executed tool calls and results and V4
 *   custom parts inside an assistant message become text parts that say what they are (counted, never
 *   paired with the agent's own calls) and are sent back as they came to a prompt of the version they
 *   came in (to the other version, a result's output in that version's terms, and a part it has no type
 *   for left out: see `ai-sdk-write-prompt.ts`); tool-approval responses ride along
 *   in the meta of the tool message next to them (a tool message of approvals only is held as a `user`
 *   message of kind `tool_approval`);
 * - every `providerOptions`, and whatever else a part has beyond ctxkit's fields, goes to `meta.aiSdk`
 *   (see `ai-sdk-meta.ts`).
 */
import { canonicalJson } from '../../core/canonical-json.ts';
import type { MediaPart, MessageInput, Part, ToolResultPart } from '../../core/message.ts';
import { fileExtras, readFileData } from './ai-sdk-file-data.ts';
import { storedPart } from './ai-sdk-json.ts';
import {
  AI_SDK_META_KEY,
  type AiSdkMessageMeta,
  type AiSdkMeta,
  type AiSdkPartMeta,
  aiSdkMetaOf,
  definedOnly,
  keptOptions,
  type ProviderOptions,
  partFingerprint,
} from './ai-sdk-meta.ts';
import type {
  AiSdkMessage,
  AiSdkPrompt,
  AiSdkV3FilePart,
  AiSdkV4FilePart,
  AiSdkV4ReasoningFilePart,
  JSONValue,
} from './ai-sdk-spec.ts';
import { fromAiSdkToolOutput } from './ai-sdk-tool-output.ts';

/** The kind of the user message that holds a tool message of tool-approval responses only. */
export const TOOL_APPROVAL_KIND = 'tool_approval';

/** An AI SDK prompt read for ctxkit: the system prompt kept apart, as ctxkit keeps it. */
export interface AiSdkTranscript {
  system: string;
  /** The provider options of the leading system messages, merged (Anthropic cache control, say). */
  systemProviderOptions?: ProviderOptions;
  messages: MessageInput[];
}

export type AssistantPart = Extract<AiSdkMessage, { role: 'assistant' }>['content'][number];
type ToolPart = Extract<AiSdkMessage, { role: 'tool' }>['content'][number];
type UserPart = Extract<AiSdkMessage, { role: 'user' }>['content'][number];
type SdkText = Extract<AssistantPart, { type: 'text' }>;
type SdkReasoning = Extract<AssistantPart, { type: 'reasoning' }>;
type SdkToolCall = Extract<AssistantPart, { type: 'tool-call' }>;
type SdkToolResult = Extract<AssistantPart, { type: 'tool-result' }>;
/** The assistant parts ctxkit holds as text and sends back whole. */
export type UnmodeledPart = Extract<AssistantPart, { type: 'tool-call' | 'tool-result' | 'custom' }>;

interface Converted {
  part: Part;
  extras?: Omit<AiSdkPartMeta, 'at' | 'of'>;
}

export function fromAiSdkPrompt(prompt: AiSdkPrompt): AiSdkTranscript {
  const system: string[] = [];
  let systemProviderOptions: ProviderOptions | undefined;
  const messages: MessageInput[] = [];
  let leading = true;
  for (const message of prompt) {
    if (message.role === 'system' && leading) {
      system.push(message.content);
      const options = keptOptions(message.providerOptions);
      if (options !== undefined) systemProviderOptions = mergeOptions(systemProviderOptions, options);
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
export function fromAiSdkMessage(message: AiSdkMessage): MessageInput[] {
  const providerOptions = keptOptions(message.providerOptions);
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
  content: readonly AssistantPart[],
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
    case 'reasoning-file':
      return fromFilePart(part);
    case 'reasoning':
      return fromReasoningPart(part);
    case 'tool-call':
      if (part.providerExecuted === true) return unmodeled(part);
      return fromToolCallPart(part);
    case 'tool-result':
    case 'custom':
      return unmodeled(part);
    default:
      // A part of a newer specification than ctxkit knows: kept whole, as the others it does not model.
      return unmodeled(part);
  }
}

function fromTextPart(part: SdkText): Converted {
  const providerOptions = keptOptions(part.providerOptions);
  return {
    part: { type: 'text', text: part.text },
    ...(providerOptions !== undefined && { extras: { providerOptions } }),
  };
}

function fromFilePart(part: AiSdkV3FilePart | AiSdkV4FilePart | AiSdkV4ReasoningFilePart): Converted {
  const file = readFileData(part.data, part.mediaType);
  const media: MediaPart = definedOnly({
    type: 'media',
    mediaType: part.mediaType,
    ref: file.ref,
    name: part.type === 'file' ? part.filename : undefined,
  });
  const extras = definedOnly({
    providerOptions: keptOptions(part.providerOptions),
    // V3 keeps the URL as written beside the data, V4 inside it.
    ...fileExtras({
      ...file,
      originalUrl: file.originalUrl ?? ('originalUrl' in part ? part.originalUrl : undefined),
    }),
    reasoning: part.type === 'reasoning-file' ? (true as const) : undefined,
  });
  return { part: media, ...(Object.keys(extras).length > 0 && { extras }) };
}

function fromReasoningPart(part: SdkReasoning): Converted {
  const providerOptions = keptOptions(part.providerOptions);
  const anthropic = providerOptions?.anthropic;
  const signature = anthropic?.signature;
  const redactedData = anthropic?.redactedData;
  return {
    part: definedOnly({
      type: 'reasoning',
      text: part.text,
      signature: typeof signature === 'string' ? signature : undefined,
      redactedData: typeof redactedData === 'string' ? redactedData : undefined,
    }),
    ...(providerOptions !== undefined && { extras: { providerOptions } }),
  };
}

function fromToolCallPart(part: SdkToolCall): Converted {
  const extras = definedOnly({
    providerOptions: keptOptions(part.providerOptions),
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

/**
 * What ctxkit shows in place of a part it does not model: a provider-executed tool call or result, a V4
 * custom part. It says what it is and holds the payload, so it is counted as it is sent; it is sent back
 * as the part.
 */
export function unmodeledPartText(part: UnmodeledPart): string {
  switch (part.type) {
    case 'tool-call':
      return `[${part.toolName} call ${part.toolCallId}, run by the provider] ${canonicalJson(part.input)}`;
    case 'tool-result': {
      const { providerOptions: _options, ...output } = { providerOptions: undefined, ...part.output };
      return `[${part.toolName} result ${part.toolCallId}, from the provider] ${canonicalJson(storedPart(output))}`;
    }
    case 'custom':
      return `[${part.kind} part, from the provider] ${canonicalJson(part.providerOptions ?? {})}`;
    default: {
      const { type, ...rest } = part as { type: string };
      return `[${type} part] ${canonicalJson(rest)}`;
    }
  }
}

function unmodeled(part: UnmodeledPart): Converted {
  return { part: { type: 'text', text: unmodeledPartText(part) }, extras: { part: storedPart(part) } };
}

function fromToolContent(
  content: readonly ToolPart[],
  providerOptions: ProviderOptions | undefined,
): MessageInput[] {
  const out: MessageInput[] = [];
  let pending: JSONValue[] = [];
  for (const part of content) {
    if (part.type === 'tool-approval-response') {
      pending.push(storedPart(part));
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

function fromToolOutput(part: SdkToolResult): Converted {
  const output = fromAiSdkToolOutput(part.output);
  const result: ToolResultPart = {
    type: 'tool-result',
    callId: part.toolCallId,
    name: part.toolName,
    content: output.content,
    isError: output.isError,
    ...(output.media && { media: output.media }),
  };
  const extras = definedOnly({ providerOptions: keptOptions(part.providerOptions), output: output.meta });
  return { part: result, ...(Object.keys(extras).length > 0 && { extras }) };
}

function mergeOptions(a: ProviderOptions | undefined, b: ProviderOptions): ProviderOptions {
  if (a === undefined) return b;
  const merged: ProviderOptions = { ...a };
  for (const [provider, options] of Object.entries(b)) merged[provider] = { ...merged[provider], ...options };
  return merged;
}
