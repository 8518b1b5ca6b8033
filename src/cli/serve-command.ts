/**
 * `ctxkit serve`: the context-managing proxy. Agents point their base URL at it (`http://host:port/v1`
 * for OpenAI clients, `http://host:port` for Anthropic ones) and keep sending their whole history; ctxkit
 * sends the upstream what fits and keeps everything in the sessions' stores (SQLite in `--data`, or
 * PostgreSQL with `--store postgres://…`).
 */

import { hostname } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import postgres from 'postgres';
import { parseCountFlag } from '../cli/parse-count-flag.ts';
import { FlagError } from '../core/errors/index.ts';
import { escapeForTerminal, escapeJsonForTerminal } from '../core/escape-for-terminal.ts';
import { type ContextManager, createContextManager } from '../engine/context-manager.ts';
import { compactionLogger } from '../server/compaction-log.ts';
import type { ConversationIndex } from '../server/conversation/conversation-index.ts';
import { createPostgresConversationIndex } from '../server/conversation/postgres-conversation-index.ts';
import { createSqliteConversationIndex } from '../server/conversation/sqlite-conversation-index.ts';
import { isLoopback } from '../server/loopback.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_READ_BACK_ROUNDS,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
} from '../server/proxy-options.ts';
import {
  createPostgresSessionLocks,
  DEFAULT_MAX_HELD_SESSIONS,
} from '../server/session-locks/postgres-session-locks.ts';
import type { SessionLocks } from '../server/session-locks/session-locks.ts';
import { type RunningProxy, startProxyServer } from '../server/start-proxy-server.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { createFallbackBlobStore } from '../store/fallback-blob-store.ts';
import { createFsBlobStore } from '../store/fs-blob-store.ts';
import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import { createPostgresBlobStore } from '../store/postgres-blob-store.ts';
import { createPostgresSessionStore, DEFAULT_POSTGRES_POOL_SIZE } from '../store/postgres-session-store.ts';
import { createPostgresTraceStore } from '../store/postgres-trace-store.ts';
import type { RetentionSchedule, RetentionScheduleOptions } from '../store/retention-schedule.ts';
import type { SessionStore } from '../store/session-store.ts';
import { DEFAULT_DATA_DIR, DEFAULT_SQLITE_FILE } from '../store/sqlite-session-store.ts';
import type { TraceStore } from '../store/trace-store.ts';
import { loadConfigFromFlags, type PolicyFlags } from './policy-flags.ts';

export interface ServeFlags extends PolicyFlags {
  port?: string;
  host?: string;
  data?: string;
  upstream?: string;
  upstreamAnthropic?: string;
  store?: string;
  token?: string[];
  maxBodyMb?: string;
  readBackRounds?: string;
  maxHeldSessions?: string;
  upstreamTimeout?: string;
  /** `--no-prompt-cache` sets it false: Anthropic requests go upstream without ctxkit's breakpoints. */
  promptCache?: boolean;
}

export const DEFAULT_SERVE_PORT = 8787;
export const DEFAULT_SERVE_HOST = '127.0.0.1';
export const DEFAULT_OPENAI_UPSTREAM = 'https://api.openai.com/v1';
export const DEFAULT_ANTHROPIC_UPSTREAM = 'https://api.anthropic.com';
/** Where tokens come from when `--token` is not given: comma-separated. */
export const TOKEN_VARIABLE = 'CTXKIT_TOKEN';
/** The most `--max-body-mb` takes. */
const MAX_BODY_MB = 1024;
/** The most `--max-held-sessions` takes: each is a PostgreSQL connection. */
const MAX_HELD_SESSIONS = 10_000;
/** The most `--upstream-timeout` takes, in seconds: Node's fetch waits no longer whatever it says. */
const MAX_UPSTREAM_TIMEOUT_S = DEFAULT_UPSTREAM_TIMEOUT_MS / 1000;

