/**
 * One model call through the proxy: find the session, `sync` the client's history into it, `prepare`
 * against the model's real window, forward the client's own body with the prepared messages, and answer
 * with the upstream's answer (streamed as it arrives).
 *
 * - ctxkit's read-back tool is offered when the request points at offloaded content; a call of it is
 *   answered here from the session's own store and the model called again (at most `maxReadBackRounds`
 *   times), so the client sees one answer.
 * - An overflow, as a status or as an error event before any content, goes through the session's
 *   policy at each overflow in a row (`retryAfterOverflow`) and is sent again, before the client has seen
 *   a byte, until ctxkit can send nothing smaller; then the upstream's error reaches the client, as any
 *   other upstream error does, status and body unchanged.
 * - The reply enters the session with the client's next request, as the client holds it; its usage
 *   (which calibrates the count per model) is kept for it until then.
 */
import type { Logger } from 'pino';
import { readOffloadedTool } from '../agent/read-offloaded-tool.ts';
import type { ContextEvent } from '../core/events.ts';
import type { MessageInput } from '../core/message.ts';
import { UNBOUNDED_WINDOW } from '../engine/call-context.ts';
import type { PrepareRequest, PrepareResult } from '../engine/context-manager.ts';
import { reserveDoesNotFitWindow } from '../providers/reserve-does-not-fit.ts';
import { compactionEventsOf } from './dashboard/call-history.ts';
import type { LoadedSessions } from './loaded-sessions.ts';
import type { PendingReply, ProxyCallDeps, ProxyCallInput } from './proxy-call-deps.ts';
import { type CallState, jsonExchange, passThrough } from './proxy-exchange.ts';
import { SESSION_HEADER } from './proxy-options.ts';
import {
  ctxkitHeaders,
  errorResponse,
  inputRefusal,
  RESPONSE_HEADERS,
  requestRefusal,
  staleOverrideRefusal,
  TOO_DEEP,
} from './proxy-responses.ts';
import { streamExchange } from './proxy-stream.ts';
import { readWireRequest } from './request-bodies.ts';
import { type ResolvedSession, SessionRequestError } from './resolve-session.ts';
import { forwardedHeaders } from './upstream-http.ts';
import type { CallWindow } from './upstream-window.ts';
import type { WireRequest } from './wire/wire-format.ts';
import { WireRequestError } from './wire/wire-format.ts';

