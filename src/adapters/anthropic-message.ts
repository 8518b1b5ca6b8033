/**
 * One message at a time, Anthropic Messages ↔ ctxkit: for agents that append each message as it
 * happens instead of converting whole requests (`fromAnthropicMessages` / `toAnthropicMessages`, whose
 * rules these follow message for message).
 */
import { EmptyAnthropicMessageError } from '../core/errors/index.ts';
import type { Message, MessageInput } from '../core/message.ts';
import {
  compactContent,
  contentBlocks,
  type FromAnthropicOptions,
  readAnthropicMessage,
  toolResultBlocks,
} from './anthropic-messages.ts';
import { type AnthropicMessage, anthropicMessageSchema } from './anthropic-messages-schema.ts';
import { validateItem } from './source-item.ts';
import { nameToolResults, type ToolNames } from './tool-call-names.ts';

export interface FromAnthropicMessageOptions extends FromAnthropicOptions {
  /**
   * Names of earlier tool calls (`tool_use` blocks) by id: a `tool_result` block does not name its tool,
   * so its result's name comes from here (empty when unknown). A `ToolCallNames` also records this
   * message's calls.
   */
  toolNames?: ToolNames;
}

/**
 * One Anthropic message (unvalidated JSON) as the messages to append: usually one, but a user turn that
 * carries `tool_result` blocks becomes one `tool` message per result, then a user message with the rest
 * (if any), as in `fromAnthropicMessages`. Bad input throws InvalidInputError.
 */
export function fromAnthropicMessage(
  message: unknown,
  options: FromAnthropicMessageOptions = {},
): MessageInput[] {
  const parsed = validateItem(anthropicMessageSchema, { value: message, field: 'message' }, options.file);
  const converted: MessageInput[] = readAnthropicMessage(parsed).map((draft) => ({
    role: draft.role,
    parts: draft.parts,
    meta: draft.meta ?? {},
  }));
  nameToolResults(converted, options.toolNames);
  return converted;
}

/**
 * One ctxkit message as an Anthropic message. A tool message becomes a user turn with its
 * `tool_result` block; `toAnthropicMessages` also merges consecutive results, and the user's words after
 * them, into one turn (the API joins consecutive user turns itself, so either form is accepted). A
 * message with nothing to send throws EmptyAnthropicMessageError (`toAnthropicMessages` leaves it out).
 */
export function toAnthropicMessage(message: Message | MessageInput): AnthropicMessage {
  const { role, parts } = message;
  const blocks = role === 'tool' ? parts.flatMap(toolResultBlocks) : contentBlocks(parts);
  if (blocks.length === 0) throw new EmptyAnthropicMessageError(role);
  return role === 'tool' ? { role: 'user', content: blocks } : { role, content: compactContent(blocks) };
}
