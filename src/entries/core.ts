/** `ctxkit/core`: the building blocks without I/O: messages, edits, the view, turns, events, policies and presets, errors, skills and indexes. */

export { canonicalJson } from '../core/canonical-json.ts';
export * from '../core/compaction/decide-compaction.ts';
export * from '../core/compaction/plan-overflow-recovery.ts';
export * from '../core/context-index/index.ts';
export * from '../core/distinctive-tokens.ts';
export * from '../core/edit.ts';
export * from '../core/errors/index.ts';
export * from '../core/events.ts';
export * from '../core/find-tool-pairing-problems.ts';
export * from '../core/memory-sink.ts';
export * from '../core/message.ts';
export * from '../core/policy/index.ts';
export {
  isValidSessionId,
  MAX_SESSION_ID_LENGTH,
} from '../core/session-id.ts';
export * from '../core/skills/index.ts';
export * from '../core/stable-id.ts';
export * from '../core/summary-report.ts';
export * from '../core/tool-definition.ts';
export * from '../core/turns/index.ts';
export * from '../core/view/index.ts';
