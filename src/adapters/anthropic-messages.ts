/**
 * Anthropic Messages ↔ ctxkit transcripts.
 *
 * Reading:
 * - `system` (string or text blocks) → `transcript.system`, one entry per block;
 * - a user message with `tool_result` blocks → one `tool` message per result, in order, then one user
 *   message with the remaining blocks (text, images, documents), if any;
 * - `thinking` → a reasoning part with its signature; `redacted_thinking` → a reasoning part with empty
 *   text and `redactedData`;
 * - `tool_use.input` → `args` as JSON text, except an input of the form `{"__ctxkit_raw_args": "<text>"}`,
 *   which is how arguments that are not a JSON object travel (see ANTHROPIC_RAW_ARGS_KEY);
 * - images and documents → media refs: base64 as a `data:` URL (never inlined into text), URLs as is,
 *   uploaded files as `file-id:<id>`, plain-text documents as a percent-encoded `data:` URL;
 * - a `tool_result` with block content → its text blocks joined with "\n" as the content, its images and
 *   documents as the result's media.
 *
 * Writing:
 * - consecutive `tool` messages become one user message of `tool_result` blocks, and a plain user message
 *   right after them (text/media, not a system note) is merged into it, since Anthropic wants the results
 *   and the user's next words in one turn. Reading splits them again, so ctxkit → Anthropic → ctxkit is
 *   exact; Anthropic → ctxkit → Anthropic merges a results-only user turn with a following user turn.
 *   Other consecutive user messages are left apart (the API joins consecutive same-role turns itself).
 * - a system note (`meta.kind = 'system_note'`) becomes a plain user message: Anthropic has no system role
 *   inside the history, so the kind does not survive a round trip.
 * - `cache_control`, citations and other provider annotations are not kept.
 */
import type { MediaPart, Message, MessageInput, Part, Transcript, Usage } from '../core/message.ts';
import {
  type AnthropicContentBlock,
  type AnthropicMediaBlock,
  type AnthropicMessage,
  type AnthropicMessagesRequest,
  type AnthropicTextBlock,
  type AnthropicUsage,
  type anthropicAssistantBlockSchema,
  anthropicMessageSchema,
  anthropicRequestSchema,
  anthropicResponseSchema,
  anthropicSystemSchema,
  anthropicUsageSchema,
} from './anthropic-messages-schema.ts';
import { finishTranscript, type MessageDraft } from './finish-transcript.ts';
import {
  base64DataUrl,
  fileIdOf,
  fileIdRef,
  guessMediaType,
  parseDataUrl,
  textDataUrl,
  UNKNOWN_IMAGE_MEDIA_TYPE,
  UNKNOWN_MEDIA_TYPE,
} from './media-ref.ts';
import { invalidAt, type SourceItem, validateItem } from './source-item.ts';

/**
 * Anthropic requires `tool_use.input` to be an object. Arguments that are not a JSON object (invalid
 * JSON, an array, an empty string) are sent as `{ [ANTHROPIC_RAW_ARGS_KEY]: args }` and read back
 * verbatim, so no argument text is ever lost or rewritten.
 */
export const ANTHROPIC_RAW_ARGS_KEY = '__ctxkit_raw_args';

export interface FromAnthropicOptions {
  /** Names the file in validation errors. */
  file?: string;
}

/** Converts an Anthropic `{ system?, messages }` request body (unvalidated JSON) into a transcript. */
export function fromAnthropicMessages(request: unknown, options: FromAnthropicOptions = {}): Transcript {
  const parsed = validateItem(anthropicRequestSchema, { value: request, field: '' }, options.file);
  const items: SourceItem[] = parsed.messages.map((value, index) => ({ value, field: `messages[${index}]` }));
  return anthropicItemsToTranscript(items, options.file, systemTexts(parsed.system));
}

/**
 * Converts Anthropic messages (from a request or JSONL lines) into a transcript. A JSONL line of the form
 * `{ "system": … }` (no role) before the first message carries the system prompt.
 */
export function anthropicItemsToTranscript(
  items: readonly SourceItem[],
  file?: string,
  system: string[] = [],
): Transcript {
  const drafts: MessageDraft[] = [];
  for (const item of items) {
    if (isSystemLine(item.value)) {
      if (drafts.length > 0) {
        throw invalidAt(item, file, 'system', 'a system line must come before the first message');
      }
      const field = item.field ? `${item.field}.system` : 'system';
      const value = validateItem(anthropicSystemSchema, { ...item, value: item.value.system, field }, file);
      system.push(...systemTexts(value));
      continue;
    }
    drafts.push(...readAnthropicMessage(validateItem(anthropicMessageSchema, item, file)));
  }
  return finishTranscript(system, drafts);
}

function isSystemLine(value: unknown): value is { system: unknown } {
  return typeof value === 'object' && value !== null && !('role' in value) && 'system' in value;
}

