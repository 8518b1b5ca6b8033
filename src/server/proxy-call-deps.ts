/** What a model call through the proxy is given: the server's parts, and the client's request. */
import type { Logger } from 'pino';
import type { CachePrefixMemory } from '../core/cache/cache-prefix-memory.ts';
import type { Usage } from '../core/message.ts';
import type { ContextManager } from '../engine/context-manager.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { ClientRequestTokens } from './client-request-tokens.ts';
import type { CallHistory } from './dashboard/call-history.ts';
import type { LoadedSessions } from './loaded-sessions.ts';
import type { ProxyMetrics } from './metrics.ts';
import type { ReadBody, RequestBodies } from './request-bodies.ts';
import type { SessionResolver } from './resolve-session.ts';
import type { UpstreamWindows } from './upstream-window.ts';
import type { WireFormat } from './wire/wire-format.ts';

export interface ProxyCallDeps {
  manager: ContextManager;
  /** Recent request bodies, so a body is read only where it differs from one before. */
  bodies: RequestBodies;
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
  /**
   * What this proxy sent Anthropic before, for placing prompt-cache breakpoints where earlier requests
   * wrote (see `withAnthropicCacheMarks`); absent with `promptCache: false`.
   */
  promptCacheMemory?: CachePrefixMemory;
}

export interface ProxyCallInput {
  format: WireFormat;
  /** The request's query string (`?api-version=…`), passed to the upstream as it came. */
  search: string;
  body: unknown;
  /** The body as read (its bytes, where its parts lie, the request it continues). */
  read: Extract<ReadBody, { ok: true }>;
  /** What the body is kept under for the calls after (`RequestBodies.keyOf`). */
  bodyKey: string;
  headers: Headers;
  identity: ClientIdentity;
  signal: AbortSignal;
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
