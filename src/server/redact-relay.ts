/**
 * What an upstream sends reaches the client without a key in it. An upstream may quote the key it was
 * sent (`Incorrect API key provided: sk-…`), and that key may not be the client's: a client without one
 * is served with the server's `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, a client holding a token with the
 * configured key. So every response of a route that relays an upstream (`/v1/…`, `/chat/completions`) is
 * redacted, headers and body, streamed or not, of every key the request involved: the client's own as it
 * sent it, the server's keys and its tokens. Done once around the routes, not in each way of answering,
 * so no way of answering can forget it; ctxkit's own messages quoting an upstream pass through it too.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { TOKEN_HEADER } from './proxy-options.ts';
import { createRedactor, type Redactor } from './redact-keys.ts';

/** Responses made from a text: their body is redacted as that text, not read again as a stream. */
const bodyTexts = new WeakMap<Response, string>();

/** A response whose body is `text`, which the redaction takes as it is (see `bodyTexts`). */
export function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(text, init);
  bodyTexts.set(response, text);
  return response;
}

/** Headers a client's key or token arrives in (`api-key`: Azure OpenAI's). */
const CLIENT_KEY_HEADERS = ['authorization', 'x-api-key', 'api-key', TOKEN_HEADER] as const;

/** Redactors kept for the clients' own keys: a client sends the same key request after request. */
const CACHED_CLIENT_REDACTORS = 64;

/** Every key or token the client sent, as it sent it (the credential of `Authorization: <scheme> …`). */
export function clientSecrets(headers: Headers): string[] {
  const secrets: string[] = [];
  for (const name of CLIENT_KEY_HEADERS) {
    const value = headers.get(name)?.trim();
    if (!value) continue;
    const credential = name === 'authorization' ? /^\S+\s+(.+)$/.exec(value)?.[1]?.trim() : undefined;
    secrets.push(credential ?? value);
  }
  return secrets;
}

/**
 * The redaction of one server: the redactor of each request (the server's secrets, and the client's own
 * when it sent any), the middleware that applies it, and a logger that applies it to every line logged
 * while a request is served (so a line quoting an upstream's error carries no key either).
 */
export class RelayRedaction {
  readonly server: Redactor;
  readonly #secrets: readonly (string | undefined)[];
  /** By the client's secrets, oldest first: building a redactor is work in proportion to its keys. */
  readonly #byClient = new Map<string, Redactor>();
  /** The redactor of the request being served, wherever its work is (its handlers, its stream's pulls). */
  readonly #current = new AsyncLocalStorage<Redactor>();

  /** `secrets`: the keys the server holds (and fills in for clients) and its tokens. */
  constructor(secrets: readonly (string | undefined)[]) {
    this.#secrets = secrets;
    this.server = createRedactor(secrets);
  }

  of(headers: Headers): Redactor {
    const client = clientSecrets(headers).filter((secret) => !this.#secrets.includes(secret));
    if (client.length === 0) return this.server;
    const key = client.join('\0');
    let redactor = this.#byClient.get(key);
    if (redactor === undefined) {
      redactor = createRedactor([...this.#secrets, ...client]);
      if (this.#byClient.size >= CACHED_CLIENT_REDACTORS) {
        const oldest = this.#byClient.keys().next().value;
        if (oldest !== undefined) this.#byClient.delete(oldest);
      }
    } else this.#byClient.delete(key);
    this.#byClient.set(key, redactor);
    return redactor;
  }

  /** Middleware redacting the response of the routes it is on, and what is logged while they run. */
  readonly middleware: MiddlewareHandler = async (c, next) => {
    const redactor = this.of(c.req.raw.headers);
    await this.#current.run(redactor, next);
    const response = c.res;
    const redacted = this.#redactResponse(response, redactor);
    if (redacted === response) return;
    // Hono copies the headers of the response it holds onto one assigned after it: cleared first, so the
    // redacted headers are the ones that stay.
    c.res = undefined;
    c.res = redacted;
  };

  /** The logger with every string it logs redacted (its messages are constants; what a line carries is not). */
  logger(logger: Logger): Logger {
    return logger.child(
      {},
      {
        formatters: {
          log: (object) => {
            const redactor = this.#current.getStore() ?? this.server;
            return redactor.active ? (redactValue(object, redactor, 0) as object) : object;
          },
        },
      },
    );
  }

  /** The response with its headers and its body (as it streams) redacted. */
  #redactResponse(response: Response, redactor: Redactor): Response {
    if (!redactor.active) return response;
    const text = bodyTexts.get(response);
    // A response made from a text holding no key, and whose headers hold none: the same response.
    if (text !== undefined && !response.bodyUsed && redactor.text(text) === text) {
      let clean = true;
      response.headers.forEach((value, name) => {
        if (clean && (redactor.text(name) !== name || redactor.text(value) !== value)) clean = false;
      });
      if (clean) return response;
    }
    const headers = new Headers();
    response.headers.forEach((value, name) => {
      // A header whose name quotes a key is dropped: `[redacted]` is no header name.
      if (redactor.text(name) !== name) return;
      headers.append(name, redactor.text(value));
    });
    // The body's length changes with each key replaced.
    headers.delete('content-length');
    if (text !== undefined && !response.bodyUsed)
      return textResponse(redactor.text(text), {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    return new Response(response.body === null ? null : this.#redactBody(response.body, redactor), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }

  #redactBody(body: ReadableStream<Uint8Array>, redactor: Redactor): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const stream = redactor.stream();
    const pull = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          const tail = stream.end();
          if (tail.length > 0) controller.enqueue(tail);
          controller.close();
          return;
        }
        const out = stream.push(next.value);
        // A chunk held back whole (it may begin a key) is no write of its own: the next one is read.
        if (out.length > 0) {
          controller.enqueue(out);
          return;
        }
      }
    };
    return new ReadableStream<Uint8Array>({
      // A stream's answer is produced as it is read (read-back rounds, the reply's end), after the handler
      // returned: what that logs is still the request's.
      pull: (controller) => this.#current.run(redactor, () => pull(controller)),
      cancel: (reason) => reader.cancel(reason),
    });
  }
}

/** How deep a logged object is walked (the lines logged here are shallow; a cycle must end). */
const MAX_LOGGED_DEPTH = 8;

function redactValue(value: unknown, redactor: Redactor, depth: number): unknown {
  if (typeof value === 'string') return redactor.text(value);
  if (typeof value !== 'object' || value === null) return value;
  // Not walked further, so not logged: it could hold a key.
  if (depth >= MAX_LOGGED_DEPTH) return '[nested too deeply]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactor, depth + 1));
  if (value instanceof Error)
    return {
      type: value.name,
      message: redactor.text(value.message),
      ...(value.stack !== undefined && { stack: redactor.text(value.stack) }),
    };
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactValue(item, redactor, depth + 1)]),
  );
}
