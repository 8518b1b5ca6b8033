/**
 * A read tool's answer a part at a time (read_offloaded, read_memory, read_skill): a text larger than `limit` comes back
 * in parts, each headed by where it sits and ending with the exact call that reads the next, as
 * read_offloaded's parts do. Parts never split a surrogate pair and always advance.
 */

import type { ToolCallPart, ToolResultPart } from '../core/message.ts';
import { safeCutIndex } from '../core/utf16-boundary.ts';

export interface PagedText {
  content: string;
  /** The whole text's length in characters. */
  totalChars: number;
  /** Where the next part starts; absent on the last part. */
  nextOffset?: number;
}

/**
 * The part of `text` from `offset`, at most `limit` characters; a string when `offset` is past the end
 * (the message for the model). `label` names the text in the header; `nextCall(offset)` is the call that
 * reads on from `offset`.
 */
export function pageText(
  text: string,
  page: { offset: number; limit: number; label: string; nextCall: (offset: number) => string },
): PagedText | string {
  const total = text.length;
  if (page.offset === 0 && total <= page.limit) return { content: text, totalChars: total };
  if (page.offset >= total)
    return `offset ${page.offset} is past the end of ${page.label} (${total} characters)`;
  const start = snapBack(text, page.offset);
  let end = snapBack(text, Math.min(total, start + page.limit));
  // A limit smaller than the code point at `start` takes that whole code point, or the part is empty.
  if (end <= start) end = Math.min(total, start + 2);
  const more = end < total;
  const next = more ? ` Next: ${page.nextCall(end)}.` : ' This is the end.';
  return {
    content: `[${page.label}: characters ${start}–${end} of ${total}.${next}]\n${text.slice(start, end)}`,
    totalChars: total,
    ...(more ? { nextOffset: end } : {}),
  };
}

/** Never split a surrogate pair: a boundary inside one moves back by one unit. */
const snapBack = safeCutIndex;

/** The `offset` and `limit` arguments, checked; a string explains what is wrong. */
export function pageArgs(
  record: Record<string, unknown>,
  defaults: { limit: number; maxLimit: number },
): { offset: number; limit: number } | string {
  const { offset = 0, limit = defaults.limit } = record;
  if (!Number.isInteger(offset) || (offset as number) < 0) return '"offset" must be an integer ≥ 0';
  if (!Number.isInteger(limit) || (limit as number) < 1) return '"limit" must be an integer ≥ 1';
  return { offset: offset as number, limit: Math.min(limit as number, defaults.maxLimit) };
}

/** A tool call's arguments as an object: parsed from JSON text, a bare string standing for `bare`. */
export function argsObject(args: unknown, bare: string, example: string): Record<string, unknown> | string {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return `arguments must be a JSON object like ${example}; got ${clip(args as string)}`;
    }
  }
  if (typeof value === 'string') value = { [bare]: value };
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) return `arguments must be an object like ${example}`;
  return value as Record<string, unknown>;
}

export function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** A read tool's answer as the tool-result part to append for `call` (same call id and name). */
export function resultPartFor(
  call: ToolCallPart,
  result: { content: string; isError: boolean },
): ToolResultPart {
  return {
    type: 'tool-result',
    callId: call.callId,
    name: call.name,
    content: result.content,
    isError: result.isError,
  };
}

/** The `offset` and `limit` properties of a read tool's JSON Schema, as every read tool pages. */
export function pagingProperties(defaults: { limit: number; maxLimit: number }): Record<string, unknown> {
  return {
    offset: {
      type: 'integer',
      minimum: 0,
      description: 'Character offset to start reading at (default 0).',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: defaults.maxLimit,
      description: `Most characters to return (default ${defaults.limit}).`,
    },
  };
}
