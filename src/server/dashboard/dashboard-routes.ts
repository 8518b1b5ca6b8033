/**
 * The dashboard's routes: `GET /` (the page), `GET /api/sessions/:id/calls` (a session's recent model
 * calls), `GET /api/sessions/:id/view` (its current view, marked, and the chart's threshold lines),
 * `GET /api/sessions/:id/log/:seq` (one logged message's whole text), `GET /api/sessions/:id/offloaded`
 * (what was offloaded, read back) and `GET /api/events` (the caller's calls as server-sent events). The
 * API routes are scoped to the caller's owner as the REST API's are (`identifyClient`): another owner's
 * session is a 404, its calls never reach the stream. The page itself holds no data, so it is served to
 * anyone who may reach the proxy; its requests carry the token.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import { CtxkitError, type ErrorCode } from '../../core/errors/index.ts';
import type { ContextManager } from '../../engine/context-manager.ts';
import { parseBlobRef } from '../../store/blob-store-ids.ts';
import { identifyClient } from '../client-identity.ts';
import { staleOverrideRefusal } from '../proxy-responses.ts';
import { storeSessionId } from '../resolve-session.ts';
import { sessionIdSchema } from '../rest/rest-schemas.ts';
import type { CallHistory } from './call-history.ts';
import { renderDashboardPage } from './dashboard-page.ts';
import { buildDashboardView } from './dashboard-view.ts';
import { type ClippedText, clipText, messageText, plainTextBody } from './message-text.ts';
import { sessionThresholds } from './session-thresholds.ts';
import { callEventStream } from './sse-hub.ts';

export interface DashboardDeps {
  /** Where a request that fails unexpectedly is logged. */
  logger?: Logger;
  /** The sessions' manager: the current view of a session, and what it offloaded, are read from it. */
  manager: ContextManager;
  history: CallHistory;
  display: ContextLevelThresholds;
  tokens: readonly string[];
  upstreamKeys?: { openai?: string; anthropic?: string };
}

/** Characters of one plain-text answer (an offloaded blob, a logged message): the rest is left out. */
export const MAX_PLAIN_TEXT_CHARS = 1_000_000;

type ErrorStatus = 400 | 401 | 404 | 500 | 503;

/** A request a dashboard route refuses, with the status it answers. */
class RouteError extends CtxkitError {
  static override readonly code: ErrorCode = 'dashboard_request_refused';
  readonly status: ErrorStatus;

  constructor(status: ErrorStatus, message: string) {
    super('dashboard_request_refused', message, { status });
    this.status = status;
  }
}

const error = (c: Context, status: ErrorStatus, message: string) =>
  c.json({ error: { message } }, status, { 'cache-control': 'no-store' });

const plainText = (c: Context, text: ClippedText) =>
  c.body(plainTextBody(text), 200, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; sandbox",
    // The whole length, when the answer holds only the start of it.
    ...(text.chars > text.text.length && { 'x-ctxkit-clipped': String(text.chars) }),
  });