function systemTexts(system: string | ReadonlyArray<{ text: string }> | undefined): string[] {
  if (system === undefined) return [];
  return typeof system === 'string' ? [system] : system.map((block) => block.text);
}

export type ParsedAnthropicMessage = ReturnType<typeof anthropicMessageSchema.parse>;

/** One validated Anthropic message as ctxkit drafts: a user turn's tool results first, one message each. */
export function readAnthropicMessage(message: ParsedAnthropicMessage): MessageDraft[] {
  if (typeof message.content === 'string') {
    return [
      { role: message.role, parts: message.content === '' ? [] : [{ type: 'text', text: message.content }] },
    ];
  }
  if (message.role === 'assistant') return [{ role: 'assistant', parts: message.content.map(assistantPart) }];

  const drafts: MessageDraft[] = [];
  const userParts: Part[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'tool_result': {
        const { text, media } = toolResultContent(block.content);
        drafts.push({
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: block.tool_use_id,
              name: '',
              content: text,
              isError: block.is_error ?? false,
              ...(media.length > 0 && { media }),
            },
          ],
        });
        break;
      }
      case 'text':
        userParts.push({ type: 'text', text: block.text });
        break;
      default:
        userParts.push(mediaFromBlock(block));
    }
  }
  if (userParts.length > 0 || drafts.length === 0) drafts.push({ role: 'user', parts: userParts });
  return drafts;
}

type AssistantBlock = ReturnType<typeof anthropicAssistantBlockSchema.parse>;

function assistantPart(block: AssistantBlock): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return {
        type: 'reasoning',
        text: block.thinking,
        ...(block.signature !== undefined && { signature: block.signature }),
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: block.data };
    case 'tool_use':
      return { type: 'tool-call', callId: block.id, name: block.name, args: argsFromInput(block.input) };
  }
}

type ParsedMediaBlock =
  | { type: 'image'; source: ParsedSource }
  | { type: 'document'; source: ParsedSource; title?: string | null | undefined };
type ParsedSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }
  | { type: 'text'; media_type?: string | undefined; data: string };

function mediaFromBlock(block: ParsedMediaBlock): MediaPart {
  const fallback = block.type === 'image' ? UNKNOWN_IMAGE_MEDIA_TYPE : UNKNOWN_MEDIA_TYPE;
  const name = block.type === 'document' && typeof block.title === 'string' ? { name: block.title } : {};
  const { source } = block;
  switch (source.type) {
    case 'base64':
      return {
        type: 'media',
        mediaType: source.media_type,
        ref: base64DataUrl(source.media_type, source.data),
        ...name,
      };
    case 'url':
      return { type: 'media', mediaType: guessMediaType(source.url, fallback), ref: source.url, ...name };
    case 'file':
      return { type: 'media', mediaType: fallback, ref: fileIdRef(source.file_id), ...name };
    case 'text': {
      const mediaType = source.media_type ?? 'text/plain';
      return { type: 'media', mediaType, ref: textDataUrl(mediaType, source.data), ...name };
    }
  }
}

function toolResultContent(
  content: string | ReadonlyArray<{ type: 'text'; text: string } | ParsedMediaBlock> | undefined,
): { text: string; media: MediaPart[] } {
  if (content === undefined) return { text: '', media: [] };
  if (typeof content === 'string') return { text: content, media: [] };
  const texts: string[] = [];
  const media: MediaPart[] = [];
  for (const block of content) {
    if (block.type === 'text') texts.push(block.text);
    else media.push(mediaFromBlock(block));
  }
  return { text: texts.join('\n'), media };
}

function argsFromInput(input: Record<string, unknown>): string {
  const keys = Object.keys(input);
  const raw = input[ANTHROPIC_RAW_ARGS_KEY];
  if (keys.length === 1 && typeof raw === 'string') return raw;
  return JSON.stringify(input);
}

function inputFromArgs(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Not JSON: carried raw below.
  }
  return { [ANTHROPIC_RAW_ARGS_KEY]: args };
}

/** One Messages API response as a message to append, with its usage and model. */
export function fromAnthropicResponse(response: unknown, options: FromAnthropicOptions = {}): MessageInput {
  const parsed = validateItem(anthropicResponseSchema, { value: response, field: '' }, options.file);
  const message = validateItem(
    anthropicMessageSchema,
    { value: { role: 'assistant', content: parsed.content }, field: '' },
    options.file,
  );
  const [draft] = readAnthropicMessage(message);
  return {
    role: 'assistant',
    parts: draft?.parts ?? [],
    meta: parsed.model !== undefined ? { model: parsed.model } : {},
    ...(parsed.usage && { usage: usageFromAnthropic(parsed.usage) }),
  };
}

/**
 * Anthropic usage → ctxkit Usage. Anthropic's `input_tokens` excludes cache reads and writes; ctxkit's
 * `inputTokens` is the whole prompt (as OpenAI's `prompt_tokens`), so the three are added up.
 */
