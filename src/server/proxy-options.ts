/** The proxy's settings, with their defaults. */
import type { Logger } from 'pino';
import type { ContextManager } from '../engine/context-manager.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { TraceStore } from '../store/trace-store.ts';
import type { ConversationIndex } from './conversation/conversation-index.ts';
import type { SessionLocks } from './session-locks/session-locks.ts';

/** Largest request body accepted, in bytes: agents send images and long histories, but not without end. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Read-back rounds the proxy answers itself within one client request before the model must answer. */
export const DEFAULT_MAX_READ_BACK_ROUNDS = 4;
/**
 * How long the upstream may stay silent, in milliseconds: before its answer begins, and between two pieces
 * of it. A non-streamed answer of a reasoning model begins only once the whole reply is written, which
 * can take minutes, so the wait is generous; it is also the longest Node's own fetch waits (undici's
 * headers and body timeouts), so a longer one needs a `fetch` of one's own.
 */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 300_000;
/** Largest upstream answer read whole (non-streamed), in bytes. */
export const MAX_UPSTREAM_ANSWER_BYTES = 64 * 1024 * 1024;
/** The header a client may name its session with. */
export const SESSION_HEADER = 'x-ctxkit-session';
/** The header a client may give the proxy's token in (beside `Authorization` / `x-api-key`). */
export const TOKEN_HEADER = 'x-ctxkit-token';

export interface ProxyOptions {
  manager: ContextManager;
  /** Base URL of the OpenAI-compatible upstream, `/v1` included (`https://api.openai.com/v1`). */
  upstream: string;
  /** Base URL of the Anthropic upstream (`https://api.anthropic.com`); default `upstream`. */
  upstreamAnthropic?: string;
  /** Keys used upstream when the client sends none of its own. */
  upstreamKeys?: { openai?: string; anthropic?: string };
  /** The window when neither the upstream nor the profile table knows the model. */
  contextWindow?: number;
  /**
   * Tokens a client must present (`Authorization: Bearer`, `x-api-key` or `x-ctxkit-token`). Empty: no
   * token is asked for (the CLI allows that on loopback only). Sessions belong to the token that made them.
   */
  tokens?: readonly string[];
  /**
   * Host names a client may reach a token-less proxy by, beside loopback ones (the `--host` it listens
   * on); any other `Host`, and any browser `Origin` not on loopback, is refused.
   */
  allowedHosts?: readonly string[];
  /** Where recognized conversations are looked up; default in memory. */
  conversations?: ConversationIndex;
  /**
   * Who may hold a session at once; default this process only. Several instances on one database share
   * PostgreSQL's (`createPostgresSessionLocks`): then every request reads its session from the store.
   */
  sessionLocks?: SessionLocks;
  maxBodyBytes?: number;
  maxReadBackRounds?: number;
  /**
   * How long the upstream may stay silent before the proxy gives up on it: for its answer to begin, and
   * between two pieces of it (a stalled stream). The client gets a 504, or an error event once its stream
   * has begun. Default `DEFAULT_UPSTREAM_TIMEOUT_MS`.
   */
  upstreamTimeoutMs?: number;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Sessions kept in memory beyond those in use (the rest reload from the store); default 256. */
  maxLoadedSessions?: number;
  /**
   * Bytes of recent request bodies kept so a client's next body is read only where it differs (each
   * with what it parsed to); default `DEFAULT_KEPT_BODY_BYTES` (64 MiB).
   */
  keptBodyBytes?: number;
  /**
   * Anthropic's prompt cache (default true): an Anthropic Messages request whose client marked no
   * `cache_control` goes upstream with ctxkit's breakpoints on its stable prefix (at most four);
   * `false` (`serve --no-prompt-cache`) sends it as rendered.
   */
  promptCache?: boolean;
  /** Ask the upstream for the model's served window (Ollama, vLLM, llama.cpp); default true. */
  detectWindow?: boolean;
  /** The manager's session store, for the REST API and the health check. */
  sessions?: SessionStore;
  /** The trace the manager writes to: the REST API exports it and deletes a session's events with it. */
  trace?: TraceStore;
}
