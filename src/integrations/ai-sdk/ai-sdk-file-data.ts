/**
 * A file's data, as a prompt's file part, a tool output's file or a response's file gives it, ↔ the ref
 * ctxkit keeps in a media part (`media-ref.ts`): a URL as its URL, inline data as a `data:` URL (base64,
 * or percent-encoded text), a provider's file as `file-id:<id>`.
 *
 * V3 gives bytes, a string (base64, or a provider's file id) or a URL; V4 tags it: `data` (bytes or
 * base64), `url` (with the URL as written when parsing changed it), `reference` (the file's id at each
 * provider) or `text`. A V3 string that parses as a URL is read as AI SDK 6 reads one before it builds a
 * prompt: as that URL, or a `data:` URL's payload. How it was given is kept beside the ref when the ref
 * does not imply it, so an unedited file goes back as it came, to either version.
 */

import { base64DataUrl, fileIdOf, fileIdRef, parseDataUrl, textDataUrl } from '../../adapters/media-ref.ts';
import { InvalidInputError } from '../../core/errors/index.ts';
import type { MediaPart } from '../../core/message.ts';
import { type AiSdkDataKind, definedOnly, type ProviderOptions } from './ai-sdk-meta.ts';
import type { AiSdkV3DataContent, AiSdkV4FileData, AiSdkV4FilePart } from './ai-sdk-spec.ts';

/** A file's data as ctxkit keeps it. */
export interface FileRef {
  ref: string;
  kind: AiSdkDataKind;
  /** The URL as written, when parsing it changed it. */
  originalUrl?: string;
  /** Every provider's id of the file, when it was given so. */
  fileId?: Record<string, string>;
}

/** How the file's data was given, kept when the ref does not imply it. */
export interface FileExtras {
  data?: AiSdkDataKind;
  originalUrl?: string;
  fileId?: Record<string, string>;
}

/** The kind a ref implies: a `file-id:` ref a reference, a `data:` URL base64 or text, anything else a URL. */
export function defaultDataKind(ref: string): AiSdkDataKind {
  if (fileIdOf(ref) !== undefined) return 'reference';
  const inline = parseDataUrl(ref);
  if (inline) return inline.base64 ? 'base64' : 'text';
  return 'url';
}

/** The extras to keep for a file read into `file`: only what its ref does not say. */
export function fileExtras(file: FileRef): FileExtras {
  return definedOnly({
    data: file.kind === defaultDataKind(file.ref) ? undefined : file.kind,
    originalUrl: file.originalUrl,
    fileId: file.fileId,
  });
}

export function readFileData(data: AiSdkV3DataContent | AiSdkV4FileData, mediaType: string): FileRef {
  if (data instanceof URL) return { ref: data.href, kind: 'url' };
  if (typeof data === 'string') return readV3String(data, mediaType);
  if (data instanceof Uint8Array) return readInline(data, mediaType);
  switch (data.type) {
    case 'data':
      // V4 says a URL by its own tag: a string here is base64, whatever it looks like.
      return readInline(data.data, mediaType);
    case 'url':
      return definedOnly({ ref: data.url.href, kind: 'url' as const, originalUrl: data.originalUrl });
    case 'reference': {
      const fileId: Record<string, string> = { ...data.reference };
      return { ref: fileIdRef(Object.values(fileId)[0] ?? ''), kind: 'reference', fileId };
    }
    case 'text':
      return { ref: textDataUrl(mediaType, data.text), kind: 'text' };
  }
}

function readInline(data: Uint8Array | string, mediaType: string): FileRef {
  return data instanceof Uint8Array
    ? { ref: base64DataUrl(mediaType, base64Of(data)), kind: 'bytes' }
    : { ref: base64DataUrl(mediaType, data), kind: 'base64' };
}

/**
 * V3 declares a string base64, but AI SDK 6 parses every string it is given as a URL first (its
 * `convertToLanguageModelV3DataContent`), so a prompt written by hand may hold a URL where the SDK would
 * have put one; read as base64 it would reach a provider as garbage.
 */
