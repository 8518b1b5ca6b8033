/**
 * One model call through the proxy: find the session, `sync` the client's history into it, `prepare`
 * against the model's real window, forward the client's own body with the prepared messages, and answer
 * with the upstream's answer (streamed as it arrives).
 *
 * - ctxkit's read-back tool is offered when the request points at offloaded content; a call of it is
 *   answered here from the session's own store and the model called again (at most `maxReadBackRounds`
 *   times), so the client sees one answer.
 * - An overflow, as a status or as an error event before any content, is recovered (`recover`),
 *   prepared again and retried once before the client has seen a byte; any other upstream error reaches
 *   the client unchanged, status and body.
 * - The reply enters the session with the client's next request, as the client holds it; its usage
 *   (which calibrates the count per model) is kept for it until then.
 */
import type { Logger } from 'pino';
import { readBackRoom, readOffloadedResultPart, readOffloadedTool } from '../agent/read-offloaded-tool.ts';
import {
  ContextBudgetError,
  InvalidInputError,
  InvalidMessageError,
  InvalidPolicyError,
  UnknownModelError,
} from '../core/errors/index.ts';
import type { MessageInput, ToolCallPart, ToolResultPart, Usage } from '../core/message.ts';
import { UNBOUNDED_WINDOW } from '../engine/call-context.ts';
import type { ContextManager, PrepareRequest, PrepareResult } from '../engine/context-manager.ts';
import { isContextOverflow, parseOverflowTokens } from '../providers/is-context-overflow.ts';
import { modelCallErrorFrom } from '../providers/read-provider-error.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { ClientRequestTokens } from './client-request-tokens.ts';
import type { CallHistory } from './dashboard/call-history.ts';
import type { LoadedSessions } from './loaded-sessions.ts';
import type { ProxyMetrics } from './metrics.ts';
import { SESSION_HEADER } from './proxy-options.ts';
import { type ResolvedSession, SessionRequestError, type SessionResolver } from './resolve-session.ts';
import { formatSseEvent, readSseEvents, type SseEvent, SseEventTooLargeError } from './sse.ts';
import {
  forwardedHeaders,
  readUpstreamText,
  responseHeaders,
  UpstreamError,
  UpstreamUnreachableError,
} from './upstream-http.ts';
import type { CallWindow, UpstreamWindows, WindowQuestion } from './upstream-window.ts';
import type {
  ReadBackRound,
  ReadReply,
  StreamContinuation,
  StreamRelay,
  WireFormat,
  WireRequest,
} from './wire/wire-format.ts';
import { WireRequestError } from './wire/wire-format.ts';

export interface ProxyCallDeps {
  manager: ContextManager;
  resolver: SessionResolver;
  windows: UpstreamWindows;
  tokens: ClientRequestTokens;
  fetch: typeof fetch;
  logger: Logger | undefined;
  maxReadBackRounds: number;
  /** The upstream's base URL for a format, and the URL of its model-call endpoint. */
  upstream(format: WireFormat): { base: string; url: string };
  /** Per session, the last reply the client got: its usage is logged with the client's copy of it. */
  pendingReplies: Map<string, PendingReply>;
  /** Upstreams (base URLs) that refused `stream_options`: ctxkit no longer adds it for them. */
  withoutStreamOptions: Set<string>;
  loaded: LoadedSessions;
  /** The counters `/metrics` serves. */
  metrics?: ProxyMetrics;
  /** The recent calls per session the dashboard shows. */
  calls?: CallHistory;
}

export interface ProxyCallInput {
  format: WireFormat;
  /** The request's query string (`?api-version=…`), passed to the upstream as it came. */
  search: string;
  body: unknown;
  headers: Headers;
  identity: ClientIdentity;
  signal: AbortSignal;
}

/** Response headers that say what ctxkit did. */
export const RESPONSE_HEADERS = {
  session: SESSION_HEADER,
  inputTokens: 'x-ctxkit-input-tokens',
  tokensSaved: 'x-ctxkit-tokens-saved',
  edits: 'x-ctxkit-edits',
  contextWindow: 'x-ctxkit-context-window',
} as const;

interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** A response (`relaying`: a stream whose end releases the session), or an overflow to recover from. */
type Exchange = { response: Response; relaying?: boolean } | { overflow: unknown; answer: UpstreamAnswer };

export async function proxyModelCall(deps: ProxyCallDeps, input: ProxyCallInput): Promise<Response> {
  const { format } = input;
  const { manager } = deps;
  const started = performance.now();
  let request: WireRequest;
  try {
    request = format.parseRequest(input.body);
    // With no read-back rounds allowed, ctxkit offers no tool of its own (its calls would reach the client).
    if (deps.maxReadBackRounds === 0) request = { ...request, ownTool: undefined };
  } catch (error) {
    if (error instanceof WireRequestError) return errorResponse(format, 400, error.message, error.field);
    if (error instanceof RangeError) return errorResponse(format, 400, TOO_DEEP);
    throw error;
  }
  let session: ResolvedSession;
  try {
    session = await deps.resolver.resolve(
      input.identity.owner,
      input.headers.get(SESSION_HEADER) ?? undefined,
      `${format.name}\n${request.system}`,
      request.ids,
    );
  } catch (error) {
    if (error instanceof SessionRequestError) return errorResponse(format, 400, error.message);
    throw error;
  }
  session = keptLoaded(deps.loaded, session, deps.logger);
  let handedOff = false;
  try {
    const sessionId = session.sessionId;
    try {
      await manager.sync(sessionId, withReplyUsage(request, deps.pendingReplies, sessionId), {
        contentIds: request.ids,
      });
    } catch (error) {
      const refusal = inputRefusal(error);
      if (refusal !== undefined) return errorResponse(format, 400, refusal);
      throw error;
    }

    const upstream = deps.upstream(format);
    const upstreamHeaders = forwardedHeaders(input.headers, input.identity.upstreamAuth);
    const windowQuestion = {
      baseUrl: upstream.base,
      model: request.model,
      headers: input.identity.upstreamAuth,
      ...(request.maxOutputTokens !== undefined && { maxOutputTokens: request.maxOutputTokens }),
    };
    let window: CallWindow;
    try {
      window = await deps.windows.windowFor(windowQuestion, manager.policy.budget);
    } catch (error) {
      const refusal = requestRefusal(error, request);
      if (refusal !== undefined) return errorResponse(format, 400, refusal);
      throw error;
    }
    if (window.unknown) {
      // Nobody knows this model's window: the request goes as it is until an overflow names the limit
      // (then that is the window), rather than under a guessed window that would cut it for nothing.
      deps.windows.warnUnknown(request.model, () =>
        deps.logger?.warn(
          { model: request.model },
          'the window of this model is unknown (the upstream does not say, no profile has it): requests go unmanaged until an overflow names the limit; start ctxkit serve with --window N',
        ),
      );
    }
    const prepareRequest: PrepareRequest = {
      system: request.system,
      tools: request.ownTool === undefined ? request.tools : [...request.tools, readOffloadedTool],
      model: request.model,
      // Both always said: a session's earlier request never decides this one's window or reserve.
      contextWindow: window.contextWindow,
      maxOutputTokens: window.maxOutputTokens,
    };
    let prepared: PrepareResult;
    try {
      prepared = await manager.prepare(sessionId, prepareRequest);
    } catch (error) {
      const refusal = requestRefusal(error, request) ?? inputRefusal(error);
      if (refusal !== undefined) return errorResponse(format, 400, refusal);
      throw error;
    }
    const clientTokens = deps.tokens.count(request.system, request.tools, request.history, request.ids);
    const headersMemo = new WeakMap<PrepareResult, Record<string, string>>();

    const call: CallState = {
      deps,
      input,
      request,
      session,
      upstream,
      upstreamHeaders,
      windowQuestion,
      started,
      rounds: 0,
      headersOf: (result) => {
        const known = headersMemo.get(result);
        if (known) return known;
        const readTool = result.pointers.length > 0 && request.ownTool !== undefined;
        const sent = deps.tokens.countSent(
          result.system,
          readTool ? [...request.tools, readOffloadedTool] : request.tools,
          result.messages,
          request,
        );
        const headers = ctxkitHeaders(session.publicId, result, clientTokens, sent);
        headersMemo.set(result, headers);
        return headers;
      },
      finish: async (reply) => {
        // The reply enters the log with the client's next request, as the client holds it (clients drop
        // reasoning, re-render text, renumber nothing alike): logged now, a client that sends it back
        // otherwise would fork the session's history. Its usage waits for it.
        if (reply) {
          deps.pendingReplies.set(sessionId, {
            at: request.history.length,
            afterId: request.ids.at(-1),
            ...(reply.usage && { usage: reply.usage }),
            ...(reply.meta?.model !== undefined && { model: reply.meta.model }),
          });
          // The turn is over when the model answered without tool calls: a background summary, if one
          // is due, is ready by the next call.
          if (!reply.parts.some((part) => part.type === 'tool-call'))
            manager.afterTurn(sessionId).catch((error: unknown) => {
              deps.logger?.warn({ err: { message: (error as Error).message } }, 'afterTurn failed');
            });
        }
        await session.release();
      },
    };
    for (let attempt = 0; ; attempt++) {
      const exchange = request.stream
        ? await streamExchange(call, prepared)
        : await jsonExchange(call, prepared);
      if ('response' in exchange) {
        handedOff = exchange.relaying === true;
        log(call, exchange.response.status, prepared);
        if (attempt > 0 && exchange.response.ok) deps.metrics?.overflowRecovered(format.name);
        return exchange.response;
      }
      const retry =
        attempt === 0 ? await recoverFrom(call, prepareRequest, exchange.overflow, prepared) : undefined;
      if (!retry) {
        log(call, exchange.answer.status, prepared);
        return passThrough(exchange.answer, call.headersOf(prepared));
      }
      // The call that overflowed is logged by nothing else.
      deps.metrics?.upstreamCall(format.name, 'model', exchange.answer.status);
      prepared = retry;
    }
  } finally {
    if (!handedOff) await session.release();
  }
}