export async function proxyModelCall(deps: ProxyCallDeps, input: ProxyCallInput): Promise<Response> {
  const { format } = input;
  const { manager } = deps;
  const started = performance.now();
  let request: WireRequest;
  try {
    request = await readWireRequest(format, input.read);
    deps.bodies.keep(input.bodyKey, input.read, request);
    // With no read-back rounds allowed, ctxkit offers no tool of its own (its calls would reach the client).
    if (deps.maxReadBackRounds === 0) request = { ...request, ownTool: undefined };
  } catch (error) {
    if (WireRequestError.isInstance(error)) return errorResponse(format, 400, error.message, error.field);
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
      input.read.continues?.previous.ids,
    );
  } catch (error) {
    if (SessionRequestError.isInstance(error)) return errorResponse(format, 400, error.message);
    throw error;
  }
  session = keptLoaded(deps.loaded, session, deps.logger);
  let handedOff = false;
  try {
    const sessionId = session.sessionId;
    // In a fleet, another instance may have advanced the session since this one last held it.
    if (deps.resolver.shared) await manager.refresh(sessionId);
    const events: ContextEvent[] = [];
    try {
      const synced = await manager.sync(sessionId, withReplyUsage(request, deps.pendingReplies, sessionId), {
        contentIds: request.ids,
      });
      events.push(...synced.events);
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
      // The session's own policy: its override may set the window, the reply reserve or the window rule.
      window = await deps.windows.windowFor(windowQuestion, await manager.windowPolicyOf(sessionId));
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
    events.push(...prepared.events);
    const clientTokens = await deps.tokens.countInSlices(
      request.system,
      request.tools,
      request.history,
      request.ids,
    );
    const headersMemo = new WeakMap<PrepareResult, Record<string, string>>();
    // What each prepared request sends, counted in slices before it goes (a history of many thousand
    // messages would otherwise be counted at once when its headers are made).
    const sentMemo = new WeakMap<PrepareResult, number>();
    const toolsSent = (result: PrepareResult) =>
      result.pointers.length > 0 && request.ownTool !== undefined
        ? [...request.tools, readOffloadedTool]
        : request.tools;

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
      events,
      headersOf: (result) => {
        const known = headersMemo.get(result);
        if (known) return known;
        const sent =
          sentMemo.get(result) ??
          deps.tokens.countSent(result.system, toolsSent(result), result.messages, request);
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
          // is due, is ready by the next call. Not in a fleet: it would run after the session is freed,
          // beside another instance's call, and the next call may be served elsewhere (prepare compacts
          // what must be compacted, holding the session).
          if (!deps.resolver.shared && !reply.parts.some((part) => part.type === 'tool-call'))
            // The reply enters the log with the client's next request: the proxy says the turn ended.
            manager.afterTurn(sessionId, { turnEnded: true }).catch((error: unknown) => {
              deps.logger?.warn({ err: { message: (error as Error).message } }, 'afterTurn failed');
            });
        }
        await session.release();
      },
    };
    for (let attempt = 0; ; attempt++) {
      if (!sentMemo.has(prepared))
        sentMemo.set(
          prepared,
          await deps.tokens.countSentInSlices(
            prepared.system,
            toolsSent(prepared),
            prepared.messages,
            request,
          ),
        );
      const exchange = request.stream
        ? await streamExchange(call, prepared)
        : await jsonExchange(call, prepared);
      if ('response' in exchange) {
        log(call, exchange.response.status, prepared);
        // Set after the log: a relay never handed back leaves the session to the finally below.
        handedOff = exchange.relaying === true;
        if (attempt > 0 && exchange.response.ok) deps.metrics?.overflowRecovered(format.name);
        return exchange.response;
      }
      const retry = await retryAfterOverflow(call, prepareRequest, exchange.overflow);
      if (!retry) {
        log(call, exchange.answer.status, prepared);
        return passThrough(exchange.answer, call.headersOf(prepared));
      }
      // The call that overflowed is logged by nothing else.
      deps.metrics?.upstreamCall(format.name, 'model', exchange.answer.status);
      prepared = retry;
    }
  } catch (error) {
    const stale = staleOverrideRefusal(error);
    if (stale !== undefined) return errorResponse(format, 409, stale);
    throw error;
  } finally {
    if (!handedOff) await session.release();
  }
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

/**
 * After an overflow: what the session's policy says at this overflow in a row (the manager's
 * `retryAfterOverflow`: the window the upstream named, then the emergency path, a reset), and the
 * request prepared again; undefined when ctxkit cannot send anything smaller (the upstream's error then
 * reaches the client). A window the upstream named is learned for every session on this upstream and
 * model, and the call's window and reply reserve are chosen again for it as for any call. The engine
 * holds every retry to being smaller than the request that overflowed, fitted to the upstream's own
 * count of it when the error gave one ("50012 tokens > 16000").
 */
async function retryAfterOverflow(
  call: CallState,
  prepareRequest: PrepareRequest,
  overflow: unknown,
): Promise<PrepareResult | undefined> {
  const { manager, windows } = call.deps;
  const sessionId = call.session.sessionId;
  const next = await manager.retryAfterOverflow(sessionId, overflow, async ({ adoptedWindow, policy }) => {
    if (adoptedWindow === undefined) return prepareRequest;
    windows.learn(call.upstream.base, call.request.model, adoptedWindow);
    try {
      const window = await windows.windowFor(call.windowQuestion, policy);
      // This call's request from now on, for any later retry too.
      prepareRequest.contextWindow = window.contextWindow;
      prepareRequest.maxOutputTokens = window.maxOutputTokens;
      return prepareRequest;
    } catch (error) {
      // The client's own reply reserve does not fit the real window: the overflow stands.
      if (reserveDoesNotFitWindow(error)) return undefined;
      throw error;
    }
  });
  call.events.push(...next.events);
  return next.retry;
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
    tokens: prepared.stats.tokens,
    compactions: compactionEventsOf(call.events),
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
