/**
 * The dashboard's routes: `GET /` (the page), `GET /api/sessions/:id/calls` (a session's recent model
 * calls) and `GET /api/events` (the caller's calls as server-sent events). The two API routes are scoped
 * to the caller's owner as the REST API's are (`identifyClient`): another owner's session is a 404, its
 * calls never reach the stream. The page itself holds no data, so it is served to anyone who may reach
 * the proxy; its requests carry the token.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import type { ContextManager } from '../../engine/context-manager.ts';
import { identifyClient } from '../client-identity.ts';
import { storeSessionId } from '../resolve-session.ts';
import { sessionIdSchema } from '../rest/rest-schemas.ts';
import type { CallHistory } from './call-history.ts';
import { renderDashboardPage } from './dashboard-page.ts';
import { callEventStream } from './sse-hub.ts';

export interface DashboardDeps {
  /** The sessions' manager: the current view of a session, and what it offloaded, are read from it. */
  manager: ContextManager;
  history: CallHistory;
  display: ContextLevelThresholds;
  tokens: readonly string[];
  upstreamKeys?: { openai?: string; anthropic?: string };
}

const error = (c: Context, status: 400 | 401 | 404 | 503, message: string) =>
  c.json({ error: { message } }, status);

export function createDashboardRoutes(deps: DashboardDeps): Hono {
  const page = renderDashboardPage(deps.display);
  const ownerOf = (c: Context): { owner: string } | { refused: string } => {
    const headers = c.req.raw.headers;
    const format = headers.has('anthropic-version') ? 'anthropic' : 'openai';
    const identified = identifyClient(headers, format, deps.tokens, deps.upstreamKeys?.[format]);
    return 'refused' in identified ? identified : { owner: identified.identity.owner };
  };

  const app = new Hono();
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

  app.get('/api/events', (c) => {
    const who = ownerOf(c);
    if ('refused' in who) return error(c, 401, who.refused);
    const stream = callEventStream(deps.history, storeSessionId(who.owner, ''), c.req.raw.signal);
    return stream ?? error(c, 503, 'too many event streams are open');
  });
  return app;
}