function readV3String(data: string, mediaType: string): FileRef {
  let url: URL;
  try {
    url = new URL(data);
  } catch {
    return readInline(data, mediaType);
  }
  if (url.protocol === 'data:' && parseDataUrl(data)) return { ref: data, kind: defaultDataKind(data) };
  return definedOnly({
    ref: url.href,
    kind: 'url' as const,
    originalUrl: url.href !== data ? data : undefined,
  });
}

/**
 * As V3 data: inline data as base64 text (bytes when given as bytes), a provider's file as its id (this
 * provider's, when it was given for several), a URL as a `URL`, anything else as the text it is.
 */
export function toV3FileData(
  ref: string,
  extras: FileExtras | undefined,
  provider: string | undefined,
): AiSdkV3DataContent {
  const kind = extras?.data ?? defaultDataKind(ref);
  const base64 = kind === 'url' ? undefined : inlineBase64(ref);
  if (base64 !== undefined) return kind === 'bytes' ? bytesOf(base64) : base64;
  const id = fileIdOf(ref);
  if (id !== undefined) return (provider !== undefined ? extras?.fileId?.[provider] : undefined) ?? id;
  try {
    return new URL(ref);
  } catch {
    return ref;
  }
}

/**
 * As V4 data: inline text as text when it was given so, other inline data as bytes or base64, a
 * provider's file as a reference (keyed by `provider` when only its id is known), a URL as a URL.
 */
export function toV4FileData(
  ref: string,
  extras: FileExtras | undefined,
  provider: string | undefined,
): AiSdkV4FileData {
  const kind = extras?.data ?? defaultDataKind(ref);
  const inline = kind === 'url' ? undefined : parseDataUrl(ref);
  if (inline) {
    if (kind === 'text' && !inline.base64) return { type: 'text', text: decodeURIComponent(inline.data) };
    const base64 = inlineBase64(ref) ?? '';
    return { type: 'data', data: kind === 'bytes' ? bytesOf(base64) : base64 };
  }
  const id = fileIdOf(ref);
  if (id !== undefined) return { type: 'reference', reference: extras?.fileId ?? referenceOf(id, provider) };
  try {
    const url = new URL(ref);
    // A ref read from a V3 `file-url` item is its URL as written, which V4 keeps beside the parsed one.
    const originalUrl = extras?.originalUrl ?? (url.href !== ref ? ref : undefined);
    return definedOnly({ type: 'url' as const, url, originalUrl });
  } catch {
    // Not a URL: what V3 would have sent as a string, V4 takes as inline data.
    return { type: 'data', data: ref };
  }
}

/** A media part as a V4 file: a prompt's file part and a tool output's file item are alike. */
export function toV4File(
  part: MediaPart,
  extras: (FileExtras & { providerOptions?: ProviderOptions }) | undefined,
  provider: string | undefined,
): AiSdkV4FilePart {
  return definedOnly({
    type: 'file',
    data: toV4FileData(part.ref, extras, provider),
    mediaType: part.mediaType,
    filename: part.name,
    providerOptions: extras?.providerOptions,
  });
}

/** A `data:` URL's payload as base64 (percent-encoded text re-encoded); undefined for any other ref. */
export function inlineBase64(ref: string): string | undefined {
  const inline = parseDataUrl(ref);
  if (!inline) return undefined;
  return inline.base64 ? inline.data : Buffer.from(decodeURIComponent(inline.data)).toString('base64');
}

export const base64Of = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

const bytesOf = (base64: string): Uint8Array => new Uint8Array(Buffer.from(base64, 'base64'));

/** A bare file id as V4 needs it: keyed by the provider it belongs to, which only the caller knows. */
function referenceOf(id: string, provider: string | undefined): Record<string, string> {
  if (provider === undefined)
    throw new InvalidInputError(
      `the file ${fileIdRef(id)} is a provider's file id, which LanguageModelV4 sends keyed by provider: say which provider the prompt is for`,
      { field: 'provider' },
    );
  return { [provider]: id };
}
