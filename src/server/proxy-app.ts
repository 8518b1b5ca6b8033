/**
 * The proxy's HTTP surface (Hono): `POST /v1/chat/completions` (OpenAI Chat), `POST /v1/responses` (OpenAI
 * Responses) and `POST /v1/messages` (Anthropic) manage context; a Responses request ctxkit cannot manage
 * (its history kept on the upstream, or its answer given later) is passed through, and says so; any other
 * `/v1/…` request (the model list, Anthropic's token counting) goes to the upstream as it came; `GET /healthz` says the server is up and its session store answers;
 * `GET /metrics` serves the counters in Prometheus' text format (with tokens configured, to a client
 * presenting one). What the routes reaching an upstream answer, and every line logged, is redacted of
 * every key the server holds or the request carried (`redact-relay.ts`).
 */

import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { createCachePrefixMemory } from '../core/cache/cache-prefix-memory.ts';
import { BoundedMap } from './bounded-map.ts';
import { identifyClient } from './client-identity.ts';
import { ClientRequestTokens } from './client-request-tokens.ts';
import { createMemoryConversationIndex } from './conversation/conversation-index.ts';
import { CallHistory } from './dashboard/call-history.ts';
import { createDashboardRoutes } from './dashboard/dashboard-routes.ts';
import { checkHealth } from './health-check.ts';
import { DEFAULT_MAX_LOADED_SESSIONS, LoadedSessions, MAX_PENDING_REPLIES } from './loaded-sessions.ts';
import { browserRefusal } from './loopback.ts';
import { METRICS_CONTENT_TYPE, ProxyMetrics } from './metrics.ts';
import { proxyModelCall } from './proxy-call.ts';
import type { PendingReply, ProxyCallDeps } from './proxy-call-deps.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_READ_BACK_ROUNDS,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  type ProxyOptions,
  SESSION_HEADER,
} from './proxy-options.ts';
import { errorResponse, RESPONSE_HEADERS, refusalOf } from './proxy-responses.ts';
import { BodyTooLargeError, readBoundedBytes } from './read-body.ts';
import { RelayRedaction } from './redact-relay.ts';
import { rawHeadersOf, repeatedHeader, repeatedHeaderRefusal } from './repeated-headers.ts';
import { RequestBodies } from './request-bodies.ts';
import { SessionResolver, storeSessionId } from './resolve-session.ts';
import { createRestRoutes } from './rest/rest-routes.ts';
import { sessionIdSchema } from './rest/rest-schemas.ts';
import { createMemorySessionLocks, type SessionLocks } from './session-locks/session-locks.ts';
import {
  forwardedHeaders,
  responseHeaders,
  UpstreamError,
  UpstreamUnreachableError,
} from './upstream-http.ts';
import { upstreamTimeoutIn, withUpstreamTimeout } from './upstream-timeout.ts';
import { UpstreamWindows } from './upstream-window.ts';
import { anthropicWire } from './wire/anthropic-wire.ts';
import { openAIWire } from './wire/openai-wire.ts';
import { responsesWire, unmanagedField } from './wire/responses-wire.ts';
import type { WireFormat } from './wire/wire-format.ts';