export interface ServeIo {
  env: Readonly<Record<string, string | undefined>>;
  /** Human-readable lines (the banner). */
  out: (line: string) => void;
  /** The structured log's destination (pino writes JSON lines to it). */
  log: NodeJS.WritableStream;
  /** Resolves when the server should stop (SIGINT / SIGTERM by default). */
  stopped: Promise<string>;
}

export async function serveCommand(flags: ServeFlags, io: ServeIo = defaultIo()): Promise<number> {
  const port =
    parseCountFlag('--port', flags.port, { unit: 'port', max: 65_535, zero: 'any free port' }) ??
    DEFAULT_SERVE_PORT;
  const host = flags.host ?? DEFAULT_SERVE_HOST;
  if (flags.model !== undefined)
    throw new FlagError(
      '--model',
      'serve takes the model from each request; --window is the window of models neither the upstream nor the profile table knows',
      flags.model,
    );
  const upstream = urlFlag('--upstream', flags.upstream ?? DEFAULT_OPENAI_UPSTREAM);
  const upstreamAnthropic = urlFlag(
    '--upstream-anthropic',
    flags.upstreamAnthropic ?? (flags.upstream !== undefined ? upstream : DEFAULT_ANTHROPIC_UPSTREAM),
  );
  const window = parseCountFlag('--window', flags.window, { unit: 'tokens', zero: 'auto' }) || undefined;
  const maxBodyMb = parseCountFlag('--max-body-mb', flags.maxBodyMb, { unit: 'MiB', max: MAX_BODY_MB });
  const readBackRounds =
    parseCountFlag('--read-back-rounds', flags.readBackRounds, { unit: 'rounds', max: 50, zero: 'none' }) ??
    DEFAULT_MAX_READ_BACK_ROUNDS;
  const upstreamTimeout = parseCountFlag('--upstream-timeout', flags.upstreamTimeout, {
    unit: 'seconds',
    max: MAX_UPSTREAM_TIMEOUT_S,
  });
  const maxHeld = parseCountFlag('--max-held-sessions', flags.maxHeldSessions, {
    unit: 'sessions',
    max: MAX_HELD_SESSIONS,
  });
  if (maxHeld !== undefined && flags.store === undefined)
    throw new FlagError(
      '--max-held-sessions',
      'applies to --store postgres://… only (one process on SQLite holds its sessions in memory)',
      flags.maxHeldSessions,
    );
  const tokens = tokensOf(flags.token, io.env[TOKEN_VARIABLE]);
  if (tokens.length === 0 && !isLoopback(host))
    throw new FlagError(
      '--token',
      `serving on ${JSON.stringify(host)} (beyond this machine) needs a token: pass --token or set ${TOKEN_VARIABLE}`,
    );
  // The window flag is the fallback for unknown models, not a policy override for every model.
  const { policy } = await loadConfigFromFlags({ ...flags, window: undefined });
  const dataDir = flags.data ?? DEFAULT_DATA_DIR;
  // Log lines quote client input (model names, ids, messages): escaped for the terminal they may reach.
  const logger = pino(
    { base: undefined },
    { write: (line: string) => io.log.write(escapeJsonForTerminal(line)) },
  );
  const stores = await openServeStores(
    dataDir,
    flags.store,
    (sessionId, error) =>
      logger.warn(
        { session: sessionId, err: { message: (error as Error).message } },
        'a session lock was lost with its database connection',
      ),
    maxHeld,
  );
  let proxy: RunningProxy | undefined;
  let retention: RetentionSchedule | undefined;
  try {
    const manager = createContextManager({
      policy,
      store: stores.store,
      blobs: stores.blobs,
      trace: stores.trace,
      // A fleet: each session is held by one instance at a time, and may be served by another next.
      sharedStore: stores.sessionLocks !== undefined,
    });
    manager.on(compactionLogger(logger));
    proxy = await listen({
      manager,
      upstream,
      upstreamAnthropic,
      ...(window !== undefined && { contextWindow: window }),
      tokens,
      upstreamKeys: {
        ...(io.env.OPENAI_API_KEY && { openai: io.env.OPENAI_API_KEY }),
        ...(io.env.ANTHROPIC_API_KEY && { anthropic: io.env.ANTHROPIC_API_KEY }),
      },
      conversations: stores.conversations,
      ...(stores.sessionLocks && { sessionLocks: stores.sessionLocks }),
      sessions: stores.store,
      trace: stores.trace,
      maxBodyBytes: maxBodyMb === undefined ? DEFAULT_MAX_BODY_BYTES : maxBodyMb * 1024 * 1024,
      maxReadBackRounds: readBackRounds,
      ...(flags.promptCache === false && { promptCache: false }),
      ...(upstreamTimeout !== undefined && { upstreamTimeoutMs: upstreamTimeout * 1000 }),
      logger,
      port,
      host,
      allowedHosts: [host],
    });
    retention = startServeRetention(manager, logger);
    // On every interface, clients connect by the machine's name, not by 0.0.0.0.
    const reach = ['0.0.0.0', '::', '[::]'].includes(host)
      ? proxy.url.replace(/\/\/[^/]+:/, `//${hostname()}:`)
      : proxy.url;
    io.out(`ctxkit serve · listening on ${proxy.url}`);
    io.out(`  OpenAI clients:    base URL ${reach}/v1`);
    io.out(`  Anthropic clients: base URL ${reach}`);
    io.out(
      escapeForTerminal(
        `  upstream ${upstream}${upstreamAnthropic !== upstream ? ` · Anthropic upstream ${upstreamAnthropic}` : ''}`,
      ),
    );
    io.out(
      `  sessions in ${stores.where} · ${tokens.length > 0 ? `${tokens.length} token(s) required` : 'no token (loopback only)'}`,
    );
    const signal = await io.stopped;
    logger.info({ signal }, 'stopping: requests in flight finish first');
    await proxy.close();
    proxy = undefined;
    await retention?.stop();
    retention = undefined;
    await manager.flushTrace();
    return 0;
  } finally {
    await proxy?.close();
    await retention?.stop();
    await stores.close();
  }
}