/** The last reply of a session, waiting for the client's copy of it. */
export interface PendingReply {
  /** Its index in the client's next history: the length of the history it answered. */
  at: number;
  /** The content id of the message before it, to check the next history continues this one. */
  afterId: string | undefined;
  usage?: Usage;
  model?: string;
}

/** The history with the pending reply's usage on the client's copy of it, when the history continues. */
function withReplyUsage(
  request: WireRequest,
  pending: Map<string, PendingReply>,
  sessionId: string,
): MessageInput[] {
  const reply = pending.get(sessionId);
  pending.delete(sessionId);
  const message = reply ? request.history[reply.at] : undefined;
  if (!reply?.usage || message?.role !== 'assistant' || request.ids[reply.at - 1] !== reply.afterId)
    return request.history;
  const history = [...request.history];
  history[reply.at] = {
    ...message,
    usage: reply.usage,
    meta: { ...message.meta, ...(reply.model !== undefined && { model: reply.model }) },
  };
  return history;
}

/** The session counted as in use until it is released. */
function keptLoaded(
  loaded: LoadedSessions,
  session: ResolvedSession,
  logger: Logger | undefined,
): ResolvedSession {
  loaded.enter(session.sessionId);
  let left = false;
  return {
    ...session,
    release: async () => {
      try {
        await session.release();
      } catch (error) {
        // The answer the client paid for is not failed over the index: the conversation is recognized
        // again from its next request on (or starts a new session).
        logger?.warn(
          { session: session.publicId, err: { message: (error as Error).message } },
          'recording the conversation failed',
        );
      } finally {
        if (!left) {
          left = true;
          loaded.leave(session.sessionId);
        }
      }
    },
  };
}

interface CallState {
  deps: ProxyCallDeps;
  input: ProxyCallInput;
  request: WireRequest;
  session: ResolvedSession;
  upstream: { base: string; url: string };
  upstreamHeaders: Headers;
  /** What the call's window is asked with (again after an overflow names the limit). */
  windowQuestion: WindowQuestion;
  started: number;
  rounds: number;
  headersOf(prepared: PrepareResult): Record<string, string>;
  /** Keeps the usage of the reply the client got (for its copy in the next request) and frees the session. */
  finish(reply: MessageInput | undefined): Promise<void>;
}