export function usageFromAnthropic(usage: AnthropicUsage): Usage {
  const parsed = anthropicUsageSchema.parse(usage);
  const cacheRead = parsed.cache_read_input_tokens ?? undefined;
  const cacheWrite = parsed.cache_creation_input_tokens ?? undefined;
  return {
    inputTokens: parsed.input_tokens + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: parsed.output_tokens,
    ...(cacheRead !== undefined && { cacheReadTokens: cacheRead }),
    ...(cacheWrite !== undefined && { cacheWriteTokens: cacheWrite }),
  };
}

/**
 * Converts a transcript to an Anthropic `{ system?, messages }` request body. A message with nothing to
 * send (no parts, or a tool message without a result) is left out: the API refuses empty content, and
 * joins the same-role turns around it by itself, so nothing is lost.
 */
export function toAnthropicMessages(transcript: Transcript): AnthropicMessagesRequest {
  const messages: AnthropicMessage[] = [];
  const history = transcript.messages;
  for (let index = 0; index < history.length; index += 1) {
    const message = history[index] as Message;
    if (message.role === 'tool') {
      const blocks: AnthropicContentBlock[] = [];
      while (history[index]?.role === 'tool') {
        blocks.push(...(history[index] as Message).parts.flatMap(toolResultBlocks));
        index += 1;
      }
      const next = history[index];
      if (next && isMergeableUserMessage(next)) blocks.push(...contentBlocks(next.parts));
      else index -= 1;
      if (blocks.length > 0) messages.push({ role: 'user', content: blocks });
      continue;
    }
    const blocks = contentBlocks(message.parts);
    if (blocks.length > 0) messages.push({ role: message.role, content: compactContent(blocks) });
  }
  const { system } = transcript;
  return {
    ...(system.length === 1 && { system: system[0] }),
    ...(system.length > 1 && { system: system.map((text): AnthropicTextBlock => ({ type: 'text', text })) }),
    messages,
  };
}

function isMergeableUserMessage(message: Message): boolean {
  const kind = message.meta.kind;
  return (
    message.role === 'user' &&
    (kind === undefined || kind === 'message') &&
    message.parts.length > 0 &&
    message.parts.every((part) => part.type === 'text' || part.type === 'media')
  );
}

/** A single non-empty text block is sent as a string, the common and most compact form. */
export function compactContent(blocks: AnthropicContentBlock[]): string | AnthropicContentBlock[] {
  const only = blocks[0];
  return blocks.length === 1 && only?.type === 'text' && only.text !== '' ? only.text : blocks;
}

export function contentBlocks(parts: readonly Part[]): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        blocks.push({ type: 'text', text: part.text });
        break;
      case 'reasoning':
        blocks.push(
          part.redactedData !== undefined
            ? { type: 'redacted_thinking', data: part.redactedData }
            : {
                type: 'thinking',
                thinking: part.text,
                ...(part.signature !== undefined && { signature: part.signature }),
              },
        );
        break;
      case 'media':
        blocks.push(mediaBlock(part));
        break;
      case 'tool-call':
        blocks.push({ type: 'tool_use', id: part.callId, name: part.name, input: inputFromArgs(part.args) });
        break;
      case 'tool-result':
        blocks.push(...toolResultBlocks(part));
        break;
    }
  }
  return blocks;
}

export function toolResultBlocks(part: Part): AnthropicContentBlock[] {
  if (part.type !== 'tool-result') return [];
  const media = part.media ?? [];
  const content =
    media.length === 0
      ? part.content
      : [
          ...(part.content !== '' ? [{ type: 'text' as const, text: part.content }] : []),
          ...media.map(mediaBlock),
        ];
  return [
    { type: 'tool_result', tool_use_id: part.callId, content, ...(part.isError && { is_error: true }) },
  ];
}

function mediaBlock(media: MediaPart): AnthropicMediaBlock {
  const data = parseDataUrl(media.ref);
  const fileId = fileIdOf(media.ref);
  if (media.mediaType.startsWith('image/')) {
    if (data?.base64)
      return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.data } };
    return {
      type: 'image',
      source: fileId !== undefined ? { type: 'file', file_id: fileId } : { type: 'url', url: media.ref },
    };
  }
  const title = media.name !== undefined ? { title: media.name } : {};
  if (data?.base64) {
    return {
      type: 'document',
      source: { type: 'base64', media_type: data.mediaType, data: data.data },
      ...title,
    };
  }
  if (data) {
    return {
      type: 'document',
      source: { type: 'text', media_type: data.mediaType, data: decodePercent(data.data) },
      ...title,
    };
  }
  return {
    type: 'document',
    source: fileId !== undefined ? { type: 'file', file_id: fileId } : { type: 'url', url: media.ref },
    ...title,
  };
}

/** Percent-decoding that never throws: a data: URL written by hand may hold a bare `%`. */
function decodePercent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
