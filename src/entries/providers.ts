/** `ctxkit/providers`: model clients (OpenAI-compatible, Anthropic), overflow recognition, model profiles and windows. */

export * from '../providers/anthropic-client.ts';
export * from '../providers/is-context-overflow.ts';
export * from '../providers/model-client.ts';
export * from '../providers/model-profiles.ts';
export * from '../providers/openai-compatible-client.ts';
export * from '../providers/resolve-context-window.ts';
