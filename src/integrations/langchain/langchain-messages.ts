/**
 * LangChain.js messages ↔ ctxkit messages, one message at a time (a LangChain agent keeps its history as
 * `BaseMessage`s and resends all of them on every model call).
 *
 * Reading goes through LangChain's own normalization, `message.contentBlocks`, so each provider's shapes
 * (OpenAI `image_url`, Anthropic `thinking` and `image` sources, v0 data blocks) arrive as LangChain's
 * standard blocks first:
 * - `HumanMessage` → `user`; `SystemMessage` (and a `ChatMessage` with role `system`) → `user` with
 *   `meta.kind = 'system_note'` (ctxkit keeps the system prompt out of history; the middleware passes the
 *   agent's own prompt to `prepare`), converted back to a `SystemMessage`;
 * - `AIMessage` → `assistant`: `text` and `reasoning` blocks in order (Anthropic's `thinking` signature and
 *   `redacted_thinking` data kept), then one `tool-call` part per entry of `tool_calls`, its `args` as JSON
 *   text; `usage_metadata` → `usage`, the response's model name → `meta.model`. `tool_use`/`tool_call`
 *   blocks in `content` are the same calls and are not read twice; `invalid_tool_calls` (arguments that
 *   did not parse) are left out: LangChain never runs them, so no result ever answers them;
 * - `ToolMessage` → `tool` with one `tool-result`: its text blocks joined by newlines, its images and files
 *   as `media`, `status: 'error'` as `isError`, `name` (else the calling tool's name, when the whole
 *   history is converted);
 * - `image` / `audio` / `video` / `file` / `text-plain` blocks → `media` parts: a URL as it is, base64
 *   data as a `data:` URL, a provider file id as `file-id:<id>`; `metadata.detail` and a file name
 *   (`metadata.filename` / `name` / `title`) kept. A block without a MIME type gets `image/*` (`audio/*`,
 *   `video/*`, `application/octet-stream`) and goes back without one.
 *
 * Writing builds LangChain's standard shapes: content is a string when the message is one text, else an
 * array of standard blocks; tool-call arguments that are not a JSON object go to `invalid_tool_calls`.
 * Not carried (either way): message ids and names, `additional_kwargs`, `response_metadata` other than the
 * model name, tool `artifact`s, a media part's `tokens`, block types outside the list above (citations,
 * provider server-tool blocks). The middleware sends a message it did not change as the original object,
 * so nothing of it is lost on the way to the model.
 */
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  type MessageContent,
  SystemMessage,
  ToolMessage,
  type UsageMetadata,
} from '@langchain/core/messages';
import {
  base64DataUrl,
  FILE_ID_REF_PREFIX,
  fileIdOf,
  fileIdRef,
  parseDataUrl,
  UNKNOWN_IMAGE_MEDIA_TYPE,
  UNKNOWN_MEDIA_TYPE,
} from '../../adapters/media-ref.ts';
import { InvalidInputError } from '../../core/errors/index.ts';
import type {
  MediaPart,
  Message,
  MessageInput,
  Part,
  ReasoningPart,
  ToolCallPart,
  Usage,
} from '../../core/message.ts';

/** `meta.kind` of a system message read from a LangChain history (written back as a `SystemMessage`). */
export const LANGCHAIN_SYSTEM_KIND = 'system_note';

/** Media types standing for "the block did not say", per block type; written back as no MIME type. */
const UNKNOWN_TYPE_OF: Readonly<Record<MediaBlockType, string>> = {
  image: UNKNOWN_IMAGE_MEDIA_TYPE,
  audio: 'audio/*',
  video: 'video/*',
  file: UNKNOWN_MEDIA_TYPE,
  'text-plain': 'text/plain',
};

const MEDIA_BLOCK_TYPES = ['image', 'audio', 'video', 'file', 'text-plain'] as const;
type MediaBlockType = (typeof MEDIA_BLOCK_TYPES)[number];

/** Content blocks that repeat what `tool_calls` holds: read once, from `tool_calls`. */
const TOOL_CALL_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'tool_call',
  'tool_use',
  'tool_call_chunk',
  'input_json_delta',
  'function_call',
]);

type Block = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** LangChain's `usage_metadata` → ctxkit `Usage`. `input_tokens` already counts cached input, as ctxkit's does. */
export function usageFromLangChain(usage: UsageMetadata): Usage {
  const cacheRead = usage.input_token_details?.cache_read;
  const cacheWrite = usage.input_token_details?.cache_creation;
  const reasoning = usage.output_token_details?.reasoning;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(typeof cacheRead === 'number' && { cacheReadTokens: cacheRead }),
    ...(typeof cacheWrite === 'number' && { cacheWriteTokens: cacheWrite }),
    ...(typeof reasoning === 'number' && { reasoningTokens: reasoning }),
  };
}

