/**
 * OpenAI's Responses API (`POST /v1/responses`) items ↔ ctxkit messages.
 *
 * Reading `input`:
 * - leading `system`/`developer` messages are the system prompt (beside `instructions`); a later one is a
 *   user message with `meta.kind = 'system_note'`;
 * - a user message → a user message (`input_text` as text, `input_image`/`input_file` as media);
 * - consecutive output-side items (assistant messages, `reasoning`, `function_call`, `custom_tool_call`,
 *   any other `…_call` with a `call_id`, and any item type ctxkit does not model) → one assistant message,
 *   so a reasoning item stays beside the calls it belongs to. Reasoning is its summary as text and its
 *   `encrypted_content` as the signature (opaque, not counted); an item ctxkit does not model is text
 *   holding its JSON, so it is counted and kept;
 * - a `…_output` item with a call id (`function_call_output`, `custom_tool_call_output`,
 *   `local_shell_call_output`…) → a tool message.
 *
 * Each resulting message remembers the items it came from, so a message ctxkit leaves unchanged is sent
 * as the client wrote it; writing a changed message back reuses the client's item for every part that
 * did not change (a call, a reasoning item, an item ctxkit does not model) and builds the rest.
 */

import { InvalidInputError } from '../core/errors/index.ts';
import type {
  MediaPart,
  Message,
  MessageInput,
  Part,
  ReasoningPart,
  ToolCallPart,
  Usage,
} from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { MessageDraft } from './finish-transcript.ts';
import {
  fileIdOf,
  fileIdRef,
  guessMediaType,
  UNKNOWN_IMAGE_MEDIA_TYPE,
  UNKNOWN_MEDIA_TYPE,
} from './media-ref.ts';

type Item = Record<string, unknown>;

/** A message read from the items it came from, in order. */
export interface ResponsesItemGroup {
  draft: MessageDraft;
  items: unknown[];
}

export interface ReadResponsesInput {
  /** The text of the leading system/developer messages, in order. */
  system: string[];
  /** The items of those leading messages, sent as they were while the system prompt is unchanged. */
  systemItems: unknown[];
  groups: ResponsesItemGroup[];
}

const SYSTEM_ROLES = new Set(['system', 'developer']);

export function readResponsesInput(input: string | readonly unknown[]): ReadResponsesInput {
  const reader = new ResponsesInputReader();
  if (typeof input === 'string') reader.read({ role: 'user', content: input }, 0);
  else
    input.forEach((value, index) => {
      reader.read(value, index);
    });
  return reader.result();
}

/** Reads `input` one item at a time (a caller can pause between two), then `result()`. */
export class ResponsesInputReader {
  readonly #system: string[] = [];
  readonly #systemItems: unknown[] = [];
  readonly #groups: ResponsesItemGroup[] = [];
  /** The output-side items read since the last message or output: one assistant message. */
  #assistant: ResponsesItemGroup | undefined;

  read(value: unknown, index: number): void {
    const field = `input[${index}]`;
    if (!isRecord(value)) throw new InvalidInputError('must be an object', { field });
    const type = typeof value.type === 'string' ? value.type : undefined;
    if (type === 'message' || (type === undefined && value.role !== undefined)) {
      const role = value.role;
      if (typeof role !== 'string')
        throw new InvalidInputError('a message needs a role', { field: `${field}.role` });
      if (SYSTEM_ROLES.has(role)) {
        const text = messageText(value.content, `${field}.content`);
        if (this.#groups.length === 0 && this.#assistant === undefined) {
          this.#system.push(text);
          this.#systemItems.push(value);
        } else {
          this.#close();
          this.#groups.push({
            draft: { role: 'user', parts: textParts(text), meta: { kind: 'system_note' } },
            items: [value],
          });
        }
        return;
      }
      if (role === 'user') {
        this.#close();
        this.#groups.push({
          draft: { role: 'user', parts: userParts(value.content, `${field}.content`) },
          items: [value],
        });
        return;
      }
      if (role !== 'assistant')
        throw new InvalidInputError(`unknown role ${JSON.stringify(role)}`, { field: `${field}.role` });
    } else if (type === undefined) {
      throw new InvalidInputError('an item needs a type', { field: `${field}.type` });
    }
    const output = type !== undefined ? outputPart(value, type, field) : undefined;
    if (output !== undefined) {
      this.#close();
      this.#groups.push({ draft: { role: 'tool', parts: [output] }, items: [value] });
      return;
    }
    this.#assistant ??= { draft: { role: 'assistant', parts: [] }, items: [] };
    this.#assistant.draft.parts.push(...assistantParts(value, type, field));
    this.#assistant.items.push(value);
  }

  result(): ReadResponsesInput {
    this.#close();
    return { system: this.#system, systemItems: this.#systemItems, groups: this.#groups };
  }

  #close(): void {
    if (this.#assistant) this.#groups.push(this.#assistant);
    this.#assistant = undefined;
  }
}

