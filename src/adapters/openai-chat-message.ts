/**
 * One message at a time, OpenAI Chat Completions ↔ ctxkit: for agents that append each message as it
 * happens instead of converting whole transcripts (`fromOpenAIChat` / `toOpenAIChat`, whose rules these
 * follow message for message).
 */
import type { Message, MessageInput } from '../core/message.ts';
import {
  DEFAULT_TO_OPENAI_CHAT_OPTIONS,
  OpenAIChatReader,
  openAIChatMessageOf,
  type ToOpenAIChatOptions,
} from './openai-chat.ts';
import type { OpenAIChatMessage } from './openai-chat-schema.ts';
import { nameToolResults, type ToolNames } from './tool-call-names.ts';

export interface FromOpenAIChatMessageOptions {
  /**
   * Names of earlier tool calls by call id: an OpenAI `tool` message does not name its tool, so its
   * result's name comes from here (empty when unknown). A `ToolCallNames` also records this message's calls.
   */
  toolNames?: ToolNames;
  /** Names the source in validation errors. */
  file?: string;
}

/**
 * One OpenAI chat message (unvalidated JSON) as a message to append; bad input throws InvalidInputError.
 * A `system` or `developer` message becomes a user message of kind `system_note`, as one in the middle
 * of a conversation does in `fromOpenAIChat` (the system prompt itself is passed to `prepare`, not
 * appended). A legacy `function` message is paired with its call only inside a whole transcript.
 */
export function fromOpenAIChatMessage(
  message: unknown,
  options: FromOpenAIChatMessageOptions = {},
): MessageInput {
  const reader = new OpenAIChatReader(options.file);
  reader.read({ value: message, field: 'message' });
  const draft = reader.drafts[0];
  const converted: MessageInput = draft
    ? { role: draft.role, parts: draft.parts, meta: draft.meta ?? {} }
    : {
        role: 'user',
        parts: (reader.system[0] ?? '') === '' ? [] : [{ type: 'text', text: reader.system[0] ?? '' }],
        meta: { kind: 'system_note' },
      };
  nameToolResults([converted], options.toolNames);
  return converted;
}

/**
 * One ctxkit message as an OpenAI chat message. What `toOpenAIChat` cannot express is lost here too;
 * besides, media returned inside a tool result are not sent (an OpenAI tool message carries text only:
 * `toOpenAIChat` adds them in a user message after the run of tool messages).
 */
export function toOpenAIChatMessage(
  message: Message | MessageInput,
  options: ToOpenAIChatOptions = {},
): OpenAIChatMessage {
  return openAIChatMessageOf(
    { role: message.role, parts: message.parts, meta: message.meta ?? {} },
    { ...DEFAULT_TO_OPENAI_CHAT_OPTIONS, ...options },
  );
}
