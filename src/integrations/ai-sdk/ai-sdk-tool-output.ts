/**
 * AI SDK tool outputs (either specification version) ↔ ctxkit tool results. ctxkit holds a result as text
 * (`content`), `isError` and media; the output's type and the layout of a `content` output are kept in the
 * part's extras so an unedited result converts back exactly:
 * - `text` / `error-text`: the text (`isError` for the second);
 * - `json` / `error-json`: the value as JSON text; back as JSON when the text (maybe edited by ctxkit)
 *   still parses, else as text, so a cleared or offloaded result reaches the model as its placeholder;
 * - `execution-denied`: the reason, or {@link EXECUTION_DENIED_TEXT}; `isError`;
 * - `content`: text items joined with a newline, files and images as media (see `ai-sdk-file-data.ts`),
 *   custom items kept in the extras only.
 *
 * A `content` output's files are V3's `file-data`, `file-url`, `file-id` and `image-*` items, or V4's
 * `file` item: each is written back as its own version's item, or as the other version's equivalent when
 * the session crosses versions.
 */

import {
  base64DataUrl,
  fileIdOf,
  fileIdRef,
  guessMediaType,
  UNKNOWN_IMAGE_MEDIA_TYPE,
  UNKNOWN_MEDIA_TYPE,
} from '../../adapters/media-ref.ts';
import type { MediaPart } from '../../core/message.ts';
import { defaultDataKind, fileExtras, inlineBase64, readFileData, toV4File } from './ai-sdk-file-data.ts';
import { parseJson, storedPart } from './ai-sdk-json.ts';
import {
  type AiSdkDataKind,
  type AiSdkOutputItem,
  type AiSdkOutputMeta,
  definedOnly,
  keptOptions,
  type ProviderOptions,
} from './ai-sdk-meta.ts';
import type {
  AiSdkToolResultOutput,
  AiSdkV3ToolResultContentItem,
  AiSdkV3ToolResultOutput,
  AiSdkV4ToolResultContentItem,
  AiSdkV4ToolResultOutput,
} from './ai-sdk-spec.ts';

/** What a denied tool execution without a reason reads as (the AI SDK's providers send the same). */
export const EXECUTION_DENIED_TEXT = 'Tool execution denied.';

/** Between the text items of a `content` output in ctxkit's `content`. */
const TEXT_ITEM_SEPARATOR = '\n';

type ContentItem = Extract<AiSdkToolResultOutput, { type: 'content' }>['value'][number];
type MediaItem = Exclude<AiSdkOutputItem, { type: 'text' } | { type: 'custom' }>;
/** The outputs both versions write alike. */
type PlainOutput = Exclude<AiSdkV3ToolResultOutput, { type: 'content' }>;
type TextItem = { type: 'text'; text: string; providerOptions?: ProviderOptions };
type CustomItem = { type: 'custom'; providerOptions?: ProviderOptions };

export interface ConvertedOutput {
  content: string;
  isError: boolean;
  media?: MediaPart[];
  /** Absent when the output is plain text that needs nothing kept (the default both ways). */
  meta?: AiSdkOutputMeta;
}

