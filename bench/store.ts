/**
 * Session store speed: messages appended per second, one per append and 100 per append, and the time to
 * restore a 10,000-message session, on SQLite (a temp file, default settings) and PostgreSQL (an
 * embedded server started here, durable settings). Messages are corpus sessions, read in place, repeated
 * and renumbered until there are enough. Goals: ≥ 20,000 messages/s batched on SQLite; restore < 50 ms.
 *
 * The restored session is written the way ctxkit writes one in use, through a ContextManager (default
 * policy, 128k window), so it carries the summaries that cut it. Three times are taken on it: reading
 * the whole log (`load`), reading what a resume needs (`loadRecent`: edits, ids, the bodies after the
 * newest cut), and the restore itself: a new manager's first `prepare` on the session.
 *
 *   npm run bench:store            (or: npx tsx bench/store.ts [--skip-postgres])
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../src/core/message.ts';
import { PRESETS } from '../src/core/policy/presets/index.ts';
import { createContextManager } from '../src/engine/context-manager.ts';
import type { BlobStore } from '../src/store/blob-store.ts';
import { createMemoryBlobStore } from '../src/store/memory-blob-store.ts';
import { createMemorySessionStore } from '../src/store/memory-session-store.ts';
import { createPostgresSessionStore } from '../src/store/postgres-session-store.ts';
import type { SessionStore } from '../src/store/session-store.ts';
import { createSqliteSessionStore } from '../src/store/sqlite-session-store.ts';
import { startTestPostgres } from '../src/store/testing/session-store-postgres-server.ts';
import { replaySession } from '../src/testing/replay-session.ts';
import { median, Progress, printTable, readCorpus } from './token-bench-support.ts';

const RESTORE_MESSAGES = 10_000;
const BATCH = 100;
const SINGLE_APPENDS = { sqlite: 5_000, postgres: 2_000, memory: 10_000 } as const;
const BATCHED_MESSAGES = 20_000;
const RESTORE_RUNS = 15;
const GOAL_BATCHED_PER_SECOND = 20_000;
const GOAL_RESTORE_MS = 50;
const RESTORE_SESSION = 'restore';
const RESTORE_POLICY = { ...PRESETS.default, model: 'gpt-4o' };
const RESTORE_REQUEST = { system: 'You are a coding agent.', contextWindow: 128_000, maxOutputTokens: 4_096 };

type Backend = keyof typeof SINGLE_APPENDS;

interface Timing {
  median: number;
  p90: number;
  first: number;
}

interface Result {
  backend: string;
  single: number;
  batched: number;
  /** `load`: every body of the 10k log. */
  whole: Timing;
  /** `loadRecent`: every edit and id, the bodies after the newest cut. */
  recent: Timing;
  /** A new ContextManager's first prepare on the session: what a restart costs the caller. */
  resume: Timing;
  logStart: number;
}

/** `count` corpus messages, renumbered from 0 with unique ids (the corpus, repeated as needed). */
function growMessages(corpus: readonly Message[], count: number): Message[] {
  return Array.from({ length: count }, (_, seq) => {
    const source = corpus[seq % corpus.length] as Message;
    return { ...source, id: `m${seq}`, seq };
  });
}

async function appendOneByOne(
  store: SessionStore,
  messages: readonly Message[],
  label: string,
): Promise<number> {
  const progress = new Progress(label, messages.length);
  const started = performance.now();
  for (const message of messages) {
    await store.appendMessages('single', [message], message.seq, Date.now());
    progress.tick();
  }
  const seconds = (performance.now() - started) / 1_000;
  progress.done();
  return messages.length / seconds;
}

async function appendInBatches(
  store: SessionStore,
  sessionId: string,
  messages: readonly Message[],
  label: string,
): Promise<number> {
  const progress = new Progress(label, messages.length);
  const started = performance.now();
  for (let seq = 0; seq < messages.length; seq += BATCH) {
    const batch = messages.slice(seq, seq + BATCH);
    await store.appendMessages(sessionId, batch, seq, Date.now());
    progress.tick(batch.length);
  }
  const seconds = (performance.now() - started) / 1_000;
  progress.done();
  return messages.length / seconds;
}

async function measure(
  backend: Backend,
  label: string,
  store: SessionStore,
  corpus: readonly Message[],
): Promise<Result> {
  const single = await appendOneByOne(
    store,
    growMessages(corpus, SINGLE_APPENDS[backend]),
    `${label}: single appends`,
  );
  const batched = await appendInBatches(
    store,
    'batched',
    growMessages(corpus, BATCHED_MESSAGES),
    `${label}: batched appends`,
  );
  const managed = await writeManagedSession(
    store,
    corpus,
    `${label}: writing the 10k session through a manager`,
  );
  const whole = await timeRuns(`${label}: reading the whole 10k log`, async () => {
    const session = await store.load(RESTORE_SESSION);
    if (session?.log.length !== RESTORE_MESSAGES)
      throw new Error(`${label}: loaded ${session?.log.length} messages`);
  });
  const recent = await timeRuns(`${label}: loadRecent`, async () => {
    const session = await store.loadRecent(RESTORE_SESSION);
    if (session?.messageIds.length !== RESTORE_MESSAGES)
      throw new Error(`${label}: loadRecent lost messages`);
  });
  const resume = await timeRuns(`${label}: resuming (new manager, first prepare)`, async () => {
    const manager = createContextManager({ policy: RESTORE_POLICY, store, blobs: managed.blobs });
    const prepared = await manager.prepare(RESTORE_SESSION, RESTORE_REQUEST);
    if (prepared.messages.length === 0) throw new Error(`${label}: resumed to an empty view`);
  });
  return { backend: label, single, batched, whole, recent, resume, logStart: managed.logStart };
}