/** After an overflow: the request prepared again, or undefined when ctxkit cannot make it differ. */
async function recoverFrom(
  call: CallState,
  prepareRequest: PrepareRequest,
  overflow: unknown,
  prepared: PrepareResult,
): Promise<PrepareResult | undefined> {
  const { manager, windows } = call.deps;
  const { limit } = parseOverflowTokens(overflow);
  if (limit !== undefined && limit > 0 && limit < prepared.stats.contextWindow) {
    // The overflow named the real window: the request is prepared for it as any request is (clearing,
    // offloading, summarizing, every pointer readable), not cut by the emergency path.
    windows.learn(call.upstream.base, call.request.model, limit);
    try {
      const window = await windows.windowFor(call.windowQuestion, call.deps.manager.policy.budget);
      prepareRequest.contextWindow = window.contextWindow;
      prepareRequest.maxOutputTokens = window.maxOutputTokens;
    } catch {
      // The client's own reply reserve does not fit the real window: the overflow stands.
      return undefined;
    }
  } else {
    const { retry } = await manager.recover(call.session.sessionId, overflow);
    if (!retry) return undefined;
  }
  try {
    return await manager.prepare(call.session.sessionId, prepareRequest);
  } catch (error) {
    if (ContextBudgetError.isInstance(error)) return undefined;
    throw error;
  }
}

async function send(call: CallState, body: Record<string, unknown>): Promise<Response> {
  try {
    return await call.deps.fetch(`${call.upstream.url}${call.input.search}`, {
      method: 'POST',
      headers: call.upstreamHeaders,
      body: JSON.stringify(body),
      signal: call.input.signal,
    });
  } catch (error) {
    if (call.input.signal.aborted) throw error;
    throw new UpstreamUnreachableError(call.upstream.url, error);
  }
}

async function jsonExchange(call: CallState, prepared: PrepareResult): Promise<Exchange> {
  const { format } = call.input;
  const { maxReadBackRounds } = call.deps;
  const rounds: ReadBackRound[] = [];
  let firstUsage: Usage | undefined;
  for (let round = 0; ; round++) {
    const body = format.upstreamBody(call.request, prepared, {
      readTool: prepared.pointers.length > 0 || rounds.length > 0,
      rounds,
      includeUsage: false,
    });
    const response = await send(call, body);
    const answer: UpstreamAnswer = {
      status: response.status,
      headers: response.headers,
      body: await readUpstreamText(response, call.input.signal),
    };
    const json = parseJson(answer.body);
    if (!response.ok) {
      const error = modelCallErrorFrom(format.provider, response.status, answer.body, json, response.headers);
      if (round === 0 && isContextOverflow(error)) return { overflow: error, answer };
      return { response: passThrough(answer, call.headersOf(prepared)) };
    }
    let reply: ReadReply;
    try {
      reply = format.readAnswer(json, call.request.ownTool);
    } catch {
      // Not an answer ctxkit can read: the client gets it as it came, and nothing is logged.
      return { response: passThrough(answer, call.headersOf(prepared)) };
    }
    firstUsage ??= reply.full.usage;
    if (reply.readCalls.length > 0 && reply.clientCalls === 0 && round < maxReadBackRounds) {
      rounds.push({ reply: reply.full, results: await readBacks(call, prepared, reply.readCalls) });
      call.rounds = rounds.length;
      call.deps.metrics?.readBackRound(format.name);
      continue;
    }
    await call.finish(withFirstUsage(reply.visible, firstUsage));
    const out = format.clientAnswer(json, call.request.ownTool);
    return {
      response: new Response(JSON.stringify(out), {
        status: response.status,
        headers: {
          ...responseHeaders(response.headers),
          'content-type': 'application/json',
          ...call.headersOf(prepared),
        },
      }),
    };
  }
}