export function createDashboardRoutes(deps: DashboardDeps): Hono {
  const page = renderDashboardPage(deps.display);
  const ownerOf = (c: Context): { owner: string } | { refused: string } => {
    const headers = c.req.raw.headers;
    const format = headers.has('anthropic-version') ? 'anthropic' : 'openai';
    const identified = identifyClient(headers, format, deps.tokens, deps.upstreamKeys?.[format]);
    return 'refused' in identified ? identified : { owner: identified.identity.owner };
  };

  /** The caller's session named in the path, by its store id; 401, 400 or (another owner's too) 404. */
  const sessionOf = async (c: Context): Promise<{ publicId: string; sessionId: string }> => {
    const who = ownerOf(c);
    if ('refused' in who) throw new RouteError(401, who.refused);
    const publicId = c.req.param('id') ?? '';
    if (!sessionIdSchema.safeParse(publicId).success)
      throw new RouteError(400, 'the session id is not valid');
    const sessionId = storeSessionId(who.owner, publicId);
    // Asked of the store, so a guessed id never loads (or creates) a session in the manager.
    const recent = await deps.manager.store.loadRecent(sessionId);
    // A session made empty over REST exists too (its row is stored).
    if (!recent) throw new RouteError(404, `no session ${JSON.stringify(publicId)}`);
    return { publicId, sessionId };
  };

  const app = new Hono();
  app.onError((thrown, c) => {
    if (RouteError.isInstance(thrown)) return error(c, thrown.status, thrown.message);
    const stale = staleOverrideRefusal(thrown);
    if (stale !== undefined) return c.json({ error: { message: stale } }, 409);
    const { name, message, stack } = thrown;
    deps.logger?.error({ err: { name, message, stack }, path: c.req.path }, 'dashboard request failed');
    return error(c, 500, 'the dashboard could not read the session');
  });

  app.get('/', (c) =>
    c.html(page, 200, { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }),
  );

  app.get('/api/sessions/:id/calls', (c) => {
    const who = ownerOf(c);
    if ('refused' in who) return error(c, 401, who.refused);
    const publicId = c.req.param('id');
    if (!sessionIdSchema.safeParse(publicId).success) return error(c, 400, 'the session id is not valid');
    const calls = deps.history.calls(storeSessionId(who.owner, publicId));
    if (calls === undefined)
      return error(c, 404, `no call recorded for session ${JSON.stringify(publicId)} in this process`);
    return c.json({ id: publicId, calls });
  });

  app.get('/api/sessions/:id/view', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const beforeParam = c.req.query('before');
    if (beforeParam !== undefined && !/^\d{1,15}$/.test(beforeParam))
      throw new RouteError(400, '`before` must be a log seq');
    const before = beforeParam === undefined ? undefined : Number(beforeParam);
    const { log, edits } = await deps.manager.history(sessionId);
    const view = buildDashboardView(log, edits, before === undefined ? {} : { before });
    // The chart's lines with the first page only: a page of earlier rows changes nothing in them.
    const thresholds =
      before === undefined
        ? await sessionThresholds(
            deps.manager,
            sessionId,
            deps.display,
            deps.history.calls(sessionId)?.at(-1)?.window ?? undefined,
          )
        : undefined;
    return c.json({ id: publicId, ...view, ...(thresholds !== undefined && { thresholds }) }, 200, {
      'cache-control': 'no-store',
    });
  });

  app.get('/api/sessions/:id/log/:seq', async (c) => {
    const { sessionId } = await sessionOf(c);
    const seqParam = c.req.param('seq');
    if (!/^\d{1,15}$/.test(seqParam)) throw new RouteError(400, 'the seq is not a log seq');
    const seq = Number(seqParam);
    const { log } = await deps.manager.history(sessionId);
    const message = log.find((logged) => logged.seq === seq);
    if (!message) throw new RouteError(404, `no message ${seq} in the log`);
    return plainText(c, messageText(message, MAX_PLAIN_TEXT_CHARS));
  });

  app.get('/api/sessions/:id/offloaded', async (c) => {
    const { sessionId } = await sessionOf(c);
    const ref = c.req.query('ref');
    if (ref === undefined) throw new RouteError(400, 'give the blob as ?ref=<kind>/<id>');
    try {
      parseBlobRef(ref);
    } catch {
      throw new RouteError(400, 'the ref is not a blob ref (<kind>/<id>)');
    }
    let content: string;
    try {
      content = await deps.manager.readOffloaded(sessionId, ref);
    } catch (thrown) {
      if (CtxkitError.isInstance(thrown) && thrown.code === 'blob_not_found')
        throw new RouteError(404, `the session has no blob ${JSON.stringify(ref.slice(0, 200))}`);
      if (CtxkitError.isInstance(thrown) && thrown.code === 'invalid_blob_id')
        throw new RouteError(400, 'the ref is not a blob ref (<kind>/<id>)');
      throw thrown;
    }
    return plainText(c, clipText(content, MAX_PLAIN_TEXT_CHARS));
  });

  app.get('/api/events', (c) => {
    const who = ownerOf(c);
    if ('refused' in who) return error(c, 401, who.refused);
    const stream = callEventStream(deps.history, storeSessionId(who.owner, ''), c.req.raw.signal);
    return stream ?? error(c, 503, 'too many event streams are open');
  });
  return app;
}
