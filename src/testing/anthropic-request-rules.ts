/**
 * The rules Anthropic's Messages API refuses a request by, beyond its schema, each with the message the
 * API answers (quoted from the errors Claude Code, opencode and other clients reported):
 *
 * - `messages: first message must use the "user" role` (Bedrock and Vertex always; the first-party API
 *   has at times accepted an assistant first, so a proxy must not count on it);
 * - `messages.N: all messages must have non-empty content except for the optional final assistant message`;
 * - `messages: text content blocks must be non-empty`; `messages.N.content.K.tool_result: content cannot be
 *   empty if \`is_error\` is true`;
 * - `A maximum of 4 blocks with cache_control may be provided. Found N.` (tools, system and messages
 *   together, and a top-level `cache_control`, automatic caching, which takes one of the four slots);
 * - no `cache_control` on a thinking block: `messages.N.content.K.thinking.cache_control: Extra inputs are
 *   not permitted` (the same for `redacted_thinking`);
 * - every `tool_use` answered in the next message: `messages.N: \`tool_use\` ids were found without
 *   \`tool_result\` blocks immediately after: …`; every `tool_result` answering the previous message:
 *   `messages.N.content.K: unexpected \`tool_use_id\` found in \`tool_result\` blocks: …`. Consecutive
 *   messages of one role are joined first, as the API joins them;
 * - thinking blocks as they were issued: `messages.N.content.K: Invalid \`signature\` in \`thinking\`
 *   block`, `messages.N.content.K: Invalid \`data\` in \`redacted_thinking\` block`;
 * - an assistant message holding thinking starts with it: `messages.N.content.0: If an assistant message
 *   contains any thinking blocks, the first block must be \`thinking\` or \`redacted_thinking\`. Found \`text\`.`;
 * - with thinking on, the last assistant message of a tool loop starts with its thinking:
 *   `messages.N.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. …`;
 *   with thinking off, a final assistant message (a prefill) holds none: `messages.N.content.K: When
 *   thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. …`.
 *
 * Pure: the body in, the first rule it breaks out (as the API's message), or undefined.
 */
import { MAX_CACHE_BREAKPOINTS } from '../core/cache/prompt-cache-rules.ts';
import type { ThinkingSigner } from './thinking-signer.ts';

/** Most `cache_control` breakpoints one request may hold. */
export { MAX_CACHE_BREAKPOINTS };

export const THINKING_FIRST_MESSAGE =
  'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

export interface AnthropicRuleOptions {
  /** Checks thinking signatures and redacted data; without it, thinking blocks are not checked. */
  signer?: ThinkingSigner;
}

type Block = Record<string, unknown>;

interface WireMessage {
  index: number;
  role: unknown;
  blocks: Block[];
  empty: boolean;
}

/** A run of consecutive messages of one role, as the API joins them. */
interface JoinedTurn {
  role: unknown;
  /** Each block with where it was in the request. */
  blocks: Array<{ block: Block; message: number; position: number }>;
  first: number;
  last: number;
}

export function anthropicRuleViolation(
  body: unknown,
  options: AnthropicRuleOptions = {},
): string | undefined {
  if (!isRecord(body) || !Array.isArray(body.messages)) return undefined;
  const messages = body.messages.map(wireMessage);
  return (
    firstMessageRule(messages) ??
    nonEmptyRule(messages) ??
    cacheControlRule(body, messages) ??
    toolPairingRule(joined(messages)) ??
    thinkingIntegrityRule(messages, options.signer) ??
    thinkingLeadsRule(joined(messages)) ??
    thinkingFirstRule(body, joined(messages)) ??
    prefillThinkingRule(body, messages)
  );
}

/** The API's 400 body for a request that breaks a rule, or undefined: for hand-written test upstreams. */
export function anthropicRefusalBody(
  body: unknown,
  options: AnthropicRuleOptions = {},
): { type: 'error'; error: { type: 'invalid_request_error'; message: string } } | undefined {
  const message = anthropicRuleViolation(body, options);
  return message === undefined
    ? undefined
    : { type: 'error', error: { type: 'invalid_request_error', message } };
}

/** Whether the request turns extended thinking on (`enabled` with a budget, or `adaptive`). */
export function thinkingEnabled(body: unknown): boolean {
  if (!isRecord(body) || !isRecord(body.thinking)) return false;
  return body.thinking.type === 'enabled' || body.thinking.type === 'adaptive';
}

function firstMessageRule(messages: WireMessage[]): string | undefined {
  const first = messages[0];
  if (first !== undefined && first.role !== 'user') return 'messages: first message must use the "user" role';
  return undefined;
}

function nonEmptyRule(messages: WireMessage[]): string | undefined {
  for (const message of messages) {
    const finalAssistant = message.index === messages.length - 1 && message.role === 'assistant';
    if (message.empty && !finalAssistant)
      return `messages.${message.index}: all messages must have non-empty content except for the optional final assistant message`;
  }
  for (const message of messages) {
    for (const [position, block] of message.blocks.entries()) {
      if (block.type === 'tool_result' && block.is_error === true && isEmptyContent(block.content))
        return `messages.${message.index}.content.${position}.tool_result: content cannot be empty if \`is_error\` is true`;
      if (isEmptyText(block)) return 'messages: text content blocks must be non-empty';
      if (block.type === 'tool_result' && Array.isArray(block.content) && block.content.some(isEmptyText))
        return 'messages: text content blocks must be non-empty';
    }
  }
  return undefined;
}

