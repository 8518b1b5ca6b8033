/**
 * ctxkit messages written back as Responses API input items (see `openai-responses.ts` for reading):
 * a changed message reuses the client's item for every part that did not change (a call, a reasoning
 * item, an item ctxkit does not model), its own items first so each keeps its id and place, and builds
 * the rest.
 */

import { isRecord } from '../core/is-record.ts';
import type { MediaPart, Message, Part, ReasoningPart, ToolCallPart } from '../core/message.ts';
import { fileIdOf } from './media-ref.ts';
import {
  callIdOf,
  type Item,
  isCallType,
  isContentPart,
  isOutputType,
  outputPart,
  reasoningPartOf,
} from './openai-responses.ts';

/** The client's items a changed message may reuse: its calls, outputs, reasoning and unmodelled items. */
export class ResponsesItemIndex {
  readonly #calls = new Map<string, Item>();
  readonly #outputs = new Map<string, Item>();
  readonly #reasoning = new Map<string, Item>();
  readonly #opaque = new Map<string, Item>();

  /** Indexes `items`; later items of the same key win (a resent call is the same call). */
  add(items: Iterable<unknown>): this {
    for (const item of items) {
      if (!isRecord(item) || typeof item.type !== 'string') continue;
      const callId = callIdOf(item);
      // Reasoning is found again by its encrypted content alone: summaries are often empty, and alike.
      if (item.type === 'reasoning') {
        if (typeof item.encrypted_content === 'string') this.#reasoning.set(item.encrypted_content, item);
      } else if (callId !== undefined && isOutputType(item.type)) this.#outputs.set(callId, item);
      else if (callId !== undefined && isCallType(item.type)) this.#calls.set(callId, item);
      else if (item.type !== 'message') this.#opaque.set(JSON.stringify(item), item);
    }
    return this;
  }

  call(callId: string): Item | undefined {
    return this.#calls.get(callId);
  }
  output(callId: string): Item | undefined {
    return this.#outputs.get(callId);
  }
  reasoning(part: ReasoningPart): Item | undefined {
    const item = part.signature === undefined ? undefined : this.#reasoning.get(part.signature);
    return item !== undefined && sameReasoning(item, part) ? item : undefined;
  }
  opaque(text: string): Item | undefined {
    return this.#opaque.get(text);
  }
}

/**
 * Messages as Responses input items, reusing the client's items wherever a part is unchanged: first the
 * items the message itself was read from (`ownItems`, so an item keeps its id and its place), then any
 * of the request's.
 */
export function toResponsesItems(
  messages: readonly Message[],
  index: ResponsesItemIndex,
  ownItems: (message: Message) => readonly unknown[] | undefined = () => undefined,
): unknown[] {
  const out: unknown[] = [];
  for (const message of messages) {
    if (message.role === 'user') out.push(userItem(message));
    else if (message.role === 'tool')
      out.push(
        ...message.parts.flatMap((part) => (part.type === 'tool-result' ? [outputItem(part, index)] : [])),
      );
    else out.push(...assistantItems(message.parts, index, new OwnItems(ownItems(message) ?? [])));
  }
  return out;
}

/** The items a message was read from, each reused at most once. */
class OwnItems {
  readonly #items: readonly unknown[];
  readonly #used = new Set<unknown>();

  constructor(items: readonly unknown[]) {
    this.#items = items;
  }

