/**
 * What an AI SDK prompt (either specification version) carries that ctxkit's message model has no field for, kept in `meta.aiSdk` of the
 * ctxkit message so a session's view converts back to the prompt the caller sent: `providerOptions` on
 * messages and parts (Anthropic cache control and thinking signatures, OpenAI item ids, Gemini thought
 * signatures), how a file's data was given, a tool output's type and layout, and whole parts ctxkit does
 * not model (provider-executed tool calls and results, tool-approval responses).
 *
 * `meta` is not part of a message's identity (see `contentId`), so the same message converted from a
 * model's response and from the next prompt is recognized as one by `sync`. It is stored with the message
 * (JSON) and survives the view: compaction that rewrites a part's content drops that part's extras
 * (matched by a fingerprint, never applied to another part).
 */
import { defineMember } from '../../core/define-member.ts';
import type { Message, MessageMeta, Part } from '../../core/message.ts';
import type { JSONValue, ProviderOptions, ReadonlyProviderOptions } from './ai-sdk-spec.ts';

export type { ProviderOptions } from './ai-sdk-spec.ts';

/** The key under `meta` where ctxkit keeps what AI SDK messages carry beyond its own fields. */
export const AI_SDK_META_KEY = 'aiSdk';

/**
 * How a file's data was given: a URL, base64 text or bytes (both versions), a provider's file ids or
 * inline text (V4). ctxkit keeps a URL, a `data:` URL or a `file-id:` ref; the kind is kept only when it
 * is not the one the ref implies (see `defaultDataKind`).
 */
export type AiSdkDataKind = 'url' | 'base64' | 'bytes' | 'reference' | 'text';

/** One item of a `content` tool output, in order: text items by length, media by index, custom parts whole. */
export type AiSdkOutputItem =
  | { type: 'text'; chars: number; providerOptions?: ProviderOptions }
  | {
      /** V3's item types, or V4's `file`. */
      type: 'file-data' | 'image-data' | 'file-url' | 'image-url' | 'file-id' | 'image-file-id' | 'file';
      /** Index into the tool-result part's `media`. */
      media: number;
      providerOptions?: ProviderOptions;
      /** `file-url` without a media type (ctxkit's media part guessed one). */
      noMediaType?: true;
      /** A provider-keyed file id (`{ openai: 'file-…', anthropic: '…' }`). */
      fileId?: Record<string, string>;
      /** `file`: how its data was given, when not the kind its ref implies. */
      data?: AiSdkDataKind;
      /** `file`: the URL as written, when parsing it changed it. */
      originalUrl?: string;
    }
  | { type: 'custom'; part: JSONValue };

/** A tool result's output beyond ctxkit's `content` and `isError`. */
export interface AiSdkOutputMeta {
  type: 'text' | 'json' | 'error-text' | 'error-json' | 'execution-denied' | 'content';
  providerOptions?: ProviderOptions;
  /** `execution-denied`: whether it gave a reason (the content is the reason when it did). */
  reason?: true;
  /** `content`: its items in order. */
  items?: AiSdkOutputItem[];
}

/** What one ctxkit part's AI SDK part carried beyond ctxkit's fields. */
export interface AiSdkPartMeta {
  /** The index of the part in the ctxkit message it was converted into. */
  at: number;
  /** Which part this belongs to (see `partFingerprint`): extras never move to another part. */
  of: string;
  providerOptions?: ProviderOptions;
  /** File parts: how the data was given, and the URL as written when parsing changed it. */
  data?: AiSdkDataKind;
  originalUrl?: string;
  /** File parts given as provider file ids (V4 `reference`): every provider's id, as given. */
  fileId?: Record<string, string>;
  /** A file the model produced while reasoning (V4 `reasoning-file`), held as media. */
  reasoning?: true;
  /** Tool calls: `providerExecuted: false` as given (true never reaches a ctxkit tool call). */
  providerExecuted?: false;
  /** Tool results: the output's type and what `content` cannot hold. */
  output?: AiSdkOutputMeta;
  /**
   * A part ctxkit does not model (a provider-executed tool call or result inside an assistant message, a
   * V4 custom part), kept whole: ctxkit holds it as a text part (`unmodeledPartText`) so it is counted and
   * never paired as a call of the agent's own tools, and sends this back.
   */
  part?: JSONValue;
}

/** Everything under `meta.aiSdk`. */
export interface AiSdkMessageMeta {
  /** The message's own `providerOptions`. */
  providerOptions?: ProviderOptions;
  /** Extras of the message's parts, those that have any. */
  parts?: AiSdkPartMeta[];
  /**
   * This ctxkit message continues the AI SDK message of the one before it: an AI SDK tool message holds
   * several results, ctxkit one per message.
   */
  joinPrevious?: true;
  /** Parts ctxkit does not model that came before this message's parts (tool-approval responses). */
  before?: JSONValue[];
  /** The same, after its parts. */
  after?: JSONValue[];
  /**
   * The AI SDK role, when ctxkit holds the message under another: a tool message of approval responses
   * only (no result) is held as a `user` message.
   */
  role?: 'tool';
}

export type AiSdkMeta = MessageMeta & { [AI_SDK_META_KEY]?: AiSdkMessageMeta };

export function aiSdkMetaOf(message: Pick<Message, 'meta'>): AiSdkMessageMeta | undefined {
  return (message.meta as AiSdkMeta)[AI_SDK_META_KEY];
}

/**
 * What a part's extras are tied to: its type and its call id, or the length of what it says. A part whose
 * content an edit rewrote (a truncated text, a cleared result) no longer matches and loses its extras.
 */
export function partFingerprint(part: Part): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return `${part.type}:${part.text.length}`;
    case 'media':
      return `media:${part.mediaType}:${part.ref.length}`;
    case 'tool-call':
    case 'tool-result':
      return `${part.type}:${part.callId}`;
  }
}

/**
 * The extras of each part, matched by fingerprint: first each at its own index where it still matches
 * (the usual case), then those left over to the first unmatched part they fit (a part before theirs was
 * removed or inserted by an edit).
 */
export function matchPartMeta(
  parts: readonly Part[],
  meta: readonly AiSdkPartMeta[] | undefined,
): (AiSdkPartMeta | undefined)[] {
  const matched: (AiSdkPartMeta | undefined)[] = parts.map(() => undefined);
  if (!meta || meta.length === 0) return matched;
  const fingerprints = parts.map(partFingerprint);
  const left: AiSdkPartMeta[] = [];
  for (const entry of meta) {
    if (matched[entry.at] === undefined && fingerprints[entry.at] === entry.of) matched[entry.at] = entry;
    else left.push(entry);
  }
  for (const entry of left) {
    const index = fingerprints.findIndex((print, at) => matched[at] === undefined && print === entry.of);
    if (index >= 0) matched[index] = entry;
  }
  return matched;
}

/**
 * Provider options as ctxkit keeps them: as given. V4 declares the JSON it hands over readonly; ctxkit never
 * mutates what it keeps, so V4's options are kept under V3's (mutable) type, which both versions accept.
 */
export function keptOptions(options: ReadonlyProviderOptions | undefined): ProviderOptions | undefined {
  return options as ProviderOptions | undefined;
}

/** Drops `undefined` members, so what is stored and compared is plain JSON. */
export function definedOnly<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== undefined) defineMember(out, key, member);
  return out as T;
}
