/**
 * ctxkit's library surface. The ContextManager (engine) is the entry point; the rest is what it is made
 * of, exported so agents, frameworks and tools can use the pieces on their own: the message model and
 * converters, token counting, budget arithmetic, policies and presets, summarizers, stores, clients.
 */

export {
  type FromAnthropicMessageOptions,
  fromAnthropicMessage,
  toAnthropicMessage,
} from './adapters/anthropic-message.ts';
// Message formats
export {
  ANTHROPIC_RAW_ARGS_KEY,
  type FromAnthropicOptions,
  fromAnthropicMessages,
  fromAnthropicResponse,
  toAnthropicMessages,
  usageFromAnthropic,
} from './adapters/anthropic-messages.ts';
export type * from './adapters/anthropic-messages-schema.ts';
export { type CorpusMessage, parseCorpusJsonl, toCorpusJsonl } from './adapters/corpus.ts';
export {
  detectMessagesFormat,
  type ParsedTranscript,
  parseTranscriptText,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from './adapters/detect-format.ts';
export * from './adapters/load-transcript.ts';
export { FILE_ID_REF_PREFIX, UNKNOWN_IMAGE_MEDIA_TYPE, UNKNOWN_MEDIA_TYPE } from './adapters/media-ref.ts';
export {
  DEFAULT_TO_OPENAI_CHAT_OPTIONS,
  type FromOpenAIChatOptions,
  fromOpenAIChat,
  fromOpenAIChatCompletion,
  type ToOpenAIChatOptions,
  toOpenAIChat,
  usageFromOpenAI,
} from './adapters/openai-chat.ts';
export {
  type FromOpenAIChatMessageOptions,
  fromOpenAIChatMessage,
  toOpenAIChatMessage,
} from './adapters/openai-chat-message.ts';
export type * from './adapters/openai-chat-schema.ts';
export * from './adapters/tool-call-names.ts';
export * from './adapters/tool-definitions.ts';
// The agent's read tools: memory notes and skills (the indexes in every request, seed 002), and the
// read-back tool (follows every pointer ctxkit leaves)
export * from './agent/read-memory-tool.ts';
export * from './agent/read-offloaded-tool.ts';
export * from './agent/read-skill-tool.ts';
// Core: messages, edits, views, turns, tokens, budget, policy
export * from './core/budget/index.ts';
export { canonicalJson } from './core/canonical-json.ts';
export * from './core/context-index/index.ts';
export * from './core/edit.ts';
export * from './core/errors/index.ts';
export * from './core/events.ts';
export * from './core/find-tool-pairing-problems.ts';
export * from './core/memory-sink.ts';
export * from './core/message.ts';
export * from './core/policy/index.ts';
export {
  isValidSessionId,
  MAX_SESSION_ID_LENGTH,
} from './core/session-id.ts';
export * from './core/skills/index.ts';
export * from './core/stable-id.ts';
export * from './core/summary-report.ts';
export * from './core/tokens/index.ts';
export * from './core/tool-definition.ts';
export * from './core/turns/index.ts';
export * from './core/view/index.ts';
export type { CallContext, PrepareRequest, PromptIndexes } from './engine/call-context.ts';
// Engine
export {
  type AfterTurnResult,
  type AppendResult,
  type CompactOptions,
  ContextManager,
  type ContextManagerOptions,
  createContextManager,
  type RecoverResult,
  type SyncResult,
} from './engine/context-manager.ts';
export type { FinalGuardReport } from './engine/final-guard.ts';
export type { PrepareResult, PrepareStats } from './engine/prepare-call.ts';
export type { PointerKind, PointerLocation, RequestPointer } from './engine/request-ledger.ts';
export type { SessionStats, TokenCategories } from './engine/session-stats.ts';
// Layers and summarizers
export {
  type NormalizedToolOutput,
  type NormalizeToolOutputInput,
  type NormalizeToolOutputOptions,
  normalizeEdit,
  normalizeToolOutput,
  renderToolOutput,
  stripTerminalControls,
} from './layers/normalize-tool-output/index.ts';
// Providers
export * from './providers/anthropic-client.ts';
export * from './providers/is-context-overflow.ts';
export * from './providers/model-client.ts';
export * from './providers/model-profiles.ts';
export * from './providers/openai-compatible-client.ts';
export * from './providers/resolve-context-window.ts';
// Stores
export * from './store/blob-store.ts';
export * from './store/fs-blob-store.ts';
export * from './store/fs-skill-source.ts';
export * from './store/memory-blob-store.ts';
export {
  createFileMemorySink,
  type FileMemorySink,
  type FileMemorySinkOptions,
  MEMORY_READ_MAX_BYTES,
  memoryFilePath,
} from './store/memory-files.ts';
export * from './store/memory-memory-sink.ts';
export * from './store/memory-session-store.ts';
export * from './store/memory-skill-source.ts';
export * from './store/open-embedded-stores.ts';
export * from './store/postgres-session-store.ts';
export * from './store/retention.ts';
export * from './store/retention-schedule.ts';
export * from './store/session-store.ts';
export * from './store/sqlite-session-store.ts';
export * from './store/trace-store.ts';
export * from './summarize/index.ts';
