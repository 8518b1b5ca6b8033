/**
 * OpenAI Chat Completions messages ↔ ctxkit transcripts.
 *
 * Reading:
 * - leading `system`/`developer` messages → `transcript.system` (which of the two it was is not kept);
 *   a later one → a user message with `meta.kind = 'system_note'`;
 * - content-part arrays keep one part per item; `image_url`, `input_audio` and `file` become media refs
 *   (inline data as a `data:` URL, uploaded files as `file-id:<id>`);
 * - `reasoning_content` (DeepSeek) or `reasoning` (OpenRouter) → a reasoning part;
 * - `refusal` → a text part, and the message gets `meta.kind = 'refusal'`;
 * - tool results take their name from the matching call; legacy `function_call` / `function` messages
 *   are paired by function name and given a synthetic call id (`fc_<index>`).
 *
 * Writing cannot express: reasoning signatures and redacted reasoning (dropped), `isError` (dropped),
 * media in assistant messages (dropped). Media returned inside a tool result is sent in a user message
 * right after the run of tool messages, because OpenAI tool messages carry text only.
 */
import { InvalidInputError } from '../core/errors/index.ts';
import type { MediaPart, Message, MessageInput, Part, Transcript, Usage } from '../core/message.ts';
import { finishTranscript, type MessageDraft } from './finish-transcript.ts';
import {
  base64DataUrl,
  fileIdOf,
  fileIdRef,
  guessMediaType,
  parseDataUrl,
  UNKNOWN_IMAGE_MEDIA_TYPE,
  UNKNOWN_MEDIA_TYPE,
} from './media-ref.ts';
import {
  type OpenAIChatMessage,
  type OpenAITextPart,
  type OpenAIToolCall,
  type OpenAIUsage,
  type OpenAIUserContentPart,
  openAIChatCompletionSchema,
  openAIChatMessageSchema,
  openAIUsageSchema,
} from './openai-chat-schema.ts';
import { invalidAt, type SourceItem, validateItem } from './source-item.ts';

export interface FromOpenAIChatOptions {
  /** Names the file in validation errors. */
  file?: string;
}

export interface ToOpenAIChatOptions {
  /** Role for the system prompt entries; `developer` for o-series models. */
  systemRole?: 'system' | 'developer';
  /** Where reasoning goes: DeepSeek's `reasoning_content`, OpenRouter's `reasoning`, or nowhere. */
  reasoningField?: 'reasoning_content' | 'reasoning' | 'none';
}

export const DEFAULT_TO_OPENAI_CHAT_OPTIONS: Required<ToOpenAIChatOptions> = {
  systemRole: 'system',
  reasoningField: 'reasoning_content',
};

/** Converts OpenAI chat `messages` (unvalidated JSON) into a transcript; bad input throws InvalidInputError. */
export function fromOpenAIChat(
  messages: readonly unknown[],
  options: FromOpenAIChatOptions = {},
): Transcript {
  return openAIChatItemsToTranscript(
    messages.map((value, index) => ({ value, field: `messages[${index}]` })),
    options.file,
  );
}

export function openAIChatItemsToTranscript(items: readonly SourceItem[], file?: string): Transcript {
  const reader = new OpenAIChatReader(file);
  for (const item of items) reader.read(item);
  return finishTranscript(reader.system, reader.drafts);
}

/** One choice of a Chat Completions response as a message to append, with its usage and model. */
export function fromOpenAIChatCompletion(
  response: unknown,
  options: FromOpenAIChatOptions = {},
): MessageInput {
  const item: SourceItem = { value: response, field: '' };
  const parsed = validateItem(openAIChatCompletionSchema, item, options.file);
  const reader = new OpenAIChatReader(options.file);
  reader.read({ value: parsed.choices[0]?.message, field: 'choices[0].message' });
  const draft = reader.drafts[0];
  if (!draft) throw new InvalidInputError('response has no message', { field: 'choices[0].message' });
  return {
    role: draft.role,
    parts: draft.parts,
    meta: { ...draft.meta, ...(parsed.model !== undefined && { model: parsed.model }) },
    ...(parsed.usage && { usage: usageFromOpenAI(parsed.usage) }),
  };
}

/** OpenAI usage → ctxkit Usage. `prompt_tokens` already includes cached tokens, as `inputTokens` does. */
export function usageFromOpenAI(usage: OpenAIUsage): Usage {
  const parsed = openAIUsageSchema.parse(usage);
  const cached = parsed.prompt_tokens_details?.cached_tokens;
  const reasoning = parsed.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: parsed.prompt_tokens,
    outputTokens: parsed.completion_tokens,
    ...(typeof cached === 'number' && { cacheReadTokens: cached }),
    ...(typeof reasoning === 'number' && { reasoningTokens: reasoning }),
  };
}

/**
 * Call ids for legacy `function_call`s, which carry none, and the call a `function` message (which names
 * only its function) answers. Either may throw, to refuse legacy messages.
 */
export interface LegacyCallIds {
  /** The id of a new legacy call of function `name`, read from `item`. */
  callId(name: string, item: SourceItem): string;
  /** The id of the call of function `name` that the `function` message `item` answers. */
  resultId(name: string, item: SourceItem): string;
}

