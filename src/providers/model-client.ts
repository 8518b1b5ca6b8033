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

export interface ModelClient {
  /** `openai-compatible`, `anthropic`, … */
  readonly provider: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