  take(match: (item: Item) => boolean): Item | undefined {
    for (const item of this.#items) {
      if (!isRecord(item) || this.#used.has(item) || !match(item)) continue;
      this.#used.add(item);
      return item;
    }
    return undefined;
  }
}

function userItem(message: Message): Item {
  const role = message.meta.kind === 'system_note' ? 'developer' : 'user';
  const content: Item[] = [];
  for (const part of message.parts) {
    if (part.type === 'text') content.push({ type: 'input_text', text: part.text });
    else if (part.type === 'media') content.push(mediaContent(part));
  }
  return { type: 'message', role, content };
}

function assistantItems(parts: readonly Part[], index: ResponsesItemIndex, own: OwnItems): unknown[] {
  const out: unknown[] = [];
  let text: string[] = [];
  const flush = () => {
    if (text.length === 0) return;
    const run = text;
    out.push(
      own.take((item) => item.type === 'message' && sameTexts(messageTexts(item.content), run)) ?? {
        type: 'message',
        role: 'assistant',
        content: run.map((piece) => ({ type: 'output_text', text: piece, annotations: [] })),
      },
    );
    text = [];
  };
  for (const part of parts) {
    if (part.type === 'text') {
      const opaque =
        own.take((item) => item.type !== 'message' && JSON.stringify(item) === part.text) ??
        index.opaque(part.text);
      if (opaque !== undefined) {
        flush();
        out.push(opaque);
      } else text.push(part.text);
      continue;
    }
    if (part.type === 'media') {
      text.push(`[${part.mediaType}: ${part.ref}]`);
      continue;
    }
    flush();
    if (part.type === 'reasoning')
      out.push(
        own.take((item) => item.type === 'reasoning' && sameReasoning(item, part)) ??
          index.reasoning(part) ??
          reasoningItem(part),
      );
    else if (part.type === 'tool-call')
      out.push(callItem(part, own.take((item) => callIdOf(item) === part.callId) ?? index.call(part.callId)));
  }
  flush();
  return out;
}

function sameReasoning(item: Item, part: ReasoningPart): boolean {
  const read = reasoningPartOf(item);
  return read.signature === part.signature && read.text === part.text;
}

function messageTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.map((part) =>
    isRecord(part) && typeof part.text === 'string'
      ? part.text
      : isRecord(part) && typeof part.refusal === 'string'
        ? part.refusal
        : JSON.stringify(part),
  );
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, at) => text === b[at]);
}

function reasoningItem(part: ReasoningPart): Item {
  return {
    type: 'reasoning',
    summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
    ...(part.signature !== undefined && { encrypted_content: part.signature }),
  };
}

/** A call as the client's item it was read from (`original`), changed only where ctxkit changed it. */
function callItem(part: ToolCallPart, original: Item | undefined): Item {
  if (original?.type === 'custom_tool_call')
    return original.input === part.args ? original : { ...original, input: part.args };
  // A hosted call's action is not text ctxkit may rewrite: it goes as it came.
  if (original !== undefined && original.type !== 'function_call') return original;
  if (original !== undefined)
    return original.arguments === part.args && original.name === part.name
      ? original
      : { ...original, name: part.name, arguments: part.args };
  return { type: 'function_call', call_id: part.callId, name: part.name, arguments: part.args };
}

function outputItem(part: Extract<Part, { type: 'tool-result' }>, index: ResponsesItemIndex): Item {
  const original = index.output(part.callId);
  if (original !== undefined) {
    const read = outputPart(original, String(original.type), '');
    if (read && read.content === part.content && sameMedia(read.media, part.media)) return original;
    // An output the API takes only in its own shape (a shell's stdout records, a screenshot) cannot be
    // given as text: it goes as it came.
    if (!textualOutput(original.output)) return original;
  }
  const media = part.media ?? [];
  const output: unknown =
    media.length === 0
      ? part.content
      : [
          ...(part.content === '' ? [] : [{ type: 'input_text', text: part.content }]),
          ...media.map(mediaContent),
        ];
  if (original === undefined) return { type: 'function_call_output', call_id: part.callId, output };
  const { output: _output, ...rest } = original;
  return { ...rest, output };
}

/** An output the API also takes as text: a string, or content parts of text, images and files. */
function textualOutput(output: unknown): boolean {
  return typeof output === 'string' || (Array.isArray(output) && output.every(isContentPart));
}

function sameMedia(a: readonly MediaPart[] | undefined, b: readonly MediaPart[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((media, i) => media.ref === right[i]?.ref);
}

function mediaContent(part: MediaPart): Item {
  const fileId = fileIdOf(part.ref);
  if (part.mediaType.startsWith('image/')) {
    return {
      type: 'input_image',
      ...(fileId !== undefined ? { file_id: fileId } : { image_url: part.ref }),
      detail: part.detail ?? 'auto',
    };
  }
  if (fileId !== undefined)
    return { type: 'input_file', file_id: fileId, ...(part.name !== undefined && { filename: part.name }) };
  if (part.ref.startsWith('data:'))
    return {
      type: 'input_file',
      file_data: part.ref,
      ...(part.name !== undefined && { filename: part.name }),
    };
  return { type: 'input_file', file_url: part.ref, ...(part.name !== undefined && { filename: part.name }) };
}
