/**
 * Server-sent events as the model APIs stream them: `event:` (Anthropic names every event; OpenAI sends
 * none) and one or more `data:` lines, ended by a blank line. Parsed incrementally from the bytes as they
 * arrive, so an answer is relayed as it is produced, and written back out byte-compatible.
 */
import { CtxkitError, type ErrorCode } from '../core/errors/index.ts';

export interface SseEvent {
  /** The `event:` field; absent when the stream sends only data (OpenAI). */
  event?: string;
  /** The `data:` lines joined by `\n` (the SSE rule); `[DONE]` ends an OpenAI stream. */
  data: string;
}

/** Longest event accepted from an upstream: a stream that never ends an event is cut off, not buffered. */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

export class SseEventTooLargeError extends CtxkitError {
  static override readonly code: ErrorCode = 'sse_event_too_large';
  constructor() {
    const message = `an upstream stream event is longer than ${MAX_SSE_EVENT_CHARS} characters`;
    super('sse_event_too_large', message, { limit: MAX_SSE_EVENT_CHARS });
  }
}

/** Splits text chunks into events; feed `push` with decoded text, then call `end`. */
export class SseParser {
  /** The line being received, in the pieces it came in: only new text is ever searched for its end. */
  #partial: string[] = [];
  #partialChars = 0;
  #event: string | undefined;
  #data: string[] = [];
  #dataChars = 0;

  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline < 0) break;
      let line = text.slice(start, newline);
      if (this.#partial.length > 0) {
        line = this.#partial.join('') + line;
        this.#partial = [];
        this.#partialChars = 0;
      }
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = newline + 1;
      const event = this.#line(line);
      if (event) events.push(event);
    }
    if (start < text.length) {
      this.#partial.push(text.slice(start));
      this.#partialChars += text.length - start;
    }
    if (this.#partialChars + this.#dataChars > MAX_SSE_EVENT_CHARS) throw new SseEventTooLargeError();
    return events;
  }

  /** The stream ended: an event without its closing blank line still counts. */
  end(): SseEvent[] {
    const events = this.#partial.length === 0 ? [] : this.push('\n');
    const last = this.#dispatch();
    return last ? [...events, last] : events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') {
      this.#data.push(value);
      this.#dataChars += value.length;
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    if (this.#data.length === 0 && this.#event === undefined) return undefined;
    const event: SseEvent = {
      ...(this.#event !== undefined && { event: this.#event }),
      data: this.#data.join('\n'),
    };
    this.#event = undefined;
    this.#data = [];
    this.#dataChars = 0;
    return event;
  }
}

/** One event as it goes on the wire. */
export function formatSseEvent(event: SseEvent): string {
  const head = event.event !== undefined ? `event: ${event.event}\n` : '';
  return `${head}${event.data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** The event's data as JSON, or undefined when it is not JSON (`[DONE]`, a comment-like payload). */
export function sseJson(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data) as unknown;
  } catch {
    return undefined;
  }
}

/** Reads a byte stream as SSE events, as they complete. */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      yield* parser.push(decoder.decode(next.value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