/** ctxkit `Usage` → LangChain's `usage_metadata`. */
export function usageToLangChain(usage: Usage): UsageMetadata {
  const input = {
    ...(usage.cacheReadTokens !== undefined && { cache_read: usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens !== undefined && { cache_creation: usage.cacheWriteTokens }),
  };
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(Object.keys(input).length > 0 && { input_token_details: input }),
    ...(usage.reasoningTokens !== undefined && {
      output_token_details: { reasoning: usage.reasoningTokens },
    }),
  };
}

export interface FromLangChainOptions {
  /** Names the message in errors (`messages[3]`). */
  field?: string;
}

/** One LangChain message as a ctxkit message to append or sync; a message type ctxkit has no role for throws. */
export function fromLangChainMessage(message: BaseMessage, options: FromLangChainOptions = {}): MessageInput {
  const field = options.field ?? 'message';
  if (AIMessage.isInstance(message)) return fromAI(message);
  if (ToolMessage.isInstance(message)) return fromTool(message);
  if (HumanMessage.isInstance(message)) return { role: 'user', parts: userParts(message), meta: {} };
  if (SystemMessage.isInstance(message)) return systemNote(message);
  if (ChatMessage.isInstance(message)) {
    const role = message.role.toLowerCase();
    if (role === 'user' || role === 'human') return { role: 'user', parts: userParts(message), meta: {} };
    if (role === 'system' || role === 'developer') return systemNote(message);
    if (role === 'assistant' || role === 'ai') return fromAI(new AIMessage({ content: message.content }));
  }
  throw new InvalidInputError(
    `a ${message.type} message has no ctxkit role (expected human, ai, tool or system messages)`,
    { field },
  );
}

/**
 * A LangChain history as ctxkit messages. A tool result without a name takes the name of the call it
 * answers, as a whole-transcript converter can tell.
 */
export function fromLangChainMessages(messages: readonly BaseMessage[]): MessageInput[] {
  return nameResults(
    messages.map((message, index) => fromLangChainMessage(message, { field: `messages[${index}]` })),
  );
}

/** Fills `name` of tool results that have none from the call they answer (returns new objects for those). */
export function nameResults(messages: MessageInput[]): MessageInput[] {
  const names = new Map<string, string>();
  return messages.map((message) => {
    for (const part of message.parts) if (part.type === 'tool-call') names.set(part.callId, part.name);
    const result = message.parts[0];
    if (message.role !== 'tool' || result?.type !== 'tool-result' || result.name !== '') return message;
    const name = names.get(result.callId);
    return name ? { ...message, parts: [{ ...result, name }] } : message;
  });
}

function systemNote(message: BaseMessage): MessageInput {
  return { role: 'user', parts: userParts(message), meta: { kind: LANGCHAIN_SYSTEM_KIND } };
}

function blocksOf(message: BaseMessage): Block[] {
  // A string content is one text; an empty one is no part at all.
  if (typeof message.content === 'string')
    return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return (message.contentBlocks as unknown[]).filter(isRecord);
}

function userParts(message: BaseMessage): Part[] {
  const parts: Part[] = [];
  for (const block of blocksOf(message)) {
    const text = textOfBlock(block);
    if (text !== undefined) parts.push({ type: 'text', text });
    else {
      const media = mediaOfBlock(block);
      if (media) parts.push(media);
    }
  }
  return parts;
}

function textOfBlock(block: Block): string | undefined {
  if (block.type === 'text') return stringOr(block.text) ?? '';
  if (block.type === 'refusal') return stringOr(block.refusal) ?? '';
  return undefined;
}

function reasoningOfBlock(block: Block): ReasoningPart | undefined {
  const inner = block.type === 'non_standard' && isRecord(block.value) ? block.value : block;
  const signature =
    stringOr(inner.signature) ?? (isRecord(inner.extras) ? stringOr(inner.extras.signature) : undefined);
  if (inner.type === 'reasoning' || inner.type === 'thinking') {
    const text = stringOr(inner.reasoning) ?? stringOr(inner.thinking) ?? '';
    return { type: 'reasoning', text, ...(signature !== undefined && { signature }) };
  }
  if (inner.type === 'redacted_thinking') {
    return { type: 'reasoning', text: '', redactedData: stringOr(inner.data) ?? '' };
  }
  return undefined;
}