/** Reads OpenAI chat messages one by one into drafts (the whole-transcript and per-message converters share it). */
export class OpenAIChatReader {
  readonly system: string[] = [];
  readonly drafts: MessageDraft[] = [];
  /** Legacy `function_call`s not yet answered, per function name, as their synthetic call ids. */
  private readonly legacyCalls = new Map<string, string[]>();
  /**
   * Inside one transcript a legacy call is `fc_<index of its message>`, and a `function` message answers
   * the newest unanswered call of its function.
   */
  private readonly legacy: LegacyCallIds;

  constructor(
    private readonly file: string | undefined,
    legacy?: LegacyCallIds,
  ) {
    this.legacy = legacy ?? {
      callId: (name) => {
        const callId = `fc_${this.drafts.length}`;
        const waiting = this.legacyCalls.get(name) ?? [];
        waiting.push(callId);
        this.legacyCalls.set(name, waiting);
        return callId;
      },
      resultId: (name) => this.legacyCalls.get(name)?.pop() ?? `fc_${this.drafts.length}`,
    };
  }

  read(item: SourceItem): void {
    const message = validateItem(openAIChatMessageSchema, item, this.file);
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = joinText(message.content);
        if (this.drafts.length === 0) this.system.push(text);
        else this.drafts.push({ role: 'user', parts: textParts(text), meta: { kind: 'system_note' } });
        return;
      }
      case 'user': {
        if (typeof message.content === 'string') {
          this.drafts.push({ role: 'user', parts: textParts(message.content) });
          return;
        }
        const parts: Part[] = [];
        message.content.forEach((part, index) => {
          if (part.type === 'text') parts.push({ type: 'text', text: part.text });
          else if (part.type === 'image_url') parts.push(imageMedia(part.image_url));
          else if (part.type === 'input_audio') {
            const mediaType = audioMediaType(part.input_audio.format);
            parts.push({ type: 'media', mediaType, ref: base64DataUrl(mediaType, part.input_audio.data) });
          } else parts.push(this.fileMedia(part.file, item, `content[${index}].file`));
        });
        this.drafts.push({ role: 'user', parts });
        return;
      }
      case 'assistant': {
        const parts: Part[] = [];
        const reasoning = message.reasoning_content ?? message.reasoning;
        if (typeof reasoning === 'string') parts.push({ type: 'reasoning', text: reasoning });
        let refused = false;
        if (typeof message.content === 'string') parts.push(...textParts(message.content));
        else {
          for (const part of message.content ?? []) {
            if (part.type === 'text') parts.push({ type: 'text', text: part.text });
            else {
              parts.push({ type: 'text', text: part.refusal });
              refused = true;
            }
          }
        }
        if (typeof message.refusal === 'string') {
          parts.push({ type: 'text', text: message.refusal });
          refused = true;
        }
        for (const call of message.tool_calls ?? []) {
          parts.push({
            type: 'tool-call',
            callId: call.id,
            name: call.function.name,
            args: call.function.arguments,
          });
        }
        if (message.function_call) {
          parts.push({
            type: 'tool-call',
            callId: this.legacy.callId(message.function_call.name, item),
            name: message.function_call.name,
            args: message.function_call.arguments,
          });
        }
        this.drafts.push({ role: 'assistant', parts, ...(refused && { meta: { kind: 'refusal' } }) });
        return;
      }
      case 'tool':
        this.drafts.push({
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: message.tool_call_id,
              name: message.name ?? '',
              content: joinText(message.content),
              isError: false,
            },
          ],
        });
        return;
      case 'function': {
        const callId = this.legacy.resultId(message.name, item);
        this.drafts.push({
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId,
              name: message.name,
              content: message.content ?? '',
              isError: false,
            },
          ],
        });
        return;
      }
    }
  }

  private fileMedia(
    file: { file_data?: string | undefined; file_id?: string | undefined; filename?: string | undefined },
    item: SourceItem,
    field: string,
  ): MediaPart {
    const name = file.filename !== undefined ? { name: file.filename } : {};
    if (file.file_data !== undefined) {
      const data = parseDataUrl(file.file_data);
      if (data) return { type: 'media', mediaType: data.mediaType, ref: file.file_data, ...name };
      // Bare base64: wrapped into a data: URL so the ref says what it is.
      const mediaType = guessMediaType(file.filename, UNKNOWN_MEDIA_TYPE);
      return { type: 'media', mediaType, ref: base64DataUrl(mediaType, file.file_data), ...name };
    }
    if (file.file_id !== undefined) {
      const mediaType = guessMediaType(file.filename, UNKNOWN_MEDIA_TYPE);
      return { type: 'media', mediaType, ref: fileIdRef(file.file_id), ...name };
    }
    throw invalidAt(item, this.file, field, 'a file part needs file_data or file_id');
  }
}

function imageMedia(image: { url: string; detail?: string | undefined }): MediaPart {
  const mediaType = parseDataUrl(image.url)?.mediaType ?? guessMediaType(image.url, UNKNOWN_IMAGE_MEDIA_TYPE);
  return {
    type: 'media',
    mediaType,
    ref: image.url,
    ...(image.detail !== undefined && { detail: image.detail }),
  };
}

