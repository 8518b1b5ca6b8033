/**
 * `ctxkit/server`: the proxy `ctxkit serve` runs, to embed in a program of your own: `startProxyServer` (or
 * `createProxyApp`, a Hono app for a server you already have), its options and response headers, and the
 * conversation indexes that recognize a client's conversation without a session header (memory, SQLite,
 * PostgreSQL).
 */

export * from '../server/conversation/conversation-index.ts';
export * from '../server/conversation/postgres-conversation-index.ts';
export * from '../server/conversation/sqlite-conversation-index.ts';
export { createProxyApp } from '../server/proxy-app.ts';
export * from '../server/proxy-options.ts';
export { RESPONSE_HEADERS } from '../server/proxy-responses.ts';
export { DEFAULT_CLOSE_GRACE_MS, type RunningProxy, startProxyServer } from '../server/start-proxy-server.ts';
