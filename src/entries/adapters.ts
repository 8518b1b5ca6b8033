/** `ctxkit/adapters`: message-format converters (OpenAI chat, Anthropic messages, AI SDK shapes), per message or per transcript, and transcript loading. */

export {
  type FromAnthropicMessageOptions,
  fromAnthropicMessage,
  toAnthropicMessage,
} from '../adapters/anthropic-message.ts';
export {
  ANTHROPIC_RAW_ARGS_KEY,
  type FromAnthropicOptions,
  fromAnthropicMessages,
  fromAnthropicResponse,
  toAnthropicMessages,
  usageFromAnthropic,
} from '../adapters/anthropic-messages.ts';
export type * from '../adapters/anthropic-messages-schema.ts';
export { type CorpusMessage, parseCorpusJsonl, toCorpusJsonl } from '../adapters/corpus.ts';
export {
  detectMessagesFormat,
  type ParsedTranscript,
  parseTranscriptText,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from '../adapters/detect-format.ts';
export * from '../adapters/load-transcript.ts';
export { FILE_ID_REF_PREFIX, UNKNOWN_IMAGE_MEDIA_TYPE, UNKNOWN_MEDIA_TYPE } from '../adapters/media-ref.ts';
export {
  DEFAULT_TO_OPENAI_CHAT_OPTIONS,
  type FromOpenAIChatOptions,
  fromOpenAIChat,
  fromOpenAIChatCompletion,
  type ToOpenAIChatOptions,
  toOpenAIChat,
  usageFromOpenAI,
} from '../adapters/openai-chat.ts';
export {
  type FromOpenAIChatMessageOptions,
  fromOpenAIChatMessage,
  toOpenAIChatMessage,
} from '../adapters/openai-chat-message.ts';
export type * from '../adapters/openai-chat-schema.ts';
export * from '../adapters/tool-call-names.ts';
export * from '../adapters/tool-definitions.ts';
