/**
 * The proxy under test, in a process of its own (so its memory and CPU are its own), built as
 * `ctxkit serve` builds it (src/cli/serve-command.ts): `startProxyServer` over a ContextManager with the
 * default policy and the stores serve opens (`openServeStores`), either the embedded SQLite ones in a temp
 * dir, or PostgreSQL as a fleet runs on it (sessions, trace, conversation index, blobs, session locks);
 * the pino log (one line a request) goes to a file there.
 *
 * Run as a child of `bench/serve.ts` (argv[2]: JSON `ProxySpec`, with `--expose-gc`). Over IPC it says
 * `{ type: 'ready', url }`, then every `sampleMs` `{ type: 'sample', rss, heapUsed, cpuMs }`; it answers
 * `{ type: 'gc' }` with the heap after a full collection, and `{ type: 'stop' }` by closing and exiting.
 */
import { join } from 'node:path';
import pino from 'pino';
import { openServeStores } from '../src/cli/serve-command.ts';
import { PRESETS } from '../src/core/policy/presets/index.ts';
import { createContextManager } from '../src/engine/context-manager.ts';
import { startProxyServer } from '../src/server/start-proxy-server.ts';

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

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ProxySpec;
  const send = (message: ProxyMessage): void => {
    process.send?.(message);
  };
  const opened = await openServeStores(
    spec.dataDir,
    spec.store === 'postgres' ? spec.postgresUrl : undefined,
    () => {},
  );
  const manager = createContextManager({
    policy: PRESETS.default,
    store: opened.store,
    blobs: opened.blobs,
    trace: opened.trace,
    sharedStore: opened.sessionLocks !== undefined,
  });
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
    ...(opened.sessionLocks && { sessionLocks: opened.sessionLocks }),
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