export function createProxyApp(given: ProxyOptions): Hono {
  // The keys the server holds (filled in for clients that send none) and its tokens; each request adds
  // the client's own.
  const redaction = new RelayRedaction([
    given.upstreamKeys?.openai,
    given.upstreamKeys?.anthropic,
    ...(given.tokens ?? []),
  ]);
  const options = given.logger ? { ...given, logger: redaction.logger(given.logger) } : given;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tokens = options.tokens ?? [];
  // Every upstream request (model calls, passed-through ones, window questions) gives up on a silent upstream.
  const fetcher = withUpstreamTimeout(
    options.fetch ?? fetch,
    options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
  );
  const openAIBase = options.upstream.replace(/\/+$/, '');
  const anthropicRoot = (options.upstreamAnthropic ?? options.upstream)
    .replace(/\/+$/, '')
    .replace(/\/v1$/, '');
  const pendingReplies = new BoundedMap<string, PendingReply>(MAX_PENDING_REPLIES);
  const metrics = new ProxyMetrics();
  options.manager.on((event) => {
    if (event.type === 'compaction-finished') metrics.compaction(event.layer, event.error !== undefined);
  });
  const sessions = options.sessions ?? options.manager.store;
  const maxLoaded = options.maxLoadedSessions ?? DEFAULT_MAX_LOADED_SESSIONS;
  const calls = new CallHistory(maxLoaded);
  const locks = options.sessionLocks ?? createMemorySessionLocks();
  const bodies = new RequestBodies(options.keptBodyBytes);
  const deps: ProxyCallDeps = {
    manager: options.manager,
    bodies,
    resolver: new SessionResolver(options.conversations ?? createMemoryConversationIndex(), locks),
    windows: new UpstreamWindows({
      fetch: fetcher,
      detect: options.detectWindow !== false,
      ...(options.contextWindow !== undefined && { fallback: options.contextWindow }),
    }),
    tokens: new ClientRequestTokens(),
    fetch: fetcher,
    logger: options.logger,
    maxReadBackRounds: options.maxReadBackRounds ?? DEFAULT_MAX_READ_BACK_ROUNDS,
    upstream: (format) =>
      format.name === 'anthropic'
        ? { base: anthropicRoot, url: `${anthropicRoot}/v1/messages` }
        : {
            base: openAIBase,
            url: `${openAIBase}/${format.name === 'responses' ? 'responses' : 'chat/completions'}`,
          },
    pendingReplies,
    withoutStreamOptions: new Set(),
    loaded: new LoadedSessions(options.manager, maxLoaded),
    metrics,
    calls,
    ...(options.promptCache !== false && { promptCacheMemory: createCachePrefixMemory() }),
  };

  const app = new Hono();
  // Every request is counted, by route (from a fixed set) and status class.
  app.use('*', async (c, next) => {
    await next();
    metrics.request(c.req.path, c.res.status);
  });
  // Around every handler below (the refusal log reads the response as made), so it redacts the response as
  // finally made, an error's too.
  for (const path of ['/v1/*', '/chat/completions', '/responses']) app.use(path, redaction.middleware);
  app.get('/healthz', async (c) => {
    const health = await checkHealth(sessions);
    if (!health.ok) options.logger?.warn({ error: health.error }, 'health check failed');
    return c.json(health, health.ok ? 200 : 503);
  });
  // Every refusal is logged, as every model call is.
  app.use('*', async (c, next) => {
    await next();
    const reason = refusalOf(c.res);
    if (reason !== undefined)
      options.logger?.info({ status: c.res.status, path: c.req.path, reason }, 'request refused');
  });

  // Without tokens the proxy trusts whoever reaches it, so only this machine may: a web page the user
  // visits (a cross-site request, or DNS rebinding with the page's own host name) is refused before it
  // can spend the keys of the server's environment.
  if (tokens.length === 0)
    app.use('*', async (c, next) => {
      const refusal = browserRefusal(c.req.raw.headers, options.allowedHosts ?? []);
      if (refusal === undefined) return next();
      return errorResponse(formatOfRequest(c.req.path, c.req.raw.headers), 403, refusal);
    });

  // A session id or token sent twice is refused, not read as the one value Fetch joins them into.
  app.use('*', async (c, next) => {
    const repeated = repeatedHeader(rawHeadersOf(c.env));
    if (repeated === undefined) return next();
    const format = formatOfRequest(c.req.path, c.req.raw.headers);
    return errorResponse(format, 400, repeatedHeaderRefusal(repeated));
  });

  // Open to whoever may reach a token-less proxy (this machine); with tokens, to a client presenting one.
  app.get('/metrics', (c) => {
    if (tokens.length > 0) {
      const identified = identifyClient(c.req.raw.headers, 'openai', tokens, undefined);
      if ('refused' in identified) return errorResponse(openAIWire, 401, identified.refused);
    }
    return c.body(metrics.render(), 200, { 'content-type': METRICS_CONTENT_TYPE });
  });

  const modelRoute = (format: WireFormat) => async (c: Context) => {
    const headers = c.req.raw.headers;
    const identified = identifyClient(
      headers,
      format.credentials,
      tokens,
      options.upstreamKeys?.[format.credentials],
    );
    if ('refused' in identified) return errorResponse(format, 401, identified.refused);
    let bytes: Uint8Array;
    try {
      bytes = await readBoundedBytes(c.req.raw, maxBodyBytes);
    } catch (error) {
      if (BodyTooLargeError.isInstance(error)) return errorResponse(format, 413, error.message);
      throw error;
    }
    // Parsed in slices (a 32 MiB body held the thread a second in JSON.parse and the depth check), and
    // only from where it differs from a body this client sent before.
    const bodyKey = bodies.keyOf(
      identified.identity.owner,
      format,
      headers.get(SESSION_HEADER) ?? undefined,
      bytes,
    );
    const read = await bodies.read(bytes, bodyKey, format);
    if (!read.ok) return errorResponse(format, read.status, read.message, read.field);
    const { body } = read;
    const unmanaged = format === responsesWire ? unmanagedField(body) : undefined;
    if (unmanaged !== undefined) {
      options.logger?.info(
        { format: format.name, model: (body as { model?: unknown }).model, field: unmanaged },
        'model call passed through unmanaged: the upstream keeps its history or answers later',
      );
      const url = new URL(c.req.url);
      const answer = await forward(
        c.req.raw,
        `${openAIBase}/responses${url.search}`,
        identified.identity.upstreamAuth,
        bytes,
      );
      metrics.upstreamCall(format.name, 'forwarded', answer.status);
      answer.headers.set(RESPONSE_HEADERS.unmanaged, unmanaged);
      return answer;
    }
    return proxyModelCall(deps, {
      format,
      search: new URL(c.req.url).search,
      body,
      read,
      bodyKey,
      headers,
      identity: identified.identity,
      signal: c.req.raw.signal,
    });
  };
  app.post('/v1/chat/completions', modelRoute(openAIWire));
  // A client whose base URL was set without `/v1` (as some tools document it) reaches the same route.
  app.post('/chat/completions', modelRoute(openAIWire));
  app.post('/v1/messages', modelRoute(anthropicWire));
  app.post('/v1/responses', modelRoute(responsesWire));
  app.post('/responses', modelRoute(responsesWire));
  // A REST or dashboard write on a session holds it as a model call does, so neither sees the other
  // half-done; in a fleet a read first reads the session again if another instance changed it. Before
  // the routes it guards, which answer without calling on.
  const holdSession = sessionHolder(options, locks, tokens, maxBodyBytes);
  // `/:id/*` matches `/:id` itself too: one registration, or the second would wait for the first.
  app.use('/api/sessions/:id/*', holdSession);
  // The dashboard (`GET /`) and its call history and event stream, behind the same token check.
  app.route(
    '/',
    createDashboardRoutes({
      manager: options.manager,
      history: calls,
      ...(options.logger && { logger: options.logger }),
      display: options.manager.policy.display,
      tokens,
      ...(options.upstreamKeys && { upstreamKeys: options.upstreamKeys }),
    }),
  );
  // The REST API over the sessions (`/api/…`, `/openapi.json`), behind the same token check.
  app.route(
    '/',
    createRestRoutes({
      manager: options.manager,
      ...(options.sessions && { sessions: options.sessions }),
      ...(options.trace && { trace: options.trace }),
      tokens,
      ...(options.upstreamKeys && { upstreamKeys: options.upstreamKeys }),
      maxBodyBytes,
      ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
      ...(options.logger && { logger: options.logger }),
    }),
  );

  // Everything else under /v1 reaches the upstream untouched (after the same token check): Anthropic's
  // when the path or the headers say the client speaks Anthropic's API, else the OpenAI-compatible one.
  app.all('/v1/*', async (c) => {
    const url = new URL(c.req.url);
    const headers = c.req.raw.headers;
    const format = formatOfRequest(url.pathname, headers);
    const identified = identifyClient(
      headers,
      format.credentials,
      tokens,
      options.upstreamKeys?.[format.credentials],
    );
    if ('refused' in identified) return errorResponse(format, 401, identified.refused);
    let body: Uint8Array | undefined;
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      try {
        body = await readBoundedBytes(c.req.raw, maxBodyBytes);
      } catch (error) {
        if (BodyTooLargeError.isInstance(error)) return errorResponse(format, 413, error.message);
        throw error;
      }
    }
    const target =
      format === anthropicWire
        ? `${anthropicRoot}${url.pathname}${url.search}`
        : `${openAIBase}${url.pathname.replace(/^\/v1/, '')}${url.search}`;
    const answer = await forward(c.req.raw, target, identified.identity.upstreamAuth, body);
    metrics.upstreamCall(format.name, 'forwarded', answer.status);
    return answer;
  });

  /** A request sent to the upstream as it came (its credentials as the client's identity says). */
  async function forward(
    request: Request,
    target: string,
    upstreamAuth: Record<string, string>,
    body: Uint8Array | undefined,
  ): Promise<Response> {
    let upstream: Response;
    try {
      upstream = await fetcher(target, {
        method: request.method,
        headers: forwardedHeaders(request.headers, upstreamAuth, false),
        ...(body !== undefined && { body }),
        signal: request.signal,
      });
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw new UpstreamUnreachableError(target, error);
    }
    return new Response(upstream.body, {
      status: upstream.status,
      headers: responseHeaders(upstream.headers),
    });
  }

  app.onError((error, c) => {
    const format = formatOfRequest(c.req.path, c.req.raw.headers);
    if (UpstreamError.isInstance(error)) {
      options.logger?.warn({ err: { message: error.message } }, 'upstream failed');
      // An upstream that went silent is a gateway timeout, whatever the failure it surfaced as.
      const timeout = upstreamTimeoutIn(error);
      if (timeout) return errorResponse(format, 504, timeout.message);
      return errorResponse(
        format,
        502,
        error.message.startsWith('ctxkit proxy') ? error.message : `ctxkit proxy: ${error.message}`,
      );
    }
    options.logger?.error(
      { err: { name: error.name, message: error.message, stack: error.stack } },
      'request failed',
    );
    return errorResponse(format, 500, 'ctxkit proxy: internal error (see the server log)');
  });
  // A route that does not exist (a wrong method or path under /api) answers in JSON as every route does.
  app.notFound((c) =>
    c.json({ error: { message: `no route ${c.req.method} ${c.req.path.slice(0, MAX_PATH_SHOWN)}` } }, 404),
  );
  return app;
}

