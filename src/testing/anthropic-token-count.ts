/**
 * How many input tokens a Messages request holds, counted the way a provider counts it and independently
 * of ctxkit's own counters: gpt-tokenizer's o200k encoder over every text the model reads (system, tool
 * definitions, each block), scaled up by CLAUDE_TOKENS_PER_O200K since Claude's tokenizer cuts the same
 * text into more pieces, plus the tool-use system prompt Anthropic adds when tools are offered. ctxkit
 * does not know Claude's tokenizer either, so a proxy that holds such a window must learn the ratio from
 * reported usage, as it must with the real API.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Claude tokens per o200k token: code and prose come out 10 to 20 % longer in Claude's tokenizer. */
export const CLAUDE_TOKENS_PER_O200K = 1.15;
/** The tool-use system prompt Anthropic documents for Claude 4 models (`auto` / `none` tool choice). */
export const TOOL_USE_SYSTEM_PROMPT_TOKENS = 346;
/** Framing per message and per block (role markers, block separators). */
const MESSAGE_OVERHEAD = 4;
const BLOCK_OVERHEAD = 2;
/** What an image or a PDF page is counted as: a fixed cost, not its bytes. */
const MEDIA_TOKENS = 1_600;

export type AnthropicTokenCounter = (body: unknown) => number;

/** A counter with its own cache of counted texts (a growing session resends the same blocks). */
export function createAnthropicTokenCounter(scale = CLAUDE_TOKENS_PER_O200K): AnthropicTokenCounter {
  const known = new Map<string, number>();
  const count = (text: string): number => {
    if (text === '') return 0;
    let tokens = known.get(text);
    if (tokens === undefined) {
      tokens = countTokens(text);
      known.set(text, tokens);
    }
    return tokens;
  };
  return (body) => {
    if (!isRecord(body)) return 0;
    let o200k = 0;
    if (typeof body.system === 'string') o200k += count(body.system);
    else if (Array.isArray(body.system))
      for (const block of body.system) o200k += blockTokens(block, count) + BLOCK_OVERHEAD;
    const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
    for (const tool of tools) {
      const { cache_control: _cache, ...definition } = tool;
      o200k += count(JSON.stringify(definition)) + BLOCK_OVERHEAD;
    }
    for (const message of Array.isArray(body.messages) ? body.messages.filter(isRecord) : []) {
      o200k += MESSAGE_OVERHEAD;
      if (typeof message.content === 'string') o200k += count(message.content);
      else if (Array.isArray(message.content))
        for (const block of message.content) o200k += blockTokens(block, count) + BLOCK_OVERHEAD;
    }
    return Math.ceil(o200k * scale) + (tools.length > 0 ? TOOL_USE_SYSTEM_PROMPT_TOKENS : 0);
  };
}

function blockTokens(block: unknown, count: (text: string) => number): number {
  if (!isRecord(block)) return 0;
  switch (block.type) {
    case 'text':
      return count(String(block.text ?? ''));
    case 'thinking':
      return count(String(block.thinking ?? ''));
    case 'redacted_thinking':
      return count(String(block.data ?? ''));
    case 'tool_use':
      return count(String(block.name ?? '')) + count(JSON.stringify(block.input ?? {}));
    case 'tool_result':
      if (typeof block.content === 'string') return count(block.content);
      if (Array.isArray(block.content))
        return block.content.reduce<number>((sum, inner) => sum + blockTokens(inner, count), 0);
      return 0;
    case 'image':
      return MEDIA_TOKENS;
    case 'document': {
      const source = isRecord(block.source) ? block.source : {};
      return source.type === 'text' ? count(String(source.data ?? '')) : MEDIA_TOKENS;
    }
    default: {
      const { cache_control: _cache, ...rest } = block;
      return count(JSON.stringify(rest));
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