/** Runs `work` RESTORE_RUNS times, with a counter on stderr; the times in ms. */
async function timeRuns(label: string, work: () => Promise<void>): Promise<Timing> {
  const progress = new Progress(label, RESTORE_RUNS);
  const times: number[] = [];
  for (let run = 0; run < RESTORE_RUNS; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
    progress.tick();
  }
  progress.done();
  const sorted = [...times].sort((a, b) => a - b);
  return {
    median: median(times),
    p90: sorted[Math.floor(sorted.length * 0.9)] ?? Number.NaN,
    first: times[0] ?? Number.NaN,
  };
}

/**
 * The 10k-message session as ctxkit leaves it in use: appended and prepared through a ContextManager
 * (default policy, 128k window), so its summaries cut it as they would. Returns where its view starts.
 */
async function writeManagedSession(
  store: SessionStore,
  corpus: readonly Message[],
  label: string,
): Promise<{ logStart: number; blobs: BlobStore }> {
  const blobs = createMemoryBlobStore();
  const manager = createContextManager({ policy: RESTORE_POLICY, store, blobs });
  const progress = new Progress(label, RESTORE_MESSAGES);
  await replaySession(
    manager,
    RESTORE_SESSION,
    growMessages(corpus, RESTORE_MESSAGES),
    RESTORE_REQUEST,
    (step) => progress.set(step.index),
  );
  progress.done();
  const recent = await store.loadRecent(RESTORE_SESSION);
  return { logStart: recent?.logStart ?? 0, blobs };
}

async function main(): Promise<void> {
  const skipPostgres = process.argv.includes('--skip-postgres');
  const corpus = readCorpus().flatMap((session) => session.transcript.messages);
  const results: Result[] = [];

  const memory = createMemorySessionStore();
  results.push(await measure('memory', 'memory', memory, corpus));
  await memory.close();

  const dataDir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-store-'));
  try {
    const sqlite = await createSqliteSessionStore({ dataDir });
    results.push(await measure('sqlite', 'sqlite (WAL, synchronous=normal)', sqlite, corpus));
    await sqlite.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  if (!skipPostgres) {
    const server = await startTestPostgres({ onProgress: (line) => process.stderr.write(`  ${line}\n`) });
    try {
      const store = await createPostgresSessionStore({ url: server.url() });
      try {
        results.push(
          await measure(
            'postgres',
            `postgres (embedded${server.embedded ? '' : ': external'}, fsync on)`,
            store,
            corpus,
          ),
        );
      } finally {
        await store.close();
      }
    } finally {
      await server.stop();
    }
  }

  console.log(
    `\nSession store: ${corpus.length} corpus messages grown as needed; batches of ${BATCH}; ${RESTORE_RUNS} runs per restore time\n`,
  );
  const rate = (value: number) => Math.round(value).toLocaleString('en-US');
  const ms = (value: number) => value.toFixed(1);
  printTable(
    ['backend', 'single msg/s', `batched (${BATCH}) msg/s`],
    results.map((result) => [result.backend, rate(result.single), rate(result.batched)]),
  );
  const first = results[0];
  console.log(
    `\nRestoring the ${RESTORE_MESSAGES.toLocaleString('en-US')}-message session (bodies held after the newest cut: ${first ? RESTORE_MESSAGES - first.logStart : '?'}), ms:\n`,
  );
  printTable(
    ['backend', 'whole log: median', 'p90', 'loadRecent: median', 'p90', 'restore: median', 'p90', 'first'],
    results.map((result) => [
      result.backend,
      ms(result.whole.median),
      ms(result.whole.p90),
      ms(result.recent.median),
      ms(result.recent.p90),
      ms(result.resume.median),
      ms(result.resume.p90),
      ms(result.resume.first),
    ]),
  );
  const sqlite = results.find((result) => result.backend.startsWith('sqlite'));
  if (sqlite) {
    console.log(
      `\ngoal: ≥ ${rate(GOAL_BATCHED_PER_SECOND)} msg/s batched on SQLite: ${rate(sqlite.batched)} — ${sqlite.batched >= GOAL_BATCHED_PER_SECOND ? 'met' : 'NOT met'}`,
    );
  }
  for (const result of results.filter((entry) => !entry.backend.startsWith('memory'))) {
    console.log(
      `goal: restore 10k messages < ${GOAL_RESTORE_MS} ms on ${result.backend}: median ${ms(result.resume.median)} ms — ${result.resume.median < GOAL_RESTORE_MS ? 'met' : 'NOT met'}`,
    );
  }
}

await main();