export function fromAiSdkToolOutput(output: AiSdkToolResultOutput): ConvertedOutput {
  const providerOptions = output.type === 'content' ? undefined : keptOptions(output.providerOptions);
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
    const providerOptions = keptOptions(item.providerOptions);
    if (item.type === 'text') {
      texts.push(item.text);
      return definedOnly({ type: 'text', chars: item.text.length, providerOptions });
    }
    if (item.type === 'custom') return { type: 'custom', part: storedPart(item) };
    if (item.type === 'file') {
      const file = readFileData(item.data, item.mediaType);
      media.push(
        definedOnly({ type: 'media', mediaType: item.mediaType, ref: file.ref, name: item.filename }),
      );
      return definedOnly({ type: 'file', media: media.length - 1, providerOptions, ...fileExtras(file) });
    }
    media.push(mediaOfV3Item(item));
    return definedOnly({
      type: item.type,
      media: media.length - 1,
      providerOptions,
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

function mediaOfV3Item(
  item: Exclude<AiSdkV3ToolResultContentItem, { type: 'text' } | { type: 'custom' }>,
): MediaPart {
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

/** What a ctxkit tool result holds. */
export interface ToolResultContent {
  content: string;
  isError: boolean;
  media?: readonly MediaPart[];
}

/**
 * A ctxkit tool result as a V3 output. Without extras (a result ctxkit made, such as the stand-in for an
 * interrupted call) it is text, or error text; with media it is a `content` output.
 */
export function toV3ToolOutput(
  result: ToolResultContent,
  meta: AiSdkOutputMeta | undefined,
): AiSdkV3ToolResultOutput {
  return toToolOutput(result, meta, v3Item);
}

/** As {@link toV3ToolOutput}, for V4: files are `file` items (a bare file id keyed by `provider`). */
export function toV4ToolOutput(
  result: ToolResultContent,
  meta: AiSdkOutputMeta | undefined,
  provider: string | undefined,
): AiSdkV4ToolResultOutput {
  return toToolOutput(
    result,
    meta,
    (item, media): AiSdkV4ToolResultContentItem => toV4File(media, item, provider),
  );
}

function toToolOutput<Item>(
  result: ToolResultContent,
  meta: AiSdkOutputMeta | undefined,
  mediaItem: (item: MediaItem, media: MediaPart) => Item,
): PlainOutput | { type: 'content'; value: Array<TextItem | CustomItem | Item> } {
  const withOptions = <T extends PlainOutput>(output: T): T =>
    meta?.providerOptions !== undefined ? { ...output, providerOptions: meta.providerOptions } : output;
  const { content, isError } = result;
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
      return { type: 'content', value: contentItems(result, meta.items ?? [], mediaItem) };
    case 'text':
    case 'error-text':
      return withOptions({ type: meta.type, value: content });
    default:
      if (result.media && result.media.length > 0)
        return {
          type: 'content',
          value: contentItems(result, defaultItems(content, result.media), mediaItem),
        };
      return { type: isError ? 'error-text' : 'text', value: content };
  }
}

/** The layout of a result that came from elsewhere: its text, then each media part. */
function defaultItems(content: string, media: readonly MediaPart[]): AiSdkOutputItem[] {
  return [
    ...(content !== '' ? [{ type: 'text' as const, chars: content.length }] : []),
    ...media.map((part, index): AiSdkOutputItem => ({ type: v3ItemType(part, undefined), media: index })),
  ];
}

/** The V3 item type that holds a media part: by how its data is given (images' own types for inline data and ids). */
function v3ItemType(media: MediaPart, kind: AiSdkDataKind | undefined): Exclude<MediaItem['type'], 'file'> {
  const image = media.mediaType === 'image' || media.mediaType.startsWith('image/');
  switch (kind ?? defaultDataKind(media.ref)) {
    case 'reference':
      return image ? 'image-file-id' : 'file-id';
    case 'url':
      // `file-url` says its media type; `image-url` cannot.
      return 'file-url';
    default:
      return image ? 'image-data' : 'file-data';
  }
}

/**
 * The items of a `content` output from ctxkit's text and media. The text splits back into its items when
 * it is as converted; when ctxkit changed it (a cleared or offloaded result), it becomes one text item
 * where the first was, and media that an edit dropped are left out.
 */
function contentItems<Item>(
  result: ToolResultContent,
  items: readonly AiSdkOutputItem[],
  mediaItem: (item: MediaItem, media: MediaPart) => Item,
): Array<TextItem | CustomItem | Item> {
  const textItems = items.filter((item) => item.type === 'text');
  const pieces = splitTexts(result.content, textItems);
  const out: Array<TextItem | CustomItem | Item> = [];
  let textIndex = 0;
  let placedWhole = false;
  for (const item of items) {
    if (item.type === 'text') {
      if (pieces) {
        out.push(
          definedOnly({
            type: 'text' as const,
            text: pieces[textIndex] ?? '',
            providerOptions: item.providerOptions,
          }),
        );
      } else if (!placedWhole) {
        out.push({ type: 'text', text: result.content });
        placedWhole = true;
      }
      textIndex++;
      continue;
    }
    if (item.type === 'custom') {
      // Kept whole as JSON when it was read.
      out.push(item.part as CustomItem);
      continue;
    }
    const media = result.media?.[item.media];
    if (media) out.push(mediaItem(item, media));
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

/** A media part as a V3 item: its own type, or for a V4 `file` the V3 type its data calls for. */
function v3Item(item: MediaItem, media: MediaPart): AiSdkV3ToolResultContentItem {
  const providerOptions = item.providerOptions;
  const type = item.type === 'file' ? v3ItemType(media, item.data) : item.type;
  switch (type) {
    case 'file-data':
    case 'image-data': {
      const data = inlineBase64(media.ref);
      if (data === undefined)
        return definedOnly({ type: 'file-url', url: media.ref, mediaType: media.mediaType, providerOptions });
      return type === 'file-data'
        ? definedOnly({ type, data, mediaType: media.mediaType, filename: media.name, providerOptions })
        : definedOnly({ type, data, mediaType: media.mediaType, providerOptions });
    }
    case 'file-url':
      return definedOnly({
        type,
        // V3 holds the URL as an unparsed string: the one as written, when a V4 `url` kept it.
        url: item.originalUrl ?? media.ref,
        mediaType: item.noMediaType ? undefined : media.mediaType,
        providerOptions,
      });
    case 'image-url':
      return definedOnly({ type, url: media.ref, providerOptions });
    case 'file-id':
    case 'image-file-id':
      return definedOnly({ type, fileId: item.fileId ?? fileIdOf(media.ref) ?? media.ref, providerOptions });
  }
}
