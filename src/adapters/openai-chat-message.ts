/**
 * One message at a time, OpenAI Chat Completions ↔ ctxkit: for agents that append each message as it
 * happens instead of converting whole transcripts (`fromOpenAIChat` / `toOpenAIChat`, whose rules these
 * follow message for message).
 */
import type { Message, MessageInput } from '../core/message.ts';
import {
  DEFAULT_TO_OPENAI_CHAT_OPTIONS,
  type LegacyCallIds,
  OpenAIChatReader,
  openAIChatMessageOf,
  type ToOpenAIChatOptions,
} from './openai-chat.ts';
import type { OpenAIChatMessage } from './openai-chat-schema.ts';
import { invalidAt, type SourceItem } from './source-item.ts';
import { nameToolResults, ToolCallNames, type ToolNames } from './tool-call-names.ts';

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
 * appended).
 *
 * A legacy `function_call` carries no call id, and a legacy `function` message names only its function:
 * with a `ToolCallNames` following the stream, a call gets `fc_<n>` (an id no earlier call has) and a
 * `function` message answers the newest unanswered legacy call of its function, as `fromOpenAIChat`
 * pairs them. Without one, every such call would get the same id, so both are refused (InvalidInputError).
 */
export function fromOpenAIChatMessage(
  message: unknown,
  options: FromOpenAIChatMessageOptions = {},
): MessageInput {
  const reader = new OpenAIChatReader(options.file, legacyCallIds(options));
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

/** Legacy call ids from the stream's `ToolCallNames`, or a refusal naming the legacy field. */
function legacyCallIds(options: FromOpenAIChatMessageOptions): LegacyCallIds {
  const names = options.toolNames;
  if (names instanceof ToolCallNames) {
    return {
      callId: () => names.newLegacyCallId(),
      resultId: (name) => names.openLegacyCallOf(name) ?? names.newLegacyCallId(),
    };
  }
  const refuse = (field: string, what: string) => (_name: string, item: SourceItem) => {
    throw invalidAt(
      item,
      options.file,
      field,
      `${what} has no call id, so one message alone cannot be paired: pass toolNames: a ToolCallNames ` +
        'that follows the stream (or convert the whole transcript with fromOpenAIChat)',
    );
  };
  return {
    callId: refuse('function_call', 'a legacy function_call'),
    resultId: refuse('role', 'a legacy "function" message'),
  };
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