function mediaOfBlock(block: Block): MediaPart | undefined {
  const type = block.type;
  // OpenAI's `image_url` as a bare string, which LangChain's normalization leaves as it is.
  if (type === 'image_url' && typeof block.image_url === 'string') {
    const parsed = parseDataUrl(block.image_url);
    return { type: 'media', mediaType: parsed?.mediaType ?? UNKNOWN_IMAGE_MEDIA_TYPE, ref: block.image_url };
  }
  if (!MEDIA_BLOCK_TYPES.includes(type as MediaBlockType)) return undefined;
  const kind = type as MediaBlockType;
  const metadata = isRecord(block.metadata) ? block.metadata : {};
  const given = stringOr(block.mimeType) ?? stringOr(block.mime_type);
  let ref: string;
  let mediaType = given ?? UNKNOWN_TYPE_OF[kind];
  const data = block.data;
  if (typeof block.url === 'string') {
    ref = block.url;
  } else if (typeof block.fileId === 'string') {
    ref = fileIdRef(block.fileId);
  } else if (typeof data === 'string' || data instanceof Uint8Array) {
    const base64 = typeof data === 'string' ? data : Buffer.from(data).toString('base64');
    ref = base64DataUrl(mediaType, base64);
  } else if (kind === 'text-plain' && typeof block.text === 'string') {
    mediaType = given ?? 'text/plain';
    ref = base64DataUrl(mediaType, Buffer.from(block.text, 'utf8').toString('base64'));
  } else if (kind === 'file' && isRecord(block.file)) {
    return openAIFile(block.file);
  } else {
    // A shape LangChain's normalization left as it was: not counted, but the original still reaches the model.
    return undefined;
  }
  const detail = stringOr(metadata.detail);
  const name = stringOr(metadata.filename) ?? stringOr(metadata.name) ?? stringOr(metadata.title);
  return {
    type: 'media',
    mediaType,
    ref,
    ...(detail !== undefined && { detail }),
    ...(name !== undefined && { name }),
  };
}

/** OpenAI's chat `file` part (`{ file_id }` or `{ file_data, filename }`), which LangChain leaves as it is. */
function openAIFile(file: Record<string, unknown>): MediaPart | undefined {
  const name = stringOr(file.filename);
  const named = name !== undefined ? { name } : {};
  if (typeof file.file_id === 'string') {
    return { type: 'media', mediaType: UNKNOWN_MEDIA_TYPE, ref: fileIdRef(file.file_id), ...named };
  }
  if (typeof file.file_data === 'string') {
    const parsed = parseDataUrl(file.file_data);
    return {
      type: 'media',
      mediaType: parsed?.mediaType ?? UNKNOWN_MEDIA_TYPE,
      ref: file.file_data,
      ...named,
    };
  }
  return undefined;
}

function fromAI(message: AIMessage): MessageInput {
  const parts: Part[] = [];
  let refused = false;
  for (const block of blocksOf(message)) {
    if (typeof block.type === 'string' && TOOL_CALL_BLOCK_TYPES.has(block.type)) continue;
    const text = textOfBlock(block);
    if (text !== undefined) {
      parts.push({ type: 'text', text });
      if (block.type === 'refusal') refused = true;
      continue;
    }
    const reasoning = reasoningOfBlock(block);
    if (reasoning) {
      parts.push(reasoning);
      continue;
    }
    const media = mediaOfBlock(block);
    if (media) parts.push(media);
  }
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: 'tool-call',
      callId: call.id ?? '',
      name: call.name,
      args: JSON.stringify(call.args ?? {}),
    });
  }
  const model = modelNameOf(message.response_metadata);
  return {
    role: 'assistant',
    parts,
    meta: { ...(refused && { kind: 'refusal' }), ...(model !== undefined && { model }) },
    ...(message.usage_metadata && { usage: usageFromLangChain(message.usage_metadata) }),
  };
}

function modelNameOf(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return undefined;
  const name = stringOr(metadata.model_name) ?? stringOr(metadata.model);
  return name === '' ? undefined : name;
}

function fromTool(message: ToolMessage): MessageInput {
  const texts: string[] = [];
  const media: MediaPart[] = [];
  for (const block of blocksOf(message)) {
    const text = textOfBlock(block);
    if (text !== undefined) texts.push(text);
    else {
      const part = mediaOfBlock(block);
      if (part) media.push(part);
    }
  }
  return {
    role: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: message.tool_call_id,
        name: message.name ?? '',
        content: texts.join('\n'),
        isError: message.status === 'error',
        ...(media.length > 0 && { media }),
      },
    ],
    meta: {},
  };
}

export interface ToLangChainOptions {
  /**
   * Write reasoning parts as `reasoning` blocks (default). The middleware leaves them out of a message it
   * rebuilt: a provider takes back only the reasoning it produced itself, in its own shape.
   */
  reasoning?: boolean;
}