const AUDIO_FORMATS: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

function audioMediaType(format: string): string {
  return AUDIO_FORMATS[format] ?? `audio/${format}`;
}

function audioFormat(mediaType: string): string {
  for (const [format, type] of Object.entries(AUDIO_FORMATS)) if (type === mediaType) return format;
  return mediaType.slice('audio/'.length);
}

function joinText(content: string | ReadonlyArray<{ text: string }>): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('\n');
}

function textParts(text: string): Part[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

/** Converts a transcript to OpenAI chat messages: the system prompt first, then the history. */
export function toOpenAIChat(transcript: Transcript, options: ToOpenAIChatOptions = {}): OpenAIChatMessage[] {
  const settings = { ...DEFAULT_TO_OPENAI_CHAT_OPTIONS, ...options };
  const out: OpenAIChatMessage[] = transcript.system.map((content) => ({
    role: settings.systemRole,
    content,
  }));
  let pendingToolMedia: MediaPart[] = [];

  transcript.messages.forEach((message, index) => {
    out.push(openAIChatMessageOf(message, settings));
    if (message.role === 'tool') {
      const result = message.parts.find((part) => part.type === 'tool-result');
      if (result?.media) pendingToolMedia.push(...result.media);
      // Flushed once the run of tool messages ends: a user message between results would break the turn.
      if (transcript.messages[index + 1]?.role !== 'tool' && pendingToolMedia.length > 0) {
        out.push({ role: 'user', content: pendingToolMedia.map(mediaToOpenAIPart) });
        pendingToolMedia = [];
      }
    }
  });
  return out;
}

/**
 * One ctxkit message as one OpenAI chat message (the media of a tool result are not in it: `toOpenAIChat`
 * sends them in a user message after the run of tool messages).
 */
export function openAIChatMessageOf(
  message: Pick<Message, 'role' | 'parts' | 'meta'>,
  settings: Required<ToOpenAIChatOptions>,
): OpenAIChatMessage {
  if (message.role === 'tool') {
    const result = message.parts.find((part) => part.type === 'tool-result');
    return { role: 'tool', tool_call_id: result?.callId ?? '', content: result?.content ?? '' };
  }
  return message.role === 'user'
    ? toOpenAIUser(message)
    : toOpenAIAssistant(message, settings.reasoningField);
}

function toOpenAIUser(message: Pick<Message, 'parts' | 'meta'>): OpenAIChatMessage {
  if (message.meta.kind === 'system_note') return { role: 'system', content: textOfParts(message.parts) };
  const parts: OpenAIUserContentPart[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'media') parts.push(mediaToOpenAIPart(part));
  }
  const only = parts[0];
  if (parts.length === 0) return { role: 'user', content: '' };
  if (parts.length === 1 && only?.type === 'text' && only.text !== '')
    return { role: 'user', content: only.text };
  return { role: 'user', content: parts };
}

function toOpenAIAssistant(
  message: Pick<Message, 'parts' | 'meta'>,
  reasoningField: ToOpenAIChatOptions['reasoningField'],
): OpenAIChatMessage {
  const texts: OpenAITextPart[] = [];
  const calls: OpenAIToolCall[] = [];
  const reasoning: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') texts.push({ type: 'text', text: part.text });
    else if (part.type === 'tool-call') {
      calls.push({ id: part.callId, type: 'function', function: { name: part.name, arguments: part.args } });
    } else if (part.type === 'reasoning' && part.redactedData === undefined) reasoning.push(part.text);
  }
  const refusal = message.meta.kind === 'refusal' ? texts.pop()?.text : undefined;
  const only = texts[0];
  const content =
    texts.length === 0
      ? calls.length > 0 || refusal !== undefined
        ? null
        : ''
      : texts.length === 1 && only && only.text !== ''
        ? only.text
        : texts;
  return {
    role: 'assistant',
    content,
    ...(refusal !== undefined && { refusal }),
    ...(reasoning.length > 0 &&
      reasoningField !== 'none' && { [reasoningField ?? 'reasoning_content']: reasoning.join('\n') }),
    ...(calls.length > 0 && { tool_calls: calls }),
  };
}

function mediaToOpenAIPart(media: MediaPart): OpenAIUserContentPart {
  const data = parseDataUrl(media.ref);
  if (media.mediaType.startsWith('image/')) {
    return {
      type: 'image_url',
      image_url: { url: media.ref, ...(media.detail !== undefined && { detail: media.detail }) },
    };
  }
  if (media.mediaType.startsWith('audio/') && data?.base64) {
    return { type: 'input_audio', input_audio: { data: data.data, format: audioFormat(media.mediaType) } };
  }
  const fileId = fileIdOf(media.ref);
  return {
    type: 'file',
    file: {
      ...(fileId !== undefined ? { file_id: fileId } : { file_data: media.ref }),
      ...(media.name !== undefined && { filename: media.name }),
    },
  };
}

function textOfParts(parts: readonly Part[]): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