/**
 * The format a request's errors are answered in: Anthropic's for its paths or a client that sends its
 * version header, the Responses API's for its paths, else OpenAI Chat's.
 */
function formatOfRequest(path: string, headers: Headers): WireFormat {
  if (path.startsWith('/v1/messages') || headers.has('anthropic-version')) return anthropicWire;
  if (/^(?:\/v1)?\/responses(?:\/|$)/.test(path)) return responsesWire;
  return openAIWire;
}

/** The longest part of an unknown path a 404 repeats. */
const MAX_PATH_SHOWN = 200;

/** Routes that read what only this process keeps, or what never changes: they never wait for a session. */
const UNHELD_READS = /^\/api\/sessions\/[^/]+\/(calls|offloaded)$/;

/**
 * Middleware holding the session a REST route names for the route's length. A request the route will
 * refuse (no identity, a bad id) passes unheld: the route answers it.
 */
function sessionHolder(
  options: ProxyOptions,
  locks: SessionLocks,
  tokens: readonly string[],
  maxBodyBytes: number,
): MiddlewareHandler {
  return async (c, next) => {
    const read = c.req.method === 'GET' || c.req.method === 'HEAD';
    if ((read && !locks.shared) || (read && UNHELD_READS.test(c.req.path))) return next();
    const headers = c.req.raw.headers;
    const format = headers.has('anthropic-version') ? 'anthropic' : 'openai';
    const identified = identifyClient(headers, format, tokens, options.upstreamKeys?.[format]);
    const publicId = c.req.param('id');
    if ('refused' in identified || !sessionIdSchema.safeParse(publicId).success) return next();
    if (read) {
      // A read in a fleet waits for no one (a dashboard watching a session stays live while a model call
      // is on it): the session as last written, read again if another instance wrote it since.
      await options.manager.refresh(storeSessionId(identified.identity.owner, publicId ?? ''));
      return next();
    }
    if (c.req.raw.body !== null) {
      // The body is read whole before the session is taken: a client sending it slowly holds nothing.
      let bytes: Uint8Array;
      try {
        bytes = await readBoundedBytes(c.req.raw, maxBodyBytes);
      } catch (error) {
        if (BodyTooLargeError.isInstance(error)) return c.json({ error: { message: error.message } }, 413);
        throw error;
      }
      c.req.raw = new Request(c.req.raw.url, {
        method: c.req.method,
        headers: c.req.raw.headers,
        body: bytes,
        signal: c.req.raw.signal,
      });
    }
    const sessionId = storeSessionId(identified.identity.owner, publicId ?? '');
    const release = await locks.acquire(sessionId);
    try {
      // Another instance may have changed the session since this one last read it.
      if (locks.shared) await options.manager.refresh(sessionId);
      await next();
    } finally {
      await release();
    }
  };
}
