/** What the fake provider server records of each request, and what a route answers. */

export type WireFormat = 'openai' | 'anthropic';

export interface RecordedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string with its `?` (`?beta=true`), or empty. */
  search?: string;
  format: WireFormat | 'unknown';
  /** Header names are lower-case, as node gives them; repeated headers are joined with ", ". */
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body was not JSON. */
  body: unknown;
  rawBody: string;
  /** The error message the server refused the request with, checking it as the provider would. */
  refusal?: string;
  /**
   * Set to true when the client closed the connection before the reply was complete (an abort in the
   * middle of a stream or of a delay); stays unset otherwise.
   */
  clientAborted?: boolean;
}

/** One server-sent event: an optional `event:` name and the `data:` text (JSON, or `[DONE]`). */
export interface SseEvent {
  event?: string;
  data: string;
}

export interface HttpReply {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string, which is sent as is. Ignored when `events` is set. */
  body?: unknown;
  /**
   * Sent instead of `body`, in order, as a `text/event-stream`: a streamed answer. The reply builders in
   * fake-provider-server-streams.ts make these shaped like each provider's real stream.
   */
  events?: SseEvent[];
  /** Wait this long before answering: for timeout and abort tests. */
  delayMs?: number;
  /** Wait this long between two events of `events`: for tests that abort in the middle of a stream. */
  eventDelayMs?: number;
}
