/**
 * What the proxy needs from a provider's wire format (OpenAI Chat Completions and Responses, Anthropic
 * Messages): read a client's request into ctxkit's terms, write the prepared view back into the client's
 * own body, read an answer, and relay a stream. One implementation per format; the proxy's flow is shared.
 */
import { CtxkitError, type ErrorCode } from '../../core/errors/index.ts';
import type { Message, MessageInput, ToolCallPart, ToolResultPart } from '../../core/message.ts';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import type { SseEvent } from '../sse.ts';
import type { BodyLayout } from './body-layout.ts';

export type WireFormatName = 'openai' | 'anthropic' | 'responses';

/** Whose keys and credential headers a format's clients use. */
export type CredentialFamily = 'openai' | 'anthropic';

/** A client's request, read. `body` is never modified: upstream bodies are copies of it. */
export interface WireRequest {
  body: Readonly<Record<string, unknown>>;
  model: string;
  stream: boolean;
  /** The system prompt as ctxkit counts it (OpenAI's leading system/developer messages, Anthropic's `system`). */
  system: string;
  tools: ToolDefinition[];
  /** The conversation in ctxkit's terms, without the system prompt. */
  history: MessageInput[];
  /** The content id of each history message, as `sync` assigns them (`assignStableIds`). */
  ids: readonly string[];
  /** `history[j]` came from the client's wire message `wire[origin[j]]`. */
  origin: number[];
  /** The client's wire messages (OpenAI: without the leading system messages). */
  wire: readonly unknown[];
  /** Wire messages before the history that make up the system prompt (OpenAI), sent as they were when it is unchanged. */
  leadingWire: readonly unknown[];
  /** The reply's token limit the client set (`max_tokens`, `max_completion_tokens`). */
  maxOutputTokens?: number;
  /** Names of the tools the client offers its model. */
  clientToolNames: ReadonlySet<string>;
  /**
   * The name of ctxkit's read-back tool in this request, undefined when the client offers a tool of that
   * name itself: then every call of that name is the client's, and ctxkit offers no tool of its own.
   */
  ownTool: string | undefined;
  /**
   * The body's bytes and where its parts lie in them, when known (valid UTF-8, a layout): what ctxkit
   * leaves as the client sent it goes upstream as these bytes.
   */
  raw?: { bytes: Uint8Array; layout: BodyLayout };
}

/** A bad request body: `field` is the path of what is wrong, as the client wrote it (`messages[2].role`). */
export class WireRequestError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_request_body';
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super('invalid_request_body', field ? `${field}: ${message}` : message, { field, reason: message });
    this.field = field;
  }
}

/** What the proxy adds to the client's body on a call. */
export interface UpstreamAdditions {
  /** Offer ctxkit's read-back tool (the request points at offloaded content). */
  readTool: boolean;
  /** Internal read-back rounds so far: each the model's answer and ctxkit's results, appended in order. */
  rounds: readonly ReadBackRound[];
  /** OpenAI: ask for the usage chunk (`stream_options.include_usage`) so the count can be calibrated. */
  includeUsage: boolean;
}

export interface ReadBackRound {
  /** The model's answer, as ctxkit read it (its read-back calls included). */
  reply: MessageInput;
  results: ToolResultPart[];
}

/** An answer, read: the message to log, and the read-back calls the proxy must answer. */
export interface ReadReply {
  /** What the client sees (ctxkit's calls removed), with usage and model. */
  visible: MessageInput;
  /** The whole answer, as the model gave it. */
  full: MessageInput;
  readCalls: ToolCallPart[];
  /** Calls of the client's own tools in the answer. */
  clientCalls: number;
}

/** Relays one upstream stream to the client, one event at a time. */
export interface StreamRelay {
  /** Folds in one upstream event; returns what the client gets now (held-back events are kept). */
  push(event: SseEvent): SseEvent[];
  /** The events held back to the end (the finish and stop events, `[DONE]`), when no round follows. */
  finish(): SseEvent[];
  /** True once an event that the client must see as content has been returned by `push`. */
  readonly started: boolean;
  /** The format's end marker arrived (OpenAI `[DONE]`, Anthropic `message_stop`): nothing after it is read. */
  readonly ended: boolean;
  /** The answer is whole by its format's own markers (OpenAI: a `finish_reason`, then `[DONE]`). */
  readonly complete: boolean;
  /** The answer so far. */
  reply(): ReadReply;
  /** An error event in the stream, as the upstream sent it. */
  readonly error: { event: SseEvent; json: unknown } | undefined;
}

export interface StreamRelayOptions {
  /** Set for a round after the first: continue the message the client is already reading. */
  continuing?: StreamContinuation;
  /** The client asked for the usage chunk itself (OpenAI): pass it through. */
  clientWantsUsage: boolean;
  /** ctxkit's tool name in this request (see `WireRequest.ownTool`). */
  ownTool: string | undefined;
}

/** Where the client's view of the message stands when a further round begins. */
export interface StreamContinuation {
  messageId: string | undefined;
  /** Content blocks (Anthropic), output items (Responses) or tool calls (OpenAI) the client has already seen. */
  blocks: number;
  toolCalls: number;
  /** Events the client has read, for a format that numbers them (Responses' `sequence_number`). */
  events?: number;
  /** The output items the client has read, for a format whose final event repeats them (Responses). */
  output?: readonly unknown[];
}

export interface WireFormat {
  readonly name: WireFormatName;
  readonly credentials: CredentialFamily;
  /** The body member that holds the conversation (`messages`, `input`). */
  readonly listMember: string;
  parseRequest(body: unknown): WireRequest | Promise<WireRequest>;
  /**
   * `parseRequest` of a body whose list begins with `previous`'s first `kept` items, byte for byte: only
   * the items after them are read (and their ids made). Undefined when it cannot be done this way (then
   * `parseRequest`). Its request is the one `parseRequest` gives for the same body.
   */
  parseRequestAfter?(body: unknown, previous: WireRequest, kept: number): Promise<WireRequest | undefined>;
  /**
   * The body to send upstream: the client's own, with the prepared system prompt and messages. What it
   * kept as the client sent it is a `RawJson` (a member, or an item of a top-level list): `serializeBody`
   * writes it as the client's bytes.
   */
  upstreamBody(
    request: WireRequest,
    prepared: { system: string; messages: readonly Message[] },
    additions: UpstreamAdditions,
  ): Record<string, unknown>;
  /**
   * Why a non-streamed answer (status 200, its body parsed, undefined when it did not parse) is not a whole
   * answer by the format's own markers; undefined when it is one.
   */
  incompleteAnswer(json: unknown): string | undefined;
  /** What ends a whole stream of this format, in words (for the error of a stream cut off before it). */
  readonly streamEnd: string;
  /** A non-streamed answer (status 200), read; throws when it is not one. */
  readAnswer(json: unknown, ownTool: string | undefined): ReadReply;
  /** The answer the client gets: the upstream's body without ctxkit's calls. */
  clientAnswer(json: unknown, ownTool: string | undefined): unknown;
  createRelay(options: StreamRelayOptions): StreamRelay;
  /** Where the client's view stands after a relay (for the next round). */
  continuation(relay: StreamRelay, previous: StreamContinuation | undefined): StreamContinuation;
  /** The error body of this format; `field` is the request field at fault, when there is one. */
  errorBody(status: number, message: string, field?: string): unknown;
  /** An error as an event inside a stream that has already begun. */
  errorEvent(status: number, message: string): SseEvent;
  /** Label for errors built from upstream answers (`openai-compatible`, `anthropic`). */
  readonly provider: string;
}