async function streamExchange(call: CallState, prepared: PrepareResult): Promise<Exchange> {
  const { format } = call.input;
  const clientWantsUsage = clientAskedForUsage(call.request);
  const bodyOf = () =>
    format.upstreamBody(call.request, prepared, {
      readTool: prepared.pointers.length > 0,
      rounds: [],
      includeUsage: usageAsked(call),
    });
  let response = await send(call, bodyOf());
  let answer: UpstreamAnswer | undefined;
  if (!response.ok || !isEventStream(response)) {
    answer = await readAnswer(call, response);
    if (refusesStreamOptions(call, answer)) {
      // An OpenAI-compatible server that does not take `stream_options`: asked again without it, and
      // never again (the usage is then what its stream carries, if anything).
      call.deps.withoutStreamOptions.add(call.upstream.base);
      response = await send(call, bodyOf());
      answer = response.ok && isEventStream(response) ? undefined : await readAnswer(call, response);
    }
  }
  if (answer !== undefined) {
    if (!response.ok) {
      const error = modelCallErrorFrom(
        format.provider,
        response.status,
        answer.body,
        parseJson(answer.body),
        response.headers,
      );
      if (isContextOverflow(error)) return { overflow: error, answer };
    }
    return { response: passThrough(answer, call.headersOf(prepared)) };
  }
  const relay = format.createRelay({ clientWantsUsage, ownTool: call.request.ownTool });
  const events = readSseEvents(response.body as ReadableStream<Uint8Array>);
  const head: SseEvent[] = [];
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) break;
      head.push(...relay.push(next.value));
      if (relay.error || relay.started) break;
    }
  } catch (error) {
    await events.return(undefined);
    if (call.input.signal.aborted) throw error;
    // Nothing has reached the client yet: it gets a 502 in its own format.
    throw new UpstreamError(upstreamBrokeOff(error), { cause: error });
  }
  if (relay.error) {
    const error = streamErrorOf(format, relay.error);
    if (isContextOverflow(error)) {
      await events.return(undefined);
      const answer: UpstreamAnswer = {
        status: response.status,
        headers: response.headers,
        body: [...head, relay.error.event].map(formatSseEvent).join(''),
      };
      return { overflow: error, answer };
    }
  }
  const rest = relayRest(call, prepared, { relay, events, head, clientWantsUsage });
  return {
    relaying: true,
    response: new Response(byteStream(rest), {
      status: 200,
      headers: {
        ...responseHeaders(response.headers),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        ...call.headersOf(prepared),
      },
    }),
  };
}

/** The rest of a committed stream: the first round's events, then any read-back rounds, then the end. */
async function* relayRest(
  call: CallState,
  prepared: PrepareResult,
  first: {
    relay: StreamRelay;
    events: AsyncGenerator<SseEvent>;
    head: SseEvent[];
    clientWantsUsage: boolean;
  },
): AsyncGenerator<string> {
  const { format } = call.input;
  const { maxReadBackRounds } = call.deps;
  let finished = false;
  let { relay, events } = first;
  /** Ends the stream with an error event, the session freed first so the client's retry finds it free. */
  const failed = async (event: SseEvent): Promise<string> => {
    await events.return(undefined);
    await call.session.release();
    return formatSseEvent(event);
  };
  try {
    for (const event of first.head) yield formatSseEvent(event);
    const rounds: ReadBackRound[] = [];
    let continuation: StreamContinuation | undefined;
    let firstUsage: Usage | undefined;
    for (let round = 0; ; round++) {
      try {
        if (!relay.error) {
          for await (const event of events) {
            for (const out of relay.push(event)) yield formatSseEvent(out);
            if (relay.error) break;
          }
        }
      } catch (error) {
        if (call.input.signal.aborted) throw error;
        // The upstream broke off after content reached the client: the client reads an error event.
        yield await failed(format.errorEvent(502, upstreamBrokeOff(error)));
        return;
      }
      if (relay.error) {
        // After content has reached the client, an upstream error ends the stream as the upstream said.
        yield await failed(relay.error.event);
        return;
      }
      const reply = relay.reply();
      firstUsage ??= reply.full.usage;
      if (reply.readCalls.length > 0 && reply.clientCalls === 0 && round < maxReadBackRounds) {
        rounds.push({ reply: reply.full, results: await readBacks(call, prepared, reply.readCalls) });
        call.rounds = rounds.length;
        call.deps.metrics?.readBackRound(format.name);
        continuation = format.continuation(relay, continuation);
        const body = format.upstreamBody(call.request, prepared, {
          readTool: true,
          rounds,
          includeUsage: usageAsked(call),
        });
        let response: Response;
        try {
          response = await send(call, body);
          if (!response.ok || !isEventStream(response)) {
            const text = await readUpstreamText(response, call.input.signal);
            const error = modelCallErrorFrom(
              format.provider,
              response.status,
              text,
              parseJson(text),
              response.headers,
            );
            yield await failed(format.errorEvent(response.ok ? 502 : response.status, error.message));
            return;
          }
        } catch (error) {
          if (call.input.signal.aborted) throw error;
          yield await failed(format.errorEvent(502, upstreamBrokeOff(error)));
          return;
        }
        relay = format.createRelay({
          continuing: continuation,
          clientWantsUsage: first.clientWantsUsage,
          ownTool: call.request.ownTool,
        });
        events = readSseEvents(response.body as ReadableStream<Uint8Array>);
        continue;
      }
      // The reply's usage is kept before the client reads the end, so its next request finds it.
      await call.finish(withFirstUsage(reply.visible, firstUsage));
      finished = true;
      for (const event of relay.finish()) yield formatSseEvent(event);
      return;
    }
  } finally {
    await events.return(undefined);
    if (!finished) await call.session.release();
  }
}

