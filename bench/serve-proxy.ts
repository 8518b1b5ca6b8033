/**
 * The proxy under test, in a process of its own (so its memory and CPU are its own), from the compiled
 * package, built as `ctxkit serve` builds it (src/cli/serve-command.ts): `startProxyServer` over a ContextManager with the
 * default policy and the stores serve opens (`openServeStores`), either the embedded SQLite ones in a temp
 * dir, or PostgreSQL as a fleet runs on it (sessions, trace, conversation index, blobs, session locks);
 * the pino log (one line a request) goes to a file there.
 *
 * Run as a child of `bench/serve.ts` (argv[2]: JSON `ProxySpec`, with `--expose-gc`); what it says to the
 * parent over IPC is in `serve-child.ts`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { answerParent } from './serve-child.ts';

/**
 * What is measured is what `ctxkit serve` runs: the compiled package in `dist/` (`npm run bench:serve`
 * builds it first), not the sources through a TypeScript loader, whose output costs more per call.
 */
const PRODUCT = new URL('../dist/', import.meta.url);
async function fromProduct<T>(path: string): Promise<T> {
  const url = new URL(path, PRODUCT);
  if (!existsSync(fileURLToPath(url)))
    throw new Error(`${fileURLToPath(url)} is missing: build the package first (npm run build)`);
  return (await import(url.href)) as T;
}
const { openServeStores } =
  await fromProduct<typeof import('../src/cli/serve-command.ts')>('cli/serve-command.js');
const { PRESETS } = await fromProduct<typeof import('../src/core/policy/presets/index.ts')>(
  'core/policy/presets/index.js',
);
const { createContextManager } =
  await fromProduct<typeof import('../src/engine/context-manager.ts')>('engine/context-manager.js');
const { startProxyServer } = await fromProduct<typeof import('../src/server/start-proxy-server.ts')>(
  'server/start-proxy-server.js',
);

export interface ProxySpec {
  store: 'sqlite' | 'postgres';
  dataDir: string;
  postgresUrl?: string;
  /** The upstream's OpenAI base URL, `/v1` included. */
  upstream: string;
  contextWindow: number;
  sampleMs: number;
}

export type { ProxyMessage } from './serve-child.ts';

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ProxySpec;
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
  const ready = answerParent(spec.sampleMs, () => {
    void (async () => {
      await proxy.close();
      await manager.flushTrace().catch(() => undefined);
      await opened.close();
      process.exit(0);
    })();
  });
  ready(proxy.url);
}

main().catch((error: unknown) => {
  process.stderr.write(`serve-proxy: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
