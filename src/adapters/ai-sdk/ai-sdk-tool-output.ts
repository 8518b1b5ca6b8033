/**
 * AI SDK tool outputs ↔ ctxkit tool results. ctxkit holds a result as text (`content`), `isError` and
 * media; the output's type and the layout of a `content` output are kept in the part's extras so an
 * unedited result converts back exactly:
 * - `text` / `error-text`: the text (`isError` for the second);
 * - `json` / `error-json`: the value as JSON text; back as JSON when the text (maybe edited by ctxkit)
 *   still parses, else as text, so a cleared or offloaded result reaches the model as its placeholder;
 * - `execution-denied`: the reason, or {@link EXECUTION_DENIED_TEXT}; `isError`;
 * - `content`: text items joined with a newline, files and images as media (inline data as `data:`
 *   URLs, provider files as `file-id:` refs), custom items kept in the extras only.
 */
import type { JSONValue, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { MediaPart } from '../../core/message.ts';
import {
  base64DataUrl,
  FILE_ID_REF_PREFIX,
  fileIdOf,
  fileIdRef,
  guessMediaType,
  parseDataUrl,
  UNKNOWN_IMAGE_MEDIA_TYPE,
  UNKNOWN_MEDIA_TYPE,
} from '../media-ref.ts';
import { type AiSdkOutputItem, type AiSdkOutputMeta, definedOnly } from './ai-sdk-meta.ts';

/** What a denied tool execution without a reason reads as (the AI SDK's providers send the same). */
export const EXECUTION_DENIED_TEXT = 'Tool execution denied.';

/** Between the text items of a `content` output in ctxkit's `content`. */
const TEXT_ITEM_SEPARATOR = '\n';

type ContentItem = Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'][number];

export interface ConvertedOutput {
  content: string;
  isError: boolean;
  media?: MediaPart[];
  /** Absent when the output is plain text that needs nothing kept (the default both ways). */
  meta?: AiSdkOutputMeta;
}

export function fromAiSdkToolOutput(output: LanguageModelV3ToolResultOutput): ConvertedOutput {
  const providerOptions = output.type === 'content' ? undefined : output.providerOptions;
  const keep = (meta: AiSdkOutputMeta): AiSdkOutputMeta => definedOnly({ ...meta, providerOptions });
  switch (output.type) {
    case 'text':
    case 'error-text':
      return {
        content: output.value,
        isError: output.type === 'error-text',
        ...(providerOptions !== undefined && { meta: keep({ type: output.type }) }),
      };
    case 'json':
    case 'error-json':
      return {
        content: JSON.stringify(output.value) ?? 'null',
        isError: output.type === 'error-json',
        meta: keep({ type: output.type }),
      };
    case 'execution-denied':
      return {
        content: output.reason ?? EXECUTION_DENIED_TEXT,
        isError: true,
        meta: keep({
          type: 'execution-denied',
          ...(output.reason !== undefined && { reason: true as const }),
        }),
      };
    case 'content':
      return fromContentOutput(output.value);
  }
}

function fromContentOutput(value: readonly ContentItem[]): ConvertedOutput {
  const texts: string[] = [];
  const media: MediaPart[] = [];
  const items: AiSdkOutputItem[] = value.map((item): AiSdkOutputItem => {
    const options = item.providerOptions;
    if (item.type === 'text') {
      texts.push(item.text);
      return definedOnly({ type: 'text', chars: item.text.length, providerOptions: options });
    }
    if (item.type === 'custom') return { type: 'custom', part: toJson(item) };
    media.push(mediaOfItem(item));
    return definedOnly({
      type: item.type,
      media: media.length - 1,
      providerOptions: options,
      ...(item.type === 'file-url' && item.mediaType === undefined && { noMediaType: true as const }),
      ...((item.type === 'file-id' || item.type === 'image-file-id') &&
        typeof item.fileId !== 'string' && { fileId: item.fileId }),
    });
  });
  return {
    content: texts.join(TEXT_ITEM_SEPARATOR),
    isError: false,
    ...(media.length > 0 && { media }),
    meta: { type: 'content', items },
  };
}

function mediaOfItem(item: Exclude<ContentItem, { type: 'text' } | { type: 'custom' }>): MediaPart {
  switch (item.type) {
    case 'file-data':
      return definedOnly({
        type: 'media',
        mediaType: item.mediaType,
        ref: base64DataUrl(item.mediaType, item.data),
        name: item.filename,
      });
    case 'image-data':
      return { type: 'media', mediaType: item.mediaType, ref: base64DataUrl(item.mediaType, item.data) };
    case 'file-url':
      return {
        type: 'media',
        mediaType: item.mediaType ?? guessMediaType(item.url, UNKNOWN_MEDIA_TYPE),
        ref: item.url,
      };
    case 'image-url':
      return { type: 'media', mediaType: guessMediaType(item.url, UNKNOWN_IMAGE_MEDIA_TYPE), ref: item.url };
    case 'file-id':
    case 'image-file-id': {
      const id = typeof item.fileId === 'string' ? item.fileId : (Object.values(item.fileId)[0] ?? '');
      return {
        type: 'media',
        mediaType: item.type === 'file-id' ? UNKNOWN_MEDIA_TYPE : UNKNOWN_IMAGE_MEDIA_TYPE,
        ref: fileIdRef(id),
      };
    }
  }
}

/**
 * A ctxkit tool result as an AI SDK output. Without extras (a result ctxkit made, such as the stand-in
 * for an interrupted call) it is text, or error text; with media it is a `content` output.
 */
export function toAiSdkToolOutput(
  result: { content: string; isError: boolean; media?: readonly MediaPart[] },
  meta: AiSdkOutputMeta | undefined,
): LanguageModelV3ToolResultOutput {
  const withOptions = <T extends LanguageModelV3ToolResultOutput>(output: T): T =>
    meta?.providerOptions !== undefined ? { ...output, providerOptions: meta.providerOptions } : output;
  const { content, isError } = result;
  const plain = () => withOptions({ type: isError ? 'error-text' : 'text', value: content } as const);
  switch (meta?.type) {
    case 'json':
    case 'error-json': {
      const parsed = parseJson(content);
      if (parsed === undefined)
        return withOptions({ type: meta.type === 'json' ? 'text' : 'error-text', value: content });
      return withOptions({ type: meta.type, value: parsed.value });
    }
    case 'execution-denied':
      return withOptions({ type: 'execution-denied', ...(meta.reason && { reason: content }) });
    case 'content':
      return { type: 'content', value: contentItems(result, meta.items ?? []) };
    case 'text':
    case 'error-text':
      return withOptions({ type: meta.type, value: content });
    default:
      if (result.media && result.media.length > 0)
        return { type: 'content', value: contentItems(result, defaultItems(content, result.media)) };
      return plain();
  }
}

/** The layout of a result that came from elsewhere: its text, then each media part. */
function defaultItems(content: string, media: readonly MediaPart[]): AiSdkOutputItem[] {
  return [
    ...(content !== '' ? [{ type: 'text' as const, chars: content.length }] : []),
    ...media.map((part, index): AiSdkOutputItem => {
      const image = part.mediaType.startsWith('image/');
      if (part.ref.startsWith('data:')) return { type: image ? 'image-data' : 'file-data', media: index };
      if (part.ref.startsWith(FILE_ID_REF_PREFIX))
        return { type: image ? 'image-file-id' : 'file-id', media: index };
      return { type: 'file-url', media: index };
    }),
  ];
}

/**
 * The items of a `content` output from ctxkit's text and media. The text splits back into its items when
 * it is as converted; when ctxkit changed it (a cleared or offloaded result), it becomes one text item
 * where the first was, and media that an edit dropped are left out.
 */
function contentItems(
  result: { content: string; media?: readonly MediaPart[] },
  items: readonly AiSdkOutputItem[],
): ContentItem[] {
  const textItems = items.filter((item) => item.type === 'text');
  const pieces = splitTexts(result.content, textItems);
  const out: ContentItem[] = [];
  let textIndex = 0;
  let placedWhole = false;
  for (const item of items) {
    if (item.type === 'text') {
      if (pieces) {
        out.push(
          definedOnly({ type: 'text', text: pieces[textIndex] ?? '', providerOptions: item.providerOptions }),
        );
      } else if (!placedWhole) {
        out.push({ type: 'text', text: result.content });
        placedWhole = true;
      }
      textIndex++;
      continue;
    }
    if (item.type === 'custom') {
      out.push(item.part as ContentItem);
      continue;
    }
    const media = result.media?.[item.media];
    if (media) out.push(itemOfMedia(item, media));
  }
  if (!pieces && !placedWhole && result.content !== '') out.unshift({ type: 'text', text: result.content });
  return out;
}

function splitTexts(content: string, items: readonly { chars: number }[]): string[] | undefined {
  if (items.length === 0) return content === '' ? [] : undefined;
  const pieces: string[] = [];
  let at = 0;
  for (let index = 0; index < items.length; index++) {
    const chars = (items[index] as { chars: number }).chars;
    if (index > 0) {
      if (content.slice(at, at + TEXT_ITEM_SEPARATOR.length) !== TEXT_ITEM_SEPARATOR) return undefined;
      at += TEXT_ITEM_SEPARATOR.length;
    }
    if (at + chars > content.length) return undefined;
    pieces.push(content.slice(at, at + chars));
    at += chars;
  }
  return at === content.length ? pieces : undefined;
}

function itemOfMedia(
  item: Exclude<AiSdkOutputItem, { type: 'text' } | { type: 'custom' }>,
  media: MediaPart,
): ContentItem {
  const providerOptions = item.providerOptions;
  const data = parseDataUrl(media.ref);
  switch (item.type) {
    case 'file-data':
    case 'image-data':
      if (!data?.base64)
        return definedOnly({ type: 'file-url', url: media.ref, mediaType: media.mediaType, providerOptions });
      return item.type === 'file-data'
        ? definedOnly({
            type: 'file-data',
            data: data.data,
            mediaType: media.mediaType,
            filename: media.name,
            providerOptions,
          })
        : definedOnly({ type: 'image-data', data: data.data, mediaType: media.mediaType, providerOptions });
    case 'file-url':
      return definedOnly({
        type: 'file-url',
        url: media.ref,
        mediaType: item.noMediaType ? undefined : media.mediaType,
        providerOptions,
      });
    case 'image-url':
      return definedOnly({ type: 'image-url', url: media.ref, providerOptions });
    case 'file-id':
    case 'image-file-id':
      return definedOnly({
        type: item.type,
        fileId: item.fileId ?? fileIdOf(media.ref) ?? media.ref,
        providerOptions,
      });
  }
}

function parseJson(text: string): { value: JSONValue } | undefined {
  try {
    return { value: JSON.parse(text) as JSONValue };
  } catch {
    return undefined;
  }
}

/** A JSON-safe copy (what the stores keep): `undefined` members dropped. */
export function toJson(value: unknown): JSONValue {
  return JSON.parse(JSON.stringify(value) ?? 'null') as JSONValue;
}
