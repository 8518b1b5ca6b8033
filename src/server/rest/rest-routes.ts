/**
 * The REST API over the proxy's sessions (`/api/sessions…`, JSON in and out, `GET /openapi.json`). Every
 * route is scoped to the caller's owner, found as the model routes find it (`identifyClient`): a session
 * is stored as `owner:publicId`, so another token's session is a 404 whatever id is guessed.
 *
 * A session created empty (`POST /api/sessions`) is stored at once, with an empty policy override (a
 * store creates no session for an append of nothing): every instance sharing the store finds it.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { CtxkitError } from '../../core/errors/index.ts';
import { isAgentVisible, type Message, type MessageInput } from '../../core/message.ts';
import { contentId } from '../../core/stable-id.ts';
import { projectView } from '../../core/view/project-view.ts';
import type { ContextManager } from '../../engine/context-manager.ts';
import type { BlobStore } from '../../store/blob-store.ts';
import { validateBlobName } from '../../store/blob-store-ids.ts';
import type { SessionStore } from '../../store/session-store.ts';
import type { TraceStore } from '../../store/trace-store.ts';
import { identifyClient } from '../client-identity.ts';
import { ClientRequestTokens } from '../client-request-tokens.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../proxy-options.ts';
import { BodyTooLargeError, MAX_JSON_DEPTH, pathPastDepth, readBoundedText } from '../read-body.ts';
import { storeSessionId } from '../resolve-session.ts';
import { errorBody, RestError } from './rest-errors.ts';
import { buildOpenApiDocument } from './rest-openapi.ts';
import {
  appendBody,
  compactBody,
  countBody,
  createSessionBody,
  issuesOf,
  policyPatchBody,
  sessionIdSchema,
} from './rest-schemas.ts';

export interface RestDeps {
  manager: ContextManager;
  /** Default: the manager's store. */
  sessions?: SessionStore;
  /** Default: the manager's blob store. */
  blobs?: BlobStore;
  /** The trace the manager writes to: its events are exported, and deleted with the session. */
  trace?: TraceStore;
  /** As the proxy's: the tokens a client must present (empty: the client's key identifies it). */
  tokens?: readonly string[];
  upstreamKeys?: { openai?: string; anthropic?: string };
  maxBodyBytes?: number;
  /**
   * The proxy's fallback window (`--window`): used for a session no model request has given a window
   * yet (one made through this API), when the policy names none.
   */
  contextWindow?: number;
  logger?: Logger;
}

