import type { Message, Usage } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';

/** One model call, in ctxkit's own terms; each client translates it to its provider's wire format. */
export interface ModelRequest {
  model: string;
  /** The system prompt; providers that take it as a message get it as the first one. */
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface ModelResponse {
  /** The assistant message, converted to ctxkit's model, with `usage` filled in. */
  message: Message;
  usage: Usage;
  /** The provider's own stop reason (`stop`, `end_turn`, `length`, `tool_use`…). */
  stopReason: string;
  /** The model that answered, as the provider names it. */
  model: string;
}

/**
 * What a streamed call yields, in order: deltas as they arrive, then exactly one `response` (the whole
 * answer, as `complete` would have returned it). A failure, including an error event that arrives
 * inside a stream after a 200, is thrown from the iterator as a ModelCallError that
 * `isContextOverflow` reads like any other.
 */
export type ModelStreamEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /** A tool call has begun; its arguments follow as `tool-call-delta`s. */
  | { type: 'tool-call-start'; callId: string; name: string }
  | { type: 'tool-call-delta'; callId: string; argsDelta: string }
  | { type: 'response'; response: ModelResponse };

export interface ModelClient {
  /** `openai-compatible`, `anthropic`, … */
  readonly provider: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
  /**
   * The window the server has the model loaded with, when the server can tell (Ollama's `num_ctx`, a
   * vLLM-style `max_model_len`, llama.cpp's `/props`); undefined when it cannot. Never throws for a
   * server that does not answer: the caller falls back to the profile table, then to `--window`.
   */
  servedContextWindow?(model: string, options?: { signal?: AbortSignal }): Promise<number | undefined>;
}