/** What the client reads when the upstream failed mid-answer (never the upstream's raw error text). */
function upstreamBrokeOff(error: unknown): string {
  if (error instanceof UpstreamError)
    return error.message.startsWith('ctxkit proxy') ? error.message : `ctxkit proxy: ${error.message}`;
  if (error instanceof SseEventTooLargeError) return `ctxkit proxy: ${error.message}`;
  const code = (error as { cause?: { code?: unknown } })?.cause?.code;
  return `ctxkit proxy: the upstream broke off its answer${typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : ''}`;
}

/** The read-back calls answered from the session's own store, each sized to the room the context has. */
async function readBacks(
  call: CallState,
  prepared: PrepareResult,
  calls: readonly ToolCallPart[],
): Promise<ToolResultPart[]> {
  const results: ToolResultPart[] = [];
  const maxChars = readBackRoom(prepared.stats);
  for (const readCall of calls) {
    const result = await readOffloadedResultPart(call.deps.manager, call.session.sessionId, readCall, {
      maxChars,
    });
    call.deps.logger?.info(
      {
        session: call.session.publicId,
        call: readCall.callId,
        chars: result.content.length,
        error: result.isError,
      },
      'read-back answered by the proxy',
    );
    results.push(result);
  }
  return results;
}

function byteStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

function streamErrorOf(format: WireFormat, error: { event: SseEvent; json: unknown }): unknown {
  return modelCallErrorFrom(format.provider, undefined, error.event.data, error.json);
}

async function readAnswer(call: CallState, response: Response): Promise<UpstreamAnswer> {
  return {
    status: response.status,
    headers: response.headers,
    body: await readUpstreamText(response, call.input.signal),
  };
}

/** Whether ctxkit asks this upstream for the usage of a stream (`stream_options.include_usage`). */
function usageAsked(call: CallState): boolean {
  return !call.deps.withoutStreamOptions.has(call.upstream.base);
}

/** A 400 that names `stream_options`, to a request where ctxkit added it and the client did not. */
function refusesStreamOptions(call: CallState, answer: UpstreamAnswer): boolean {
  return (
    call.input.format.name === 'openai' &&
    answer.status === 400 &&
    usageAsked(call) &&
    call.request.body.stream_options === undefined &&
    /stream_options/i.test(answer.body)
  );
}

function clientAskedForUsage(request: WireRequest): boolean {
  const options = request.body.stream_options;
  return (
    typeof options === 'object' &&
    options !== null &&
    (options as { include_usage?: unknown }).include_usage === true
  );
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('text/event-stream') && response.body !== null;
}

/** The reply's usage: its input as the first round saw it (the request ctxkit prepared), its own output. */
function withFirstUsage(reply: MessageInput, first: Usage | undefined): MessageInput {
  if (!first || !reply.usage || first === reply.usage) return reply;
  return { ...reply, usage: { ...first, outputTokens: reply.usage.outputTokens } };
}