export function createRestRoutes(deps: RestDeps): Hono {
  const { manager } = deps;
  const sessions = deps.sessions ?? manager.store;
  const blobs = deps.blobs ?? manager.blobs;
  const tokens = deps.tokens ?? [];
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const counts = new ClientRequestTokens();
  /** Store id → creation time, for sessions created with no message yet. */

  const ownerOf = (c: Context): string => {
    const headers = c.req.raw.headers;
    const format = headers.has('anthropic-version') ? 'anthropic' : 'openai';
    const identified = identifyClient(headers, format, tokens, deps.upstreamKeys?.[format]);
    if ('refused' in identified) throw new RestError(401, identified.refused);
    return identified.identity.owner;
  };

  const readBody = async <T>(c: Context, schema: z.ZodType<T>): Promise<T> => {
    let text: string;
    try {
      text = await readBoundedText(c.req.raw, maxBodyBytes);
    } catch (error) {
      if (BodyTooLargeError.isInstance(error)) throw new RestError(413, error.message);
      throw error;
    }
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text) as unknown;
      } catch (error) {
        throw new RestError(400, `the request body is not JSON: ${(error as Error).message}`);
      }
    }
    const tooDeep = pathPastDepth(body);
    if (tooDeep !== undefined)
      throw new RestError(400, 'the request body is too deep', [
        { path: tooDeep, message: `nested deeper than ${MAX_JSON_DEPTH} levels` },
      ]);
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new RestError(400, 'the request body is not valid', issuesOf(parsed.error));
    return parsed.data;
  };

  /** The caller's session named in the path: its store id, or a 404 (also for another owner's). */
  const sessionOf = async (c: Context): Promise<{ publicId: string; sessionId: string }> => {
    const owner = ownerOf(c);
    const publicId = c.req.param('id') ?? '';
    const parsed = sessionIdSchema.safeParse(publicId);
    if (!parsed.success)
      throw new RestError(400, 'the session id is not valid', [
        { path: 'id', message: parsed.error.issues[0]?.message ?? 'invalid' },
      ]);
    const sessionId = storeSessionId(owner, publicId);
    if (!(await exists(sessionId))) throw new RestError(404, `no session ${JSON.stringify(publicId)}`);
    return { publicId, sessionId };
  };

  // A stored session may have no message yet: one given a policy override before its first message.
  const exists = async (sessionId: string): Promise<boolean> =>
    (await sessions.loadRecent(sessionId)) !== undefined;

  /**
   * The statistics of the session's next request. The window is the one the session's last request had;
   * a session that never had one (made here, no model request yet) gets the proxy's fallback, as a model
   * request to an upstream that names no window would, so compaction has a window to work in.
   */
  const statsOf = async (sessionId: string) => {
    try {
      return await manager.stats(sessionId);
    } catch (error) {
      if (
        !CtxkitError.isInstance(error) ||
        error.code !== 'unknown_model' ||
        deps.contextWindow === undefined
      )
        throw error;
      return manager.stats(sessionId, { contextWindow: deps.contextWindow });
    }
  };

  const app = new Hono();

  app.get('/openapi.json', (c) => c.json(buildOpenApiDocument()));

  app.post('/api/sessions', async (c) => {
    const owner = ownerOf(c);
    const body = await readBody(c, createSessionBody);
    const publicId = body.id ?? `s_${randomBytes(12).toString('hex')}`;
    const sessionId = storeSessionId(owner, publicId);
    if (await exists(sessionId))
      throw new RestError(409, `session ${JSON.stringify(publicId)} exists already`);
    const now = manager.clock();
    await sessions.setPolicyOverride(sessionId, {}, now);
    return c.json({ id: publicId, messages: 0, edits: 0, createdAt: now, updatedAt: now }, 201);
  });

  app.get('/api/sessions', async (c) => {
    const prefix = storeSessionId(ownerOf(c), '');
    const listed = (await sessions.list())
      .filter((listing) => listing.id.startsWith(prefix))
      .map((listing) => ({
        id: listing.id.slice(prefix.length),
        messages: listing.messages,
        edits: listing.edits,
        createdAt: listing.createdAt,
        updatedAt: listing.updatedAt,
      }));
    return c.json({ sessions: listed });
  });

  app.get('/api/sessions/:id', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const recent = await sessions.loadRecent(sessionId);
    return c.json({
      id: publicId,
      messages: recent?.messageIds.length ?? 0,
      edits: recent?.editCount ?? 0,
      createdAt: recent?.createdAt ?? 0,
      updatedAt: recent?.updatedAt ?? 0,
    });
  });

  app.delete('/api/sessions/:id', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    // Background work of the session (a summary a turn scheduled) ends first: it writes nothing after.
    await manager.settle(sessionId);
    // As retention removes a session: blobs, then trace, then the session's own record last, so a
    // failure half-way leaves it listed to delete again.
    let blobCount = 0;
    if (hasBlobName(sessionId)) blobCount = await blobs.deleteSession(sessionId);
    await manager.flushTrace();
    const traceEvents = deps.trace ? await deps.trace.deleteSession(sessionId) : 0;
    await sessions.delete(sessionId);
    manager.unload(sessionId);
    return c.json({ id: publicId, deleted: true, blobs: blobCount, traceEvents });
  });

  app.post('/api/sessions/:id/messages', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const body = await readBody(c, appendBody);
    const result = await manager.append(sessionId, body.messages as MessageInput[]);
    return c.json({ id: publicId, messages: result.messages, events: result.events }, 201);
  });

  app.get('/api/sessions/:id/context', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    // What `ctxkit chat`'s /context shows: the statistics of what the next request costs, without
    // preparing one (prepare runs layers and may compact); the view is the projection of log and edits.
    const stats = await statsOf(sessionId);
    const { log, edits } = await manager.history(sessionId);
    const view = projectView(log, edits);
    return c.json({
      id: publicId,
      stats: { ...stats, sessionId: publicId },
      view: {
        messages: view.entries.map((entry) => entry.message),
        summary: view.summary,
        reminder: view.reminder,
      },
    });
  });

  app.delete('/api/sessions/:id/context', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    await statsOf(sessionId);
    const { events } = await manager.clear(sessionId);
    return c.json({ id: publicId, cleared: true, events });
  });

  app.post('/api/sessions/:id/compact', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const body = await readBody(c, compactBody);
    await statsOf(sessionId);
    const result =
      body.mode === 'emergency'
        ? await manager.emergencyCompact(sessionId)
        : await manager.compact(sessionId, {
            strategy: 'summarize',
            ...(body.instructions !== undefined && { instructions: body.instructions }),
          });
    return c.json({ id: publicId, mode: body.mode, compacted: result.compacted, events: result.events });
  });

  // The session's policy: its override, and the policy every call on it runs under.
  app.get('/api/sessions/:id/policy', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const { override, policy } = await manager.policyOf(sessionId);
    return c.json({ id: publicId, override, policy });
  });

  app.patch('/api/sessions/:id/policy', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const patch = await readBody(c, policyPatchBody);
    const { override, policy } = await manager.patchPolicyOverride(sessionId, patch);
    return c.json({ id: publicId, override, policy });
  });

  // Back to the server's policy, whatever the stored override holds (one this version cannot read too).
  app.delete('/api/sessions/:id/policy', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const { override, policy } = await manager.setPolicyOverride(sessionId, null);
    return c.json({ id: publicId, override, policy });
  });

  app.post('/api/sessions/:id/count', async (c) => {
    const { publicId, sessionId } = await sessionOf(c);
    const body = await readBody(c, countBody);
    const system = body.system ?? '';
    const tools = body.tools ?? [];
    const given = (body.messages ?? []) as MessageInput[];
    const { log, edits } = await manager.history(sessionId);
    // The client's history as it would resend it: what the log holds but a branch (the client's own
    // edit of its history) hid, and what it never showed the model, left out.
    const branched = new Set<number>();
    for (const edit of edits)
      if (edit.type === 'branch') for (const seq of edit.hiddenSeqs) branched.add(seq);
    const history: MessageInput[] = [
      ...log.filter((message) => isAgentVisible(message) && !branched.has(message.seq)),
      ...given,
    ];
    const ids = history.map((message) => contentId(message));
    const before = counts.count(system, tools, history, ids);
    // After: what stats says the session's next request holds (the summary, memory and history regions
    // as prepare would send them, no side effect: no request is given, so nothing is remembered), with
    // the given system prompt, tools and new messages counted as they would be sent.
    const stats = await statsOf(sessionId);
    const fixed = counts.count(system, tools, [], []);
    const givenIds = given.map((message) => contentId(message));
    const pending = counts.count('', [], given, givenIds) - counts.count('', [], [], []);
    const after = fixed + stats.tokens.summary + stats.tokens.memory + stats.tokens.history + pending;
    return c.json({
      id: publicId,
      ...(body.model !== undefined && { model: body.model }),
      counter: 'o200k',
      before,
      after,
      saved: before - after,
      breakdown: {
        fixed,
        summary: stats.tokens.summary,
        memory: stats.tokens.memory,
        history: stats.tokens.history,
        pending,
      },
    });
  });

  app.get('/api/sessions/:id/export', async (c) => {
    const { sessionId } = await sessionOf(c);
    const { log, edits } = await manager.history(sessionId);
    await manager.flushTrace();
    const events = deps.trace ? await deps.trace.list(sessionId) : [];
    const lines: string[] = [
      ...log.map((message: Message) => JSON.stringify({ kind: 'message', ...message })),
      ...edits.map((edit) => JSON.stringify({ kind: 'edit', ...edit })),
      ...events.map((event) => JSON.stringify({ kind: 'event', ...event })),
    ];
    return c.body(lines.map((line) => `${line}\n`).join(''), 200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
    });
  });

  app.onError((error, c) => {
    const { status, body } = errorBody(error);
    if (status === 500) {
      const { name, message, stack } = error;
      deps.logger?.error({ err: { name, message, stack } }, 'request failed');
    }
    return c.json(body, status);
  });
  return app;
}

/** Each problem the policy validator found, by key path (`summarize.trigger`), in its own words. */
function hasBlobName(sessionId: string): boolean {
  try {
    validateBlobName('sessionId', sessionId);
    return true;
  } catch {
    return false;
  }
}
