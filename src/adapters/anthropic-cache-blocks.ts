/**
 * An Anthropic Messages body as the prompt cache sees it: one run of blocks, tools then system then
 * every message's content blocks, each with a key for its content, its size, whether it may carry
 * `cache_control` and whether it does. A string `system` or `content` is one text block, as the API
 * renders it, so a body keeps its keys when a mark turns that string into a block.
 *
 * May carry a mark (the guide's "What can be cached"): tool definitions, non-empty system text, and
 * message blocks of type text (not blank), image, document, tool_use, tool_result and search_result.
 * Thinking and redacted thinking may not (the API answers "…thinking.cache_control: Extra inputs are not
 * permitted"), nor empty text, nor block types this file does not know.
 *
 * A body is read as `JSON.stringify` writes it: a value with a `toJSON` (serve's `RawJson`, the client's
 * own bytes of a message or a member) is read as what that gives.
 */
import { hash } from 'node:crypto';
import { isRecord } from '../core/is-record.ts';

export type AnthropicCacheRegion = 'tools' | 'system' | 'messages';

export interface AnthropicCacheBlock {
  region: AnthropicCacheRegion;
  /** Index in `tools` or `system`; for messages, the message's index. */
  index: number;
  /** For messages, the block's index in its content (0 for string content). */
  position: number;
  /**
   * Short hash of the block's JSON without its `cache_control`: equal keys, equal blocks. Worked out only
   * when the caller counts tokens (`tokensOf`), to remember counts by it; empty otherwise.
   */
  key: string;
  /** Key of the whole prefix up to and including this block: equal keys, equal prefixes. */
  prefixKey: string;
  /** Length of the block's JSON, what a size estimate starts from. */
  chars: number;
  /** The block's tokens, when the caller gave a way to count them. */
  tokens?: number;
  cacheable: boolean;
  /** The block carries `cache_control`. */
  marked: boolean;
  /** The mark's `ttl` when it says `1h`. */
  longTtl: boolean;
}

/** The mark ctxkit places: a 5-minute entry, the API's default. */
export const EPHEMERAL_CACHE_CONTROL: Readonly<{ type: 'ephemeral' }> = Object.freeze({ type: 'ephemeral' });

const CACHEABLE_MESSAGE_BLOCKS = new Set(['image', 'document', 'tool_use', 'tool_result', 'search_result']);
/** Characters of a key kept from its base64 sha1: 96 bits, no collision within one conversation. */
const KEY_LENGTH = 16;

/**
 * The body's blocks in the order the cache reads them. `tokensOf`, when given, counts each block from its
 * JSON (without its mark) and its key, so a caller can remember counts by key.
 */
export function anthropicCacheBlocks(
  body: Readonly<Record<string, unknown>>,
  tokensOf?: (json: string, key: string) => number,
): AnthropicCacheBlock[] {
  const out: AnthropicCacheBlock[] = [];
  let prefixKey = '';
  const add = (region: AnthropicCacheRegion, index: number, position: number, block: unknown) => {
    const record = isRecord(block) ? block : {};
    const { cache_control: mark, ...content } = record;
    const json = JSON.stringify(content);
    // One hash a block: the prefix's key covers the previous prefix's key and this block's JSON.
    prefixKey = shortHash(`${prefixKey}${json}`);
    const key = tokensOf !== undefined ? shortHash(json) : '';
    out.push({
      region,
      index,
      position,
      key,
      prefixKey,
      chars: json.length,
      ...(tokensOf !== undefined && { tokens: tokensOf(json, key) }),
      cacheable: region === 'tools' ? true : canCarryMark(record),
      marked: mark !== undefined && mark !== null,
      longTtl: isRecord(mark) && mark.ttl === '1h',
    });
  };
  const tools = asJson(body.tools);
  if (Array.isArray(tools)) for (const [index, tool] of tools.entries()) add('tools', index, 0, asJson(tool));
  for (const [index, block] of systemBlocks(body.system).entries()) add('system', index, 0, block);
  const messages = asJson(body.messages);
  if (Array.isArray(messages)) {
    for (const [index, item] of messages.entries()) {
      const message = asJson(item);
      const content = contentBlocks(isRecord(message) ? message.content : undefined);
      for (const [position, block] of content.entries()) add('messages', index, position, block);
    }
  }
  return out;
}