/** The answer's output items as one assistant message (the items ctxkit reads, in order). */
export function assistantMessageOfOutput(output: readonly unknown[]): MessageInput {
  const parts: Part[] = [];
  output.forEach((item, index) => {
    if (!isRecord(item)) return;
    try {
      parts.push(
        ...assistantParts(item, typeof item.type === 'string' ? item.type : 'message', `output[${index}]`),
      );
    } catch {
      // An upstream's item ctxkit cannot read (a call without its id) is kept as what it is: its JSON.
      parts.push({ type: 'text', text: JSON.stringify(item) });
    }
  });
  return { role: 'assistant', parts };
}

/** A Responses `usage` object in ctxkit's terms; undefined when it holds no counts. */
export function usageFromResponses(usage: unknown): Usage | undefined {
  if (!isRecord(usage) || typeof usage.input_tokens !== 'number') return undefined;
  const input = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const output = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    inputTokens: usage.input_tokens,
    outputTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0,
    ...(typeof input.cached_tokens === 'number' &&
      input.cached_tokens > 0 && { cacheReadTokens: input.cached_tokens }),
    ...(typeof output.reasoning_tokens === 'number' &&
      output.reasoning_tokens > 0 && { reasoningTokens: output.reasoning_tokens }),
  };
}

/** A ctxkit tool in the Responses shape (flat: `name` beside `type`, not under `function`). */
export function toResponsesTool(tool: ToolDefinition): Record<string, unknown> {
  return {
    type: 'function',
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    parameters: tool.parameters ? structuredClone(tool.parameters) : { type: 'object', properties: {} },
    strict: false,
  };
}

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

function isContentPart(part: unknown): boolean {
  return (
    isRecord(part) &&
    (typeof part.text === 'string' || part.type === 'input_image' || part.type === 'input_file')
  );
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

function assistantParts(item: Item, type: string | undefined, field: string): Part[] {
  if (type === undefined || type === 'message') return messageParts(item.content, `${field}.content`);
  if (type === 'reasoning') return [reasoningPartOf(item)];
  if (type === 'function_call') {
    return [
      {
        type: 'tool-call',
        callId: requiredString(item, 'call_id', field),
        name: requiredString(item, 'name', field),
        args: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}),
      },
    ];
  }
  if (type === 'custom_tool_call') {
    return [
      {
        type: 'tool-call',
        callId: requiredString(item, 'call_id', field),
        name: requiredString(item, 'name', field),
        args: typeof item.input === 'string' ? item.input : JSON.stringify(item.input ?? ''),
      },
    ];
  }
  const callId = callIdOf(item);
  if (callId !== undefined && isCallType(type)) {
    // A hosted or local tool's call (local_shell_call, computer_call…): its action is the arguments.
    const { type: _type, id: _id, call_id: _callId, status: _status, ...action } = item;
    return [{ type: 'tool-call', callId, name: type.replace(/_call$/, ''), args: JSON.stringify(action) }];
  }
  return [{ type: 'text', text: JSON.stringify(item) }];
}

function reasoningPartOf(item: Item): ReasoningPart {
  const texts: string[] = [];
  for (const key of ['summary', 'content']) {
    const list = item[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list) if (isRecord(entry) && typeof entry.text === 'string') texts.push(entry.text);
  }
  return {
    type: 'reasoning',
    text: texts.join('\n'),
    ...(typeof item.encrypted_content === 'string' && { signature: item.encrypted_content }),
  };
}