/** One ctxkit message as a LangChain message. */
export function toLangChainMessage(
  message: Message | MessageInput,
  options: ToLangChainOptions = {},
): BaseMessage {
  const meta = message.meta ?? {};
  switch (message.role) {
    case 'user': {
      const content = contentOf(message.parts, options);
      return meta.kind === LANGCHAIN_SYSTEM_KIND
        ? new SystemMessage({ content })
        : new HumanMessage({ content });
    }
    case 'assistant':
      return toAI(message, options);
    case 'tool': {
      const result = message.parts.find((part) => part.type === 'tool-result');
      if (!result)
        throw new InvalidInputError('a tool message holds one tool-result part', { field: 'parts' });
      const media = result.media ?? [];
      const content: MessageContent =
        media.length === 0
          ? result.content
          : ([
              ...(result.content === '' ? [] : [{ type: 'text', text: result.content }]),
              ...media.map(mediaBlock),
            ] as MessageContent);
      return new ToolMessage({
        content,
        tool_call_id: result.callId,
        ...(result.name !== '' && { name: result.name }),
        status: result.isError ? 'error' : 'success',
      });
    }
  }
}

/** ctxkit messages as LangChain messages. */
export function toLangChainMessages(
  messages: readonly (Message | MessageInput)[],
  options: ToLangChainOptions = {},
): BaseMessage[] {
  return messages.map((message) => toLangChainMessage(message, options));
}

function toAI(message: Message | MessageInput, options: ToLangChainOptions): AIMessage {
  const calls = message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
  const toolCalls: { id: string; name: string; args: Record<string, unknown>; type: 'tool_call' }[] = [];
  const invalid: { id: string; name: string; args: string; error: string; type: 'invalid_tool_call' }[] = [];
  for (const call of calls) {
    const args = parseObject(call.args);
    if (args) toolCalls.push({ id: call.callId, name: call.name, args, type: 'tool_call' });
    else
      invalid.push({
        id: call.callId,
        name: call.name,
        args: call.args,
        error: 'arguments are not a JSON object',
        type: 'invalid_tool_call',
      });
  }
  const model = message.meta?.model;
  return new AIMessage({
    content: contentOf(message.parts, options),
    tool_calls: toolCalls,
    ...(invalid.length > 0 && { invalid_tool_calls: invalid }),
    ...(message.usage && { usage_metadata: usageToLangChain(message.usage) }),
    ...(model !== undefined && { response_metadata: { model_name: model } }),
  });
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A string for a single non-empty text (or nothing), else standard blocks. Tool calls are not content. */
function contentOf(parts: readonly Part[], options: ToLangChainOptions): MessageContent {
  const shown = parts.filter(
    (part) =>
      part.type !== 'tool-call' &&
      part.type !== 'tool-result' &&
      (part.type !== 'reasoning' || options.reasoning !== false),
  );
  if (shown.length === 0) return '';
  const only = shown[0];
  if (shown.length === 1 && only?.type === 'text' && only.text !== '') return only.text;
  return shown.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'reasoning':
        return part.redactedData !== undefined
          ? { type: 'non_standard', value: { type: 'redacted_thinking', data: part.redactedData } }
          : {
              type: 'reasoning',
              reasoning: part.text,
              ...(part.signature !== undefined && { signature: part.signature }),
            };
      case 'media':
        return mediaBlock(part);
      default:
        // Filtered out above.
        return { type: 'text', text: '' };
    }
  }) as MessageContent;
}

function mediaBlock(part: MediaPart): Block {
  const kind = blockTypeOf(part.mediaType);
  const unknown = part.mediaType === UNKNOWN_TYPE_OF[kind] && kind !== 'text-plain';
  const metadata = {
    ...(part.detail !== undefined && { detail: part.detail }),
    ...(part.name !== undefined && { filename: part.name }),
  };
  const fileId = fileIdOf(part.ref);
  const dataUrl = part.ref.startsWith(FILE_ID_REF_PREFIX) ? undefined : parseDataUrl(part.ref);
  const source =
    fileId !== undefined
      ? { fileId }
      : dataUrl?.base64 && dataUrl.mediaType === part.mediaType
        ? { data: dataUrl.data }
        : { url: part.ref };
  return {
    type: kind,
    ...source,
    ...(!unknown && { mimeType: part.mediaType }),
    ...(Object.keys(metadata).length > 0 && { metadata }),
  };
}

function blockTypeOf(mediaType: string): MediaBlockType {
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType.startsWith('audio/')) return 'audio';
  if (mediaType.startsWith('video/')) return 'video';
  if (mediaType === 'text/plain') return 'text-plain';
  return 'file';
}
