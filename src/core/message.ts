/**
 * ctxkit's message model. Every format (OpenAI chat, Anthropic messages, the corpus JSONL) converts to
 * and from these plain, JSON-safe types; every layer, store and surface works on them.
 *
 * Invariants the rest of the code relies on:
 * - a `tool` message holds exactly one `tool-result` part;
 * - tool calls live only in `assistant` messages;
 * - media is a reference (URL, blob ref or data-URL ref), never inlined bytes in a text field;
 * - the system prompt is not part of history: it is supplied per call (picoclaw).
 */

export type Role = 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Provider signature that must be echoed back verbatim (Anthropic thinking blocks). */
  signature?: string;
  /** Opaque redacted reasoning payload (Anthropic `redacted_thinking`). */
  redactedData?: string;
}

export interface MediaPart {
  type: 'media';
  /** IANA media type, e.g. `image/png`. */
  mediaType: string;
  /** Where the bytes are: a URL, a `blob:` reference or a `data:` URL kept out of text fields. */
  ref: string;
  /** Optional provider-specific token figure; otherwise the counter's flat per-item estimate applies. */
  tokens?: number;
  /** Extra provider fields (e.g. OpenAI `detail`) kept so conversion round-trips. */
  detail?: string;
  /** File name or title when the source gives one (OpenAI `file.filename`, Anthropic document `title`). */
  name?: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  callId: string;
  name: string;
  /** Arguments exactly as the model produced them: usually a JSON object text, kept raw so nothing is lost. */
  args: string;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  /** Name of the tool that produced it; empty when the source format does not say. */
  name: string;
  content: string;
  isError: boolean;
  /** Media returned by the tool (screenshots, images). */
  media?: MediaPart[];
}

export type Part = TextPart | ReasoningPart | MediaPart | ToolCallPart | ToolResultPart;

/** Known kinds; any other string is allowed so integrations can tag their own messages. */
export type MessageKind =
  | 'message'
  | 'tool_result'
  | 'tool_result_archived'
  | 'tool_summary'
  | 'summary'
  | 'reminder'
  | 'system_note'
  | (string & {});

export interface MessageMeta {
  /** Unset means visible. `false` hides the message from the model and from token estimation. */
  agentVisible?: boolean;
  /** Unset means visible. `false` hides the message from the user-facing transcript. */
  userVisible?: boolean;
  kind?: MessageKind;
  /** Epoch milliseconds when the message was recorded, when known. */
  createdAt?: number;
  /** The model that produced an assistant message, when known. */
  model?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

export interface Message {
  id: string;
  /** Position in the session log; assigned by the log on append (converters number from 0). */
  seq: number;
  role: Role;
  parts: Part[];
  meta: MessageMeta;
  /** Provider-reported usage of the call that produced this assistant message. */
  usage?: Usage;
}

/** A message as callers hand it in: id and seq are optional and filled in by ctxkit. */
export type MessageInput = Omit<Message, 'id' | 'seq' | 'meta'> & {
  id?: string;
  seq?: number;
  meta?: MessageMeta;
};

/** A recorded conversation: the system prompt(s) kept apart from the history, as picoclaw requires. */
export interface Transcript {
  /** Leading system/developer instructions, in order. Empty when the source had none. */
  system: string[];
  messages: Message[];
}

export const isAgentVisible = (message: Pick<Message, 'meta'>): boolean =>
  message.meta.agentVisible !== false;
export const isUserVisible = (message: Pick<Message, 'meta'>): boolean => message.meta.userVisible !== false;

export function textOf(message: Pick<Message, 'parts'>): string {
  let out = '';
  for (const part of message.parts) {
    if (part.type === 'text') out = out ? `${out}\n${part.text}` : part.text;
  }
  return out;
}

export function toolCallsOf(message: Pick<Message, 'parts'>): ToolCallPart[] {
  return message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
}

export function toolResultOf(message: Pick<Message, 'parts'>): ToolResultPart | undefined {
  return message.parts.find((part): part is ToolResultPart => part.type === 'tool-result');
}
