/**
 * A real local HTTP server that speaks the OpenAI Chat Completions and Anthropic Messages wire formats,
 * for testing model-backed code without a model: clients, the model-backed summarizer, the agent, the
 * proxy. It listens on 127.0.0.1 on a free port, records every request it receives, and answers from a
 * queue of scripted replies (then from an optional fallback).
 *
 *   const server = await startFakeProviderServer();
 *   server.enqueue(openAIReply({ content: 'hi' }), replyFromMessage(assistantMessage));
 *   const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, fetch });
 *   … expect(server.requests[0]?.body).toEqual({...});
 *   await server.close();
 *
 * Routes: `POST /v1/chat/completions` and `/chat/completions` (format `openai`), `POST /v1/messages`
 * (format `anthropic`). Any other path is recorded and answered 404 in the OpenAI error shape. A request
 * missing what the real API requires is answered with that API's 400 (see `strict`). With no scripted
 * reply left, the answer is a 500 naming the request, so a test that forgot one fails loudly.
 *
 * Reply builders shaped like each provider's real bodies are in `fake-provider-server-replies.ts`
 * (successes, and `replyFromMessage` for a ctxkit assistant message) and `fake-provider-server-errors.ts`
 * (overflow, rate limit, auth… with the providers' statuses and texts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpReply, RecordedRequest, WireFormat } from './fake-provider-server-types.ts';
import { validateRequest } from './fake-provider-server-validate.ts';

export type { HttpReply, RecordedRequest, WireFormat } from './fake-provider-server-types.ts';

/** A fixed reply, or one computed from the request (to answer in the request's own format, or echo it). */
export type ScriptedReply = HttpReply | ((request: RecordedRequest) => HttpReply | Promise<HttpReply>);

export interface FakeProviderServerOptions {
  /** Answers requests once the queue is empty; without it they get a 500. */
  fallback?: ScriptedReply;
  /**
   * Reject, as the provider would and without using a scripted reply, requests missing what the API
   * requires: a JSON body, `model`, `messages`; for Anthropic also `max_tokens` and the
   * `anthropic-version` header. Default true; turn off to script replies to malformed requests.
   */
  strict?: boolean;
}

export interface FakeProviderServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `baseUrl` for an OpenAI-compatible client: `{url}/v1`. */
  readonly openAIBaseUrl: string;
  /** `baseUrl` for an Anthropic client: `{url}`. */
  readonly anthropicBaseUrl: string;
  /** Every request received, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** Adds replies, answered one per request in order. */
  enqueue(...replies: ScriptedReply[]): FakeProviderServer;
  setFallback(reply: ScriptedReply | undefined): void;
  /** Scripted replies not yet used. */
  pending(): number;
  /** Stops listening, drops open connections and pending delays. Safe to call twice. */
  close(): Promise<void>;
}

/** Largest request body read (a test sending more is doing something else). */
export const FAKE_SERVER_MAX_BODY_BYTES = 64 * 1024 * 1024;

export async function startFakeProviderServer(
  options: FakeProviderServerOptions = {},
): Promise<FakeProviderServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let fallback = options.fallback;
  let closed: Promise<void> | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, 500, { error: { message: `fake provider: ${String(error)}`, type: 'server_error' } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      format: formatOf(req.method, path),
      headers: headersOf(req),
      body: parseJson(rawBody),
      rawBody,
    };
    requests.push(request);
    if (request.format === 'unknown') {
      send(res, 404, notFound(`${request.method} ${path}`));
      return;
    }
    const invalid = options.strict === false ? undefined : validateRequest(request);
    if (invalid) {
      send(res, invalid.status ?? 400, invalid.body);
      return;
    }
    const scripted = queue.shift() ?? fallback;
    if (scripted === undefined) {
      send(res, 500, {
        error: {
          message: `fake provider: no scripted reply for ${request.method} ${path}`,
          type: 'server_error',
        },
      });
      return;
    }
    const reply = typeof scripted === 'function' ? await scripted(request) : scripted;
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, reply.delayMs);
        timers.add(timer);
      });
    }
    send(res, reply.status ?? 200, reply.body, reply.headers);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the fake never answers anything but the test process.
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const fake: FakeProviderServer = {
    url,
    openAIBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    enqueue(...replies) {
      queue.push(...replies);
      return fake;
    },
    setFallback(reply) {
      fallback = reply;
    },
    pending: () => queue.length,
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        // Keep-alive and delayed responses would hold close() open until they time out.
        server.closeAllConnections();
      });
      return closed;
    },
  };
  return fake;
}

function formatOf(method: string | undefined, path: string): WireFormat | 'unknown' {
  if (method !== 'POST') return 'unknown';
  if (path === '/v1/chat/completions' || path === '/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  return 'unknown';
}

function notFound(what: string): unknown {
  return {
    error: {
      message: `Unknown request URL: ${what}.`,
      type: 'invalid_request_error',
      param: null,
      code: 'unknown_url',
    },
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.writableEnded || res.destroyed) return;
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > FAKE_SERVER_MAX_BODY_BYTES)
      throw new Error(`request body over ${FAKE_SERVER_MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
