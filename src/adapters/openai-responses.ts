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
 * as the client wrote it; a changed one is written back by `openai-responses-write.ts`.
 */

import { InvalidInputError } from '../core/errors/index.ts';
import { isRecord } from '../core/is-record.ts';
import type { MediaPart, MessageInput, Part, ReasoningPart, Usage } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { MessageDraft } from './finish-transcript.ts';
import { fileIdRef, guessMediaType, UNKNOWN_IMAGE_MEDIA_TYPE, UNKNOWN_MEDIA_TYPE } from './media-ref.ts';

export type Item = Record<string, unknown>;

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

export function reasoningPartOf(item: Item): ReasoningPart {
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

/** A content part the API takes in a tool output: text, an image or a file. */
export function isContentPart(part: unknown): boolean {
  return (
    isRecord(part) &&
    (typeof part.text === 'string' || part.type === 'input_image' || part.type === 'input_file')
  );
}

/** A tool output item as a result part; undefined when the item is not one. */
export function outputPart(
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

export function callIdOf(item: Item): string | undefined {
  if (typeof item.call_id === 'string' && item.call_id !== '') return item.call_id;
  // `local_shell_call_output` names its call by `id`.
  if (item.type === 'local_shell_call_output' && typeof item.id === 'string') return item.id;
  return undefined;
}

export function isOutputType(type: string): boolean {
  return type.endsWith('_output');
}

export function isCallType(type: string): boolean {
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