function cacheControlRule(body: Record<string, unknown>, messages: WireMessage[]): string | undefined {
  for (const message of messages) {
    for (const [position, block] of message.blocks.entries()) {
      if (isThinking(block) && block.cache_control !== undefined)
        return `messages.${message.index}.content.${position}.${String(block.type)}.cache_control: Extra inputs are not permitted`;
    }
  }
  // Automatic caching's mark goes on the last block, in one of the four slots.
  let found = body.cache_control !== undefined && body.cache_control !== null ? 1 : 0;
  const count = (block: unknown) => {
    if (isRecord(block) && block.cache_control !== undefined && block.cache_control !== null) found += 1;
  };
  if (Array.isArray(body.tools)) body.tools.forEach(count);
  if (Array.isArray(body.system)) body.system.forEach(count);
  for (const message of messages) {
    for (const block of message.blocks) {
      count(block);
      if (block.type === 'tool_result' && Array.isArray(block.content)) block.content.forEach(count);
    }
  }
  return found > MAX_CACHE_BREAKPOINTS
    ? `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`
    : undefined;
}

function toolPairingRule(turns: JoinedTurn[]): string | undefined {
  for (const [position, turn] of turns.entries()) {
    const previous = turns[position - 1];
    const next = turns[position + 1];
    if (turn.role === 'assistant') {
      const answered = new Set(idsOf(next?.role === 'user' ? next : undefined, 'tool_result', 'tool_use_id'));
      const missing = idsOf(turn, 'tool_use', 'id').filter((id) => !answered.has(id));
      if (missing.length > 0)
        return `messages.${turn.last}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    } else {
      const called = new Set(idsOf(previous?.role === 'assistant' ? previous : undefined, 'tool_use', 'id'));
      for (const { block, message, position: at } of turn.blocks) {
        if (block.type !== 'tool_result' || called.has(String(block.tool_use_id))) continue;
        return `messages.${message}.content.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return undefined;
}

function thinkingIntegrityRule(
  messages: WireMessage[],
  signer: ThinkingSigner | undefined,
): string | undefined {
  if (signer === undefined) return undefined;
  for (const message of messages) {
    for (const [position, block] of message.blocks.entries()) {
      const where = `messages.${message.index}.content.${position}`;
      if (block.type === 'thinking') {
        if (typeof block.signature !== 'string') return `${where}.thinking.signature: Field required`;
        if (typeof block.thinking !== 'string' || !signer.verify(block.thinking, block.signature))
          return `${where}: Invalid \`signature\` in \`thinking\` block`;
      } else if (block.type === 'redacted_thinking') {
        if (typeof block.data !== 'string' || !signer.issued(block.data))
          return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  return undefined;
}

/** Thinking comes before what it led to: an assistant turn holding any starts with one. */
function thinkingLeadsRule(turns: JoinedTurn[]): string | undefined {
  for (const turn of turns) {
    if (turn.role !== 'assistant' || !turn.blocks.some(({ block }) => isThinking(block))) continue;
    const first = turn.blocks[0];
    if (first === undefined || isThinking(first.block)) continue;
    return `messages.${first.message}.content.${first.position}: If an assistant message contains any thinking blocks, the first block must be \`thinking\` or \`redacted_thinking\`. Found \`${String(first.block.type)}\`.`;
  }
  return undefined;
}

/** With thinking off, an assistant message the model is to continue holds no thinking. */
function prefillThinkingRule(body: Record<string, unknown>, messages: WireMessage[]): string | undefined {
  const last = messages.at(-1);
  if (thinkingEnabled(body) || last?.role !== 'assistant') return undefined;
  const position = last.blocks.findIndex(isThinking);
  if (position < 0) return undefined;
  return `messages.${last.index}.content.${position}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`;
}

/**
 * With thinking on, a request that continues a tool loop (its last message holds tool results) must send
 * the assistant message that made those calls starting with the thinking that came with it.
 */
function thinkingFirstRule(body: Record<string, unknown>, turns: JoinedTurn[]): string | undefined {
  if (!thinkingEnabled(body)) return undefined;
  const last = turns.at(-1);
  const assistant = turns.at(-2);
  if (last?.role !== 'user' || assistant?.role !== 'assistant') return undefined;
  if (!last.blocks.some(({ block }) => block.type === 'tool_result')) return undefined;
  const first = assistant.blocks[0];
  if (first === undefined || isThinking(first.block)) return undefined;
  return `messages.${first.message}.content.${first.position}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.block.type)}\`. ${THINKING_FIRST_MESSAGE}`;
}

function wireMessage(value: unknown, index: number): WireMessage {
  const message = isRecord(value) ? value : {};
  const content = message.content;
  if (typeof content === 'string')
    return {
      index,
      role: message.role,
      blocks: content === '' ? [] : [{ type: 'text', text: content }],
      empty: content === '',
    };
  const blocks = Array.isArray(content) ? content.filter(isRecord) : [];
  return { index, role: message.role, blocks, empty: blocks.length === 0 };
}

function joined(messages: WireMessage[]): JoinedTurn[] {
  const turns: JoinedTurn[] = [];
  for (const message of messages) {
    const blocks = message.blocks.map((block, position) => ({ block, message: message.index, position }));
    const last = turns.at(-1);
    if (last && last.role === message.role) {
      last.blocks.push(...blocks);
      last.last = message.index;
    } else turns.push({ role: message.role, blocks, first: message.index, last: message.index });
  }
  return turns;
}

function idsOf(turn: JoinedTurn | undefined, type: string, field: string): string[] {
  if (turn === undefined) return [];
  return turn.blocks.flatMap(({ block }) => (block.type === type ? [String(block[field])] : []));
}

function isThinking(block: Block): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

function isEmptyContent(content: unknown): boolean {
  return content === undefined || content === '' || (Array.isArray(content) && content.length === 0);
}

function isEmptyText(block: unknown): boolean {
  return isRecord(block) && block.type === 'text' && block.text === '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
