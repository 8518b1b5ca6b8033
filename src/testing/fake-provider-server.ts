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
 * (format `anthropic`). A request missing what the real API requires, or breaking a rule the real API
 * refuses requests by (Anthropic's tool pairing, empty content, cache breakpoints, thinking signatures), is
 * answered with that API's 400 and its `refusal` recorded (see `strict`). With no scripted reply left, the answer is a 500 naming the request, so a test that forgot
 * one fails loudly. A request with `stream: true` gets its reply as server-sent events: a reply built
 * with the stream builders as it is, a plain successful reply turned into its stream form.
 *
 * The window routes of local servers (Ollama `POST /api/show` and `GET /api/ps`, vLLM `GET /v1/models`,
 * llama.cpp `GET /props`) answer from `servedWindows`, never from the queue; see
 * `fake-provider-server-windows.ts`. Any other path is recorded and answered 404 in the OpenAI error shape.
 *
 * Reply builders shaped like each provider's real bodies are in `fake-provider-server-replies.ts`
 * (successes, and `replyFromMessage` for a ctxkit assistant message), `fake-provider-server-streams.ts`
 * (streamed answers, and errors inside a stream) and `fake-provider-server-errors.ts` (overflow, rate
 * limit, auth… with the providers' statuses and texts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamFormOf } from './fake-provider-server-streams.ts';
import { signedAnthropicReply } from './fake-provider-server-thinking.ts';
import type { HttpReply, RecordedRequest, SseEvent, WireFormat } from './fake-provider-server-types.ts';
import { validateRequest } from './fake-provider-server-validate.ts';
import { type FakeServedWindows, isWindowRoute, windowRouteReply } from './fake-provider-server-windows.ts';
import type { ThinkingSigner } from './thinking-signer.ts';

export type { HttpReply, RecordedRequest, SseEvent, WireFormat } from './fake-provider-server-types.ts';
export type { FakeOllamaModel, FakeServedWindows } from './fake-provider-server-windows.ts';

/** A fixed reply, or one computed from the request (to answer in the request's own format, or echo it). */
export type ScriptedReply = HttpReply | ((request: RecordedRequest) => HttpReply | Promise<HttpReply>);

export interface FakeProviderServerOptions {
  /** Answers requests once the queue is empty; without it they get a 500. */
  fallback?: ScriptedReply;
  /**
   * Reject, as the provider would and without using a scripted reply, requests missing what the API
   * requires: a JSON body, `model`, `messages`; for Anthropic also `max_tokens` and the
   * `anthropic-version` header, and the rules of anthropic-request-rules.ts. Default true; turn off to
   * script replies to malformed requests.
   */
  strict?: boolean;
  /**
   * Sign the thinking of every Anthropic answer with this signer (each scripted signature replaced, each
   * redacted block's data issued afresh) and, when strict, refuse a request whose thinking blocks it did
   * not sign exactly so, as Anthropic refuses them.
   */
  thinkingSigner?: ThinkingSigner;
  /** What the window routes answer (Ollama, vLLM, llama.cpp); unset routes answer 404. */
  servedWindows?: FakeServedWindows;
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
  /** The signer of its Anthropic thinking blocks, when it was given one. */
  readonly thinkingSigner: ThinkingSigner | undefined;
  /** Adds replies, answered one per request in order. */
  enqueue(...replies: ScriptedReply[]): FakeProviderServer;
  setFallback(reply: ScriptedReply | undefined): void;
  /** Replaces what the window routes answer. */
  setServedWindows(windows: FakeServedWindows): void;
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
  let servedWindows = options.servedWindows ?? {};
  let closed: Promise<void> | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      send(res, 500, { error: { message: `fake provider: ${String(error)}`, type: 'server_error' } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0] ?? '/';
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      search: url.slice(path.length),
      format: formatOf(req.method, path),
      headers: headersOf(req),
      body: parseJson(rawBody),
      rawBody,
    };
    requests.push(request);
    res.on('close', () => {
      if (!res.writableFinished && closed === undefined) request.clientAborted = true;
    });
    if (request.format === 'unknown') {
      const windowReply = isWindowRoute(request.method, path)
        ? windowRouteReply(request, servedWindows)
        : undefined;
      if (windowReply) send(res, windowReply.status ?? 200, windowReply.body);
      else send(res, 404, notFound(`${request.method} ${path}`));
      return;
    }
    const invalid =
      options.strict === false ? undefined : validateRequest(request, { signer: options.thinkingSigner });
    if (invalid) {
      request.refusal = refusalOf(invalid.body);
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
    const answer = typeof scripted === 'function' ? await scripted(request) : scripted;
    const signer = request.format === 'anthropic' ? options.thinkingSigner : undefined;
    const reply = streamFormOf(request, signer ? signedAnthropicReply(answer, signer) : answer);
    await wait(reply.delayMs, res);
    if (reply.events !== undefined) await sendEvents(res, reply, (ms) => wait(ms, res));
    else send(res, reply.status ?? 200, reply.body, reply.headers);
  }

  /** Resolves after `ms`, or as soon as the connection closes (the server's or the client's doing). */
  function wait(ms: number | undefined, res: ServerResponse): Promise<void> {
    if (ms === undefined || ms <= 0 || res.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        timers.delete(timer);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timers.add(timer);
      res.once('close', done);
    });
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
    thinkingSigner: options.thinkingSigner,
    enqueue(...replies) {
      queue.push(...replies);
      return fake;
    },
    setFallback(reply) {
      fallback = reply;
    },
    setServedWindows(windows) {
      servedWindows = windows;
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

/** The message of an error body in either format. */
function refusalOf(body: unknown): string {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : '';
  return typeof message === 'string' ? message : '';
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

/** Writes `reply.events` as server-sent events, pausing between them; stops when the client goes away. */
async function sendEvents(
  res: ServerResponse,
  reply: HttpReply,
  wait: (ms: number | undefined) => Promise<void>,
): Promise<void> {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(reply.status ?? 200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...reply.headers,
  });
  const events: SseEvent[] = reply.events ?? [];
  for (const [index, event] of events.entries()) {
    if (index > 0) await wait(reply.eventDelayMs);
    if (res.destroyed) return;
    res.write(`${event.event !== undefined ? `event: ${event.event}\n` : ''}data: ${event.data}\n\n`);
  }
  res.end();
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