/**
 * Idle sessions past the policy's `retention.maxIdleDays` go on start and once a day (0 keeps
 * everything): from the store, blobs and trace the server uses, and from the manager's memory. Each sweep
 * is logged with what it removed.
 */
export function startServeRetention(
  manager: ContextManager,
  logger: Logger,
  options: Pick<RetentionScheduleOptions, 'everyMs' | 'timers'> = {},
): RetentionSchedule | undefined {
  const maxIdleDays = manager.policy.retention.maxIdleDays;
  if (maxIdleDays === 0) return undefined;
  return manager.startRetention({
    ...options,
    onSweep: (outcome) => {
      if (outcome.ok)
        logger.info(
          {
            maxIdleDays,
            removed: outcome.report.removed.length,
            failures: outcome.report.failures.length,
          },
          'retention sweep',
        );
      else
        logger.warn(
          {
            maxIdleDays,
            err: { message: (outcome.error as Error | undefined)?.message ?? String(outcome.error) },
          },
          'retention sweep failed',
        );
    },
  });
}

/** Starts the server; a port that cannot be had is a flag error, not a bug. */
async function listen(options: Parameters<typeof startProxyServer>[0]): Promise<RunningProxy> {
  try {
    return await startProxyServer(options);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new FlagError(
        code === 'EADDRNOTAVAIL' ? '--host' : '--port',
        code === 'EADDRINUSE'
          ? `port ${options.port} is in use on ${options.host}: pass another --port (0: any free port)`
          : code === 'EACCES'
            ? `no permission to listen on port ${options.port} (ports below 1024 need privileges)`
            : `${JSON.stringify(options.host)} is not an address of this machine`,
      );
    throw error;
  }
}

function defaultIo(): ServeIo {
  return {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    log: process.stderr,
    stopped: new Promise((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
    }),
  };
}