/**
 * `x-ctxkit-input-tokens` and `-tokens-saved` count the request sent and the client's own with one counter
 * (exact o200k), so a request forwarded unchanged saves 0.
 */
function ctxkitHeaders(
  publicId: string,
  prepared: PrepareResult,
  clientTokens: number,
  sent: number,
): Record<string, string> {
  return {
    [RESPONSE_HEADERS.session]: publicId,
    [RESPONSE_HEADERS.inputTokens]: String(sent),
    [RESPONSE_HEADERS.tokensSaved]: String(Math.max(0, clientTokens - sent)),
    [RESPONSE_HEADERS.edits]: String(prepared.stats.edits),
    ...(prepared.stats.contextWindow !== UNBOUNDED_WINDOW && {
      [RESPONSE_HEADERS.contextWindow]: String(prepared.stats.contextWindow),
    }),
  };
}

/** What a client sends nested past the stack's depth. */
const TOO_DEEP = 'the request is nested too deeply to read';

/** Input ctxkit refused (a message or a field it cannot take), as the client reads it. */
function inputRefusal(error: unknown): string | undefined {
  if (error instanceof RangeError) return TOO_DEEP;
  if (InvalidInputError.isInstance(error) || InvalidMessageError.isInstance(error))
    return (error as Error).message;
  return undefined;
}

/** Why ctxkit cannot prepare this request (its reply reserve does not fit the window…), as the client reads it. */
function requestRefusal(error: unknown, request: WireRequest): string | undefined {
  if (
    !ContextBudgetError.isInstance(error) &&
    !InvalidPolicyError.isInstance(error) &&
    !UnknownModelError.isInstance(error)
  )
    return undefined;
  const message = (error as Error).message.replace(/^budget\.maxOutputTokens/, 'max_tokens');
  return `ctxkit cannot fit this request to model ${JSON.stringify(request.model)}: ${message}`;
}

function passThrough(answer: UpstreamAnswer, headers: Record<string, string>): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: { ...responseHeaders(answer.headers), ...headers },
  });
}

/** Why each refusal was made, for the request log (a refusal is logged like a call). */
const refusals = new WeakMap<Response, string>();

export function errorResponse(format: WireFormat, status: number, message: string, field?: string): Response {
  const response = new Response(JSON.stringify(format.errorBody(status, message, field)), {
    status,
    headers: { 'content-type': 'application/json' },
  });
  refusals.set(response, message);
  return response;
}

/** The reason a response built by `errorResponse` gives, for the log. */
export function refusalOf(response: Response): string | undefined {
  return refusals.get(response);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function log(call: CallState, status: number, prepared: PrepareResult): void {
  const headers = call.headersOf(prepared);
  call.deps.metrics?.modelCall(
    call.input.format.name,
    status,
    Number(headers[RESPONSE_HEADERS.inputTokens]),
    Number(headers[RESPONSE_HEADERS.tokensSaved]),
  );
  call.deps.calls?.record(call.session.sessionId, call.session.publicId, {
    at: Date.now(),
    sent: Number(headers[RESPONSE_HEADERS.inputTokens]),
    saved: Number(headers[RESPONSE_HEADERS.tokensSaved]),
    window: prepared.stats.contextWindow === UNBOUNDED_WINDOW ? null : prepared.stats.contextWindow,
    pressure: prepared.stats.pressure,
    edits: prepared.stats.edits,
    status,
    model: call.request.model,
  });
  call.deps.logger?.info(
    {
      format: call.input.format.name,
      session: call.session.publicId,
      origin: call.session.origin,
      ...(call.session.forkedFrom !== undefined && { forkedFrom: call.session.forkedFrom }),
      model: call.request.model,
      stream: call.request.stream,
      status,
      sent: Number(headers[RESPONSE_HEADERS.inputTokens]),
      saved: Number(headers[RESPONSE_HEADERS.tokensSaved]),
      edits: prepared.stats.edits,
      readBackRounds: call.rounds,
      ms: Math.round(performance.now() - call.started),
    },
    'model call',
  );
}
