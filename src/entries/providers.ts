/**
 * `ctxkit/providers`: model clients over the official SDKs (OpenAI-compatible, Anthropic; whole or
 * streamed), overflow recognition, stop reasons, model profiles and windows, and asking a local server the
 * window it serves a model with.
 */

export * from '../providers/anthropic-client.ts';
export * from '../providers/detect-served-window.ts';
export * from '../providers/is-context-overflow.ts';
export { DEFAULT_MODEL_TIMEOUT_MS } from '../providers/model-call-guard.ts';
export * from '../providers/model-client.ts';
export * from '../providers/model-profiles.ts';
export * from '../providers/openai-compatible-client.ts';
export * from '../providers/resolve-context-window.ts';
export * from '../providers/stop-reasons.ts';
export { streamEventsOfResponse, withStreamFromComplete } from '../providers/stream-events-of-response.ts';