function urlFlag(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new FlagError(flag, `not a URL: ${JSON.stringify(value)}`, value);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FlagError(flag, `must be an http:// or https:// URL, got ${JSON.stringify(value)}`, value);
  return value.replace(/\/+$/, '');
}

function tokensOf(flag: readonly string[] | undefined, variable: string | undefined): string[] {
  const given = flag && flag.length > 0 ? [...flag] : (variable ?? '').split(',');
  const tokens = given.map((token) => token.trim()).filter((token) => token !== '');
  for (const token of tokens)
    if (token.length < 16)
      throw new FlagError(
        flag && flag.length > 0 ? '--token' : TOKEN_VARIABLE,
        'a token must be at least 16 characters long',
      );
  return tokens;
}

/** What `ctxkit serve` keeps its sessions in: SQLite in --data, or PostgreSQL for a fleet. */
export interface ServeStores {
  store: SessionStore;
  blobs: BlobStore;
  trace: TraceStore;
  conversations: ConversationIndex;
  /** Shared by the instances on one database; undefined: this process only. */
  sessionLocks?: SessionLocks;
  where: string;
  close(): Promise<void>;
}

/** Opens the stores `ctxkit serve` runs on (the benchmark opens them the same way). */
export async function openServeStores(
  dataDir: string,
  storeUrl: string | undefined,
  onLockLost: (sessionId: string, error: unknown) => void,
  maxHeldSessions: number = DEFAULT_MAX_HELD_SESSIONS,
): Promise<ServeStores> {
  if (storeUrl === undefined) {
    const embedded = await openEmbeddedStores({ dataDir });
    const conversations = createSqliteConversationIndex({ filename: join(dataDir, DEFAULT_SQLITE_FILE) });
    return {
      store: embedded.store,
      blobs: embedded.blobs,
      trace: embedded.trace,
      conversations,
      where: `SQLite (${dataDir})`,
      async close() {
        await Promise.all([embedded.close(), conversations.close()]);
      },
    };
  }
  if (!/^postgres(ql)?:\/\//.test(storeUrl))
    throw new FlagError('--store', 'must be a postgres:// URL (SQLite in --data is the default)', storeUrl);
  // One pool for the stores (sessions, blobs, trace, conversations); the session locks keep their own,
  // since a held lock keeps its connection for the length of a model call.
  const sql = postgres(storeUrl, { max: DEFAULT_POSTGRES_POOL_SIZE, onnotice: () => {} });
  let store: SessionStore;
  try {
    store = await createPostgresSessionStore({ sql });
  } catch (error) {
    await sql.end({ timeout: 5 });
    // A database that cannot be reached is the flag's problem; the URL is not repeated (it may hold a password).
    const code = (error as { code?: unknown }).code;
    throw new FlagError(
      '--store',
      `cannot open the PostgreSQL database${typeof code === 'string' ? ` (${code})` : ''}: ${(error as Error).message.replaceAll(storeUrl, '<url>')}`,
    );
  }
  try {
    // Offloaded content too: any instance on the database reads what another offloaded.
    const [trace, conversations, sharedBlobs] = await Promise.all([
      createPostgresTraceStore({ sql }),
      createPostgresConversationIndex({ sql }),
      createPostgresBlobStore({ sql }),
    ]);
    // Blobs an earlier version kept in --data stay readable through the pointers that name them.
    const blobs = createFallbackBlobStore(sharedBlobs, createFsBlobStore({ dataDir }));
    const sessionLocks = createPostgresSessionLocks({
      url: storeUrl,
      maxHeld: maxHeldSessions,
      onLost: onLockLost,
    });
    return {
      store,
      blobs,
      trace,
      conversations,
      sessionLocks,
      where: 'PostgreSQL',
      async close() {
        await Promise.all([sessionLocks.close(), blobs.close()]);
        await sql.end({ timeout: 5 });
      },
    };
  } catch (error) {
    await sql.end({ timeout: 5 });
    throw error;
  }
}