/**
 * Whether the body holds any `cache_control`: top level (automatic caching), a tool, a system block, a
 * message block or a block inside a tool result.
 */
export function hasAnthropicCacheControl(body: Readonly<Record<string, unknown>>): boolean {
  if (isMark(asJson(body.cache_control))) return true;
  const marked = (value: unknown) => {
    const record = asJson(value);
    return isRecord(record) && isMark(record.cache_control);
  };
  const tools = asJson(body.tools);
  if (Array.isArray(tools) && tools.some(marked)) return true;
  const system = asJson(body.system);
  if (Array.isArray(system) && system.some(marked)) return true;
  const messages = asJson(body.messages);
  if (!Array.isArray(messages)) return false;
  for (const item of messages) {
    const message = asJson(item);
    const content = isRecord(message) ? message.content : undefined;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (isMark(block.cache_control)) return true;
      if (
        Array.isArray(block.content) &&
        block.content.some((inner) => isRecord(inner) && isMark(inner.cache_control))
      )
        return true;
    }
  }
  return false;
}

/**
 * The body with `cache_control` on the blocks at `positions` (indices into `blocks`, which must be this
 * body's). Only what leads to a marked block is copied; the input is left as it was. A string `system`
 * or `content` that gets a mark becomes one text block.
 */
export function withCacheMarks(
  body: Readonly<Record<string, unknown>>,
  blocks: readonly AnthropicCacheBlock[],
  positions: readonly number[],
  mark: Readonly<Record<string, unknown>> = EPHEMERAL_CACHE_CONTROL,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  if (positions.length === 0) return out;
  const marked = (block: unknown) => ({ ...(isRecord(block) ? block : {}), cache_control: { ...mark } });
  let tools: unknown[] | undefined;
  let system: unknown[] | undefined;
  let messages: unknown[] | undefined;
  const contents = new Map<number, unknown[]>();
  for (const at of positions) {
    const block = blocks[at];
    if (block === undefined) continue;
    if (block.region === 'tools') {
      tools ??= [...(asJson(body.tools) as unknown[])];
      tools[block.index] = marked(asJson(tools[block.index]));
    } else if (block.region === 'system') {
      system ??= systemBlocks(body.system);
      system[block.index] = marked(system[block.index]);
    } else {
      messages ??= [...(asJson(body.messages) as unknown[])];
      let content = contents.get(block.index);
      if (content === undefined) {
        const message = asJson(messages[block.index]) as Record<string, unknown>;
        content = contentBlocks(message.content);
        contents.set(block.index, content);
        messages[block.index] = { ...message, content };
      }
      content[block.position] = marked(content[block.position]);
    }
  }
  if (tools) out.tools = tools;
  if (system) out.system = system;
  if (messages) out.messages = messages;
  return out;
}

function systemBlocks(value: unknown): unknown[] {
  const system = asJson(value);
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  return Array.isArray(system) ? system.map(asJson) : [];
}

/** A value as JSON.stringify sees it: what its `toJSON` gives, when it has one. */
function asJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? toJSON.call(value) : value;
}

function contentBlocks(content: unknown): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? [...content] : [];
}

function canCarryMark(block: Record<string, unknown>): boolean {
  if (block.type === 'text') return typeof block.text === 'string' && block.text.trim() !== '';
  return typeof block.type === 'string' && CACHEABLE_MESSAGE_BLOCKS.has(block.type);
}

function shortHash(text: string): string {
  return hash('sha1', text, 'base64').slice(0, KEY_LENGTH);
}

function isMark(value: unknown): boolean {
  return value !== undefined && value !== null;
}
