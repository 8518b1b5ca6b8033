/**
 * ctxkit: what a user of the library needs, by name. The ContextManager with its options and results,
 * the presets, the store openers, the converters to and from the providers' shapes, the events, the
 * errors and the agent's read tools. The building blocks are subpath exports: `ctxkit/core`,
 * `ctxkit/tokens`, `ctxkit/layers`, `ctxkit/stores`, `ctxkit/adapters`, `ctxkit/providers`,
 * `ctxkit/summarize`, `ctxkit/agent` and `ctxkit/testing` (the fake provider server and the store
 * conformance suites, for people who write their own store).
 */

export { fromAnthropicMessage, toAnthropicMessage } from './adapters/anthropic-message.ts';
// Converters: the providers' shapes to ctxkit's messages and back.
export {
  fromAnthropicMessages,
  fromAnthropicResponse,
  toAnthropicMessages,
} from './adapters/anthropic-messages.ts';
export { loadTranscriptFile } from './adapters/load-transcript.ts';
export { fromOpenAIChat, fromOpenAIChatCompletion, toOpenAIChat } from './adapters/openai-chat.ts';
export { fromOpenAIChatMessage, toOpenAIChatMessage } from './adapters/openai-chat-message.ts';
export { ToolCallNames } from './adapters/tool-call-names.ts';
export { toAnthropicTool, toOpenAITool } from './adapters/tool-definitions.ts';
export {
  createReadMemoryHandler,
  handleReadMemory,
  readMemoryResultPart,
  readMemoryTool,
} from './agent/read-memory-tool.ts';
// The agent's read tools: what was offloaded, its memory notes, its skills.
export {
  createReadOffloadedHandler,
  handleReadOffloaded,
  readBackRoom,
  readOffloadedResultPart,
  readOffloadedTool,
} from './agent/read-offloaded-tool.ts';
export {
  createReadSkillHandler,
  handleReadSkill,
  readSkillResultPart,
  readSkillTool,
} from './agent/read-skill-tool.ts';
export { type ContextLevel, contextLevel } from './core/budget/context-level.ts';
export type { Edit, Summary } from './core/edit.ts';
// Errors: every one a CtxkitError with a stable code; tell them apart with isInstance.
export * from './core/errors/index.ts';
// Events.
export type { ContextEvent, ContextEventListener, ContextEventType } from './core/events.ts';
export type { MemoryEntry, MemorySink } from './core/memory-sink.ts';
// Messages and tools.
export type {
  MediaPart,
  Message,
  MessageInput,
  MessageKind,
  MessageMeta,
  Part,
  ReasoningPart,
  Role,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  Transcript,
  Usage,
} from './core/message.ts';
export { textOf, toolCallsOf, toolResultOf } from './core/message.ts';
// Policies and presets.
export { mergePolicy, validatePolicy } from './core/policy/merge-policy.ts';
export { parsePolicy } from './core/policy/parse-policy.ts';
export type { Policy, PolicyOverride } from './core/policy/policy-schema.ts';
export { getPreset, PRESET_NAMES, PRESETS, type PresetName } from './core/policy/presets/index.ts';
export { resolvePolicy } from './core/policy/resolve-policy.ts';
export type { SkillSource } from './core/skills/skill-source.ts';
export type { ToolDefinition, ToolInjectionMode } from './core/tool-definition.ts';
// The manager.
export type { PrepareRequest } from './engine/call-context.ts';
export {
  type AfterTurnOptions,
  type AfterTurnResult,
  type AppendResult,
  type CompactOptions,
  ContextManager,
  type ContextManagerOptions,
  createContextManager,
  type OverflowRetry,
  type RecoverResult,
  type RetryRequestFor,
  type SyncResult,
} from './engine/context-manager.ts';
export type { FinalGuardReport } from './engine/final-guard.ts';
export type { PrepareResult, PrepareStats } from './engine/prepare-call.ts';
export type { PointerKind, PointerLocation, RequestPointer } from './engine/request-ledger.ts';
export type { SessionStats, TokenCategories } from './engine/session-stats.ts';
// Model clients, for model-backed summaries (and the agent).
export { createAnthropicClient } from './providers/anthropic-client.ts';
export { isContextOverflow } from './providers/is-context-overflow.ts';
export type { ModelClient } from './providers/model-client.ts';
export { createOpenAICompatibleClient } from './providers/openai-compatible-client.ts';
export type { BlobStore } from './store/blob-store.ts';
export { createFsBlobStore } from './store/fs-blob-store.ts';
export { createFsSkillSource } from './store/fs-skill-source.ts';
export { createMemoryBlobStore } from './store/memory-blob-store.ts';
export { createFileMemorySink } from './store/memory-files.ts';
export { createMemoryMemorySink } from './store/memory-memory-sink.ts';
export { createMemorySessionStore } from './store/memory-session-store.ts';
export { createMemorySkillSource } from './store/memory-skill-source.ts';
// Stores: the embedded defaults in one call, or each on its own.
export { type EmbeddedStores, openEmbeddedStores } from './store/open-embedded-stores.ts';
export { createPostgresSessionStore } from './store/postgres-session-store.ts';
export { type RetentionReport, sweepIdleSessions } from './store/retention.ts';
export { type RetentionSchedule, startRetention } from './store/retention-schedule.ts';
export type { SessionStore } from './store/session-store.ts';
export { createSqliteSessionStore } from './store/sqlite-session-store.ts';
export { createSqliteTraceStore } from './store/sqlite-trace-store.ts';
export { createMemoryTraceStore, type TraceStore } from './store/trace-store.ts';
export type { Summarizer } from './summarize/summarizer.ts';