function messageParts(content: unknown, field: string): Part[] {
  if (typeof content === 'string') return textParts(content);
  if (!Array.isArray(content))
    throw new InvalidInputError('must be a string or an array of content parts', { field: field });
  const parts: Part[] = [];
  content.forEach((part, index) => {
    if (!isRecord(part))
      throw new InvalidInputError('a content part must be an object', { field: `${field}[${index}]` });
    if (typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
    else if (typeof part.refusal === 'string') parts.push({ type: 'text', text: part.refusal });
    else parts.push({ type: 'text', text: JSON.stringify(part) });
  });
  return parts;
}

function userParts(content: unknown, field: string): Part[] {
  if (typeof content === 'string') return textParts(content);
  if (!Array.isArray(content))
    throw new InvalidInputError('must be a string or an array of content parts', { field: field });
  return content.map((part, index) => contentPart(part, `${field}[${index}]`));
}

/** One user-side content part: text, an image or a file as media, anything else as text of its JSON. */
function contentPart(part: unknown, field: string): Part {
  if (!isRecord(part)) throw new InvalidInputError('a content part must be an object', { field: field });
  if (typeof part.text === 'string') return { type: 'text', text: part.text };
  if (part.type === 'input_image') {
    const ref =
      typeof part.image_url === 'string'
        ? part.image_url
        : typeof part.file_id === 'string'
          ? fileIdRef(part.file_id)
          : undefined;
    if (ref === undefined)
      throw new InvalidInputError('an input_image needs image_url or file_id', { field: field });
    return {
      type: 'media',
      mediaType: ref.startsWith('data:')
        ? ref.slice(5, ref.indexOf(';') > 0 ? ref.indexOf(';') : undefined)
        : guessMediaType(ref, UNKNOWN_IMAGE_MEDIA_TYPE),
      ref,
      ...(typeof part.detail === 'string' && { detail: part.detail }),
    };
  }
  if (part.type === 'input_file') {
    const name = typeof part.filename === 'string' ? part.filename : undefined;
    const ref =
      typeof part.file_id === 'string'
        ? fileIdRef(part.file_id)
        : typeof part.file_data === 'string'
          ? part.file_data
          : typeof part.file_url === 'string'
            ? part.file_url
            : undefined;
    if (ref === undefined)
      throw new InvalidInputError('an input_file needs file_id, file_data or file_url', { field: field });
    return {
      type: 'media',
      mediaType: guessMediaType(name ?? ref, UNKNOWN_MEDIA_TYPE),
      ref,
      ...(name !== undefined && { name }),
    };
  }
  return { type: 'text', text: JSON.stringify(part) };
}

function messageText(content: unknown, field: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw new InvalidInputError('must be a string or an array of text parts', { field: field });
  return content
    .map((part, index) => {
      if (isRecord(part) && typeof part.text === 'string') return part.text;
      throw new InvalidInputError('a system message part must be text', { field: `${field}[${index}]` });
    })
    .join('\n');
}

/** A tool output item as a result part; undefined when the item is not one. */
function outputPart(
  item: Item,
  type: string,
  field: string,
): Extract<Part, { type: 'tool-result' }> | undefined {
  if (!isOutputType(type)) return undefined;
  const callId = callIdOf(item);
  if (callId === undefined) return undefined;
  const media: MediaPart[] = [];
  let content: string;
  const output = item.output;
  if (typeof output === 'string') content = output;
  else if (Array.isArray(output) && output.every(isContentPart)) {
    const texts: string[] = [];
    output.forEach((part, index) => {
      const read = contentPart(part, `${field}.output[${index}]`);
      if (read.type === 'text') texts.push(read.text);
      else if (read.type === 'media') media.push(read);
    });
    content = texts.join('\n');
  } else content = JSON.stringify(output ?? null);
  return {
    type: 'tool-result',
    callId,
    name: '',
    content,
    isError: false,
    ...(media.length > 0 && { media }),
  };
}

function callIdOf(item: Item): string | undefined {
  if (typeof item.call_id === 'string' && item.call_id !== '') return item.call_id;
  // `local_shell_call_output` names its call by `id`.
  if (item.type === 'local_shell_call_output' && typeof item.id === 'string') return item.id;
  return undefined;
}

function isOutputType(type: string): boolean {
  return type.endsWith('_output');
}

function isCallType(type: string): boolean {
  return type.endsWith('_call');
}

function requiredString(item: Item, key: string, field: string): string {
  const value = item[key];
  if (typeof value !== 'string' || value === '')
    throw new InvalidInputError('must be a non-empty string', { field: `${field}.${key}` });
  return value;
}

function textParts(text: string): Part[] {
  return [{ type: 'text', text }];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
