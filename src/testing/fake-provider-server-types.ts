/** What the fake provider server records of each request, and what a route answers. */

export type WireFormat = 'openai' | 'anthropic';

export interface RecordedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  format: WireFormat | 'unknown';
  /** Header names are lower-case, as node gives them; repeated headers are joined with ", ". */
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body was not JSON. */
  body: unknown;
  rawBody: string;
}

export interface HttpReply {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string, which is sent as is. */
  body?: unknown;
  /** Wait this long before answering: for timeout and abort tests. */
  delayMs?: number;
}
