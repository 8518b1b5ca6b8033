/**
 * The proxy under test, in a process of its own (so its memory and CPU are its own), built as
 * `ctxkit serve` builds it (src/cli/serve-command.ts): `startProxyServer` over a ContextManager with the
 * default policy and its stores, either the embedded SQLite ones (sessions, trace, conversation index in
 * one file; blobs beside it) in a temp dir, or PostgreSQL (sessions, trace, conversation index; blobs in
 * a temp dir); the pino log (one line a request) goes to a file there.
 *
 * Run as a child of `bench/serve.ts` (argv[2]: JSON `ProxySpec`, with `--expose-gc`). Over IPC it says
 * `{ type: 'ready', url }`, then every `sampleMs` `{ type: 'sample', rss, heapUsed, cpuMs }`; it answers
 * `{ type: 'gc' }` with the heap after a full collection, and `{ type: 'stop' }` by closing and exiting.
 */
import { join } from 'node:path';
import pino from 'pino';
import { PRESETS } from '../src/core/policy/presets/index.ts';
import { createContextManager } from '../src/engine/context-manager.ts';
import type { ConversationIndex } from '../src/server/conversation/conversation-index.ts';
import { createPostgresConversationIndex } from '../src/server/conversation/postgres-conversation-index.ts';
import { createSqliteConversationIndex } from '../src/server/conversation/sqlite-conversation-index.ts';
import { startProxyServer } from '../src/server/start-proxy-server.ts';
import { createFsBlobStore } from '../src/store/fs-blob-store.ts';
import { openEmbeddedStores } from '../src/store/open-embedded-stores.ts';
import { createPostgresSessionStore } from '../src/store/postgres-session-store.ts';
import { createPostgresTraceStore } from '../src/store/postgres-trace-store.ts';
import { DEFAULT_SQLITE_FILE } from '../src/store/sqlite-session-store.ts';

export interface ProxySpec {
  store: 'sqlite' | 'postgres';
  dataDir: string;
  postgresUrl?: string;
  /** The upstream's OpenAI base URL, `/v1` included. */
  upstream: string;
  contextWindow: number;
  sampleMs: number;
}

export type ProxyMessage =
  | { type: 'ready'; url: string }
  | { type: 'sample'; rss: number; heapUsed: number; cpuMs: number }
  | { type: 'gc'; rss: number; heapUsed: number; cpuMs: number };

interface OpenStores {
  stores: Pick<Parameters<typeof createContextManager>[0], 'store' | 'blobs' | 'trace'>;
  conversations: ConversationIndex;
  close(): Promise<void>;
}

async function openStores(spec: ProxySpec): Promise<OpenStores> {
  if (spec.store === 'sqlite') {
    const embedded = await openEmbeddedStores({ dataDir: spec.dataDir });
    const conversations = createSqliteConversationIndex({
      filename: join(spec.dataDir, DEFAULT_SQLITE_FILE),
    });
    return {
      stores: { store: embedded.store, blobs: embedded.blobs, trace: embedded.trace },
      conversations,
      close: async () => {
        await Promise.all([embedded.close(), conversations.close()]);
      },
    };
  }
  if (!spec.postgresUrl) throw new Error('serve-proxy: the postgres store needs postgresUrl');
  const store = await createPostgresSessionStore({ url: spec.postgresUrl });
  const trace = await createPostgresTraceStore({ url: spec.postgresUrl });
  const conversations = await createPostgresConversationIndex({ url: spec.postgresUrl });
  const blobs = createFsBlobStore({ dataDir: spec.dataDir });
  return {
    stores: { store, blobs, trace },
    conversations,
    close: async () => {
      await Promise.all([store.close(), trace.close(), blobs.close(), conversations.close()]);
    },
  };
}

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ProxySpec;
  const send = (message: ProxyMessage): void => {
    process.send?.(message);
  };
  const opened = await openStores(spec);
  const manager = createContextManager({ policy: PRESETS.default, ...opened.stores });
  const log = pino.destination({ dest: join(spec.dataDir, 'serve.log'), sync: true });
  const logger = pino(
    { base: undefined, redact: ['req.headers.authorization', 'req.headers["x-api-key"]'] },
    log,
  );
  const proxy = await startProxyServer({
    manager,
    upstream: spec.upstream,
    contextWindow: spec.contextWindow,
    conversations: opened.conversations,
    logger,
  });
  const sample = (): void => {
    const memory = process.memoryUsage();
    send({ type: 'sample', rss: memory.rss, heapUsed: memory.heapUsed, cpuMs: cpuMs() });
  };
  const timer = setInterval(sample, spec.sampleMs);
  sample();
  process.on('message', (message: { type: string }) => {
    if (message.type === 'gc') {
      (globalThis as { gc?: () => void }).gc?.();
      const memory = process.memoryUsage();
      send({ type: 'gc', rss: memory.rss, heapUsed: memory.heapUsed, cpuMs: cpuMs() });
    } else if (message.type === 'stop') {
      clearInterval(timer);
      void (async () => {
        await proxy.close();
        await manager.flushTrace().catch(() => undefined);
        await opened.close();
        process.exit(0);
      })();
    }
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', url: proxy.url });
}

main().catch((error: unknown) => {
  process.stderr.write(`serve-proxy: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
