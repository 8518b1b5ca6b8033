/**
 * `ctxkit serve` under load: requests per second, the latency the proxy adds, and its memory over time,
 * with the embedded SQLite stores and with PostgreSQL. Numbers only; nothing here passes or fails.
 *
 * Set-up. A local upstream (`serve-upstream.ts`, its own process) answers every Chat Completions request
 * at once with a small valid completion: the corpus's next assistant message, with usage. 50 connections
 * each carry one conversation at a time (`serve-conversations.ts`): coding-agent corpus sessions
 * (OpenHands, SWE-agent, pi) as OpenAI requests, each resending the whole history one turn longer
 * (reply, then the tool results or user message after it), up to `--max-messages`; then the connection
 * starts a new conversation. The proxy (`serve-proxy.ts`) runs in a process of its own, built as
 * `ctxkit serve` builds it (default policy, stores with the conversation index, a pino log to a file),
 * model gpt-4o (a 128k window: compaction seldom runs), stores in a temp dir or an embedded PostgreSQL
 * (durable settings). Sessions are named by `x-ctxkit-session` ("header") or recognized from the
 * conversation ("recognized", no header).
 *
 * Each target gets the same two loads (`serve-load.ts`), first straight at the upstream, then through the
 * passthrough floor, then through the proxy, one target at a time; "added" is target minus direct:
 * - saturated: autocannon, closed loop, every connection sends again as soon as it is answered: req/s at
 *   full load. Its latency is mostly waiting in line (≈ 50 / req/s).
 * - paced: about `--rate` req/s in all, each conversation thinking a random (exponential) time between
 *   requests: the latency one request sees on a proxy that is not saturated (the added-p99 figure).
 * The passthrough floor (`serve-floor.ts`, its own process, measured as a case is) is the least any proxy
 * that reads the request adds: a bare node:http server that reads the body, JSON.parse + JSON.stringify,
 * fetch to the same upstream with the same headers, the answer streamed back. "over floor" is ctxkit's
 * latency minus the floor's (percentile minus percentile): what ctxkit's own work costs (its HTTP layer,
 * Hono on @hono/node-server, counts as ctxkit's). The floor's saturated phase is capped as the direct
 * one is. The paced latencies are also given for small (body < 50 KB) and large (> 200 KB) requests,
 * each class against the same class direct and through the floor.
 * Memory: the proxy process's RSS and heapUsed every `sampleMs`, and heapUsed after a forced GC at the
 * start and end of the measured phases; slope = least squares over the saturated phase. Proxy CPU per
 * request is its process's CPU time over the saturated phase / requests. Note: 2 load processes (load
 * generator, upstream) share the machine with the proxy (and PostgreSQL), as on a developer machine.
 *
 *   npm run bench:serve [-- --duration <s per saturated phase, default 20> --paced <s, default 15>
 *     --rate <req/s, default 20> --cases sqlite,sqlite-recognized,postgres --max-messages 120
 *     --cpu-prof <dir for the proxy's .cpuprofile> --floor on|off]
 *   npm run bench:serve -- --duration 600          (the 10-minute memory run: ~33 min for 3 cases)
 * A default run takes about 4 minutes (`--floor off` skips the floor: 40 s less).
 * Cases: sqlite, sqlite-recognized, postgres, postgres-recognized, sqlite-small (32k window: compaction).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startTestPostgres, type TestPostgres } from '../src/store/testing/session-store-postgres-server.ts';
import { parseFlags } from './parse-flags.ts';
import { type MemorySeries, memoryChart, type PhaseMark } from './serve-chart.ts';
import { type BenchSession, LoadPlan, loadBenchSessions } from './serve-conversations.ts';
import type { FloorSpec } from './serve-floor.ts';
import {
  LARGE_BODY,
  type LatencySummary,
  type LoadResult,
  type LoadTick,
  runPaced,
  runSaturated,
  SMALL_BODY,
} from './serve-load.ts';
import type { ProxyMessage, ProxySpec } from './serve-proxy.ts';
import { printTable } from './token-bench-support.ts';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = join(BENCH_DIR, '..');
const MODEL = 'gpt-4o';
const MAIN_WINDOW = 128_000;
const SMALL_WINDOW = 32_000;
const SMALL_MODEL = 'ctxkit-bench-small';
/** The direct and floor baselines are the same at any length: their saturated phases are capped. */
const MAX_DIRECT_SECONDS = 30;

interface CaseSpec {
  name: string;
  /** 'none': the passthrough floor (`serve-floor.ts`) instead of ctxkit. */
  store: 'sqlite' | 'postgres' | 'none';
  mode: 'header' | 'recognized';
  model: string;
  window: number;
}

const FLOOR: CaseSpec = { name: 'floor', store: 'none', mode: 'header', model: MODEL, window: MAIN_WINDOW };

const CASES: Record<string, CaseSpec> = {
  sqlite: { name: 'sqlite', store: 'sqlite', mode: 'header', model: MODEL, window: MAIN_WINDOW },
  'sqlite-recognized': {
    name: 'sqlite-recognized',
    store: 'sqlite',
    mode: 'recognized',
    model: MODEL,
    window: MAIN_WINDOW,
  },
  postgres: { name: 'postgres', store: 'postgres', mode: 'header', model: MODEL, window: MAIN_WINDOW },
  'postgres-recognized': {
    name: 'postgres-recognized',
    store: 'postgres',
    mode: 'recognized',
    model: MODEL,
    window: MAIN_WINDOW,
  },
  'sqlite-small': {
    name: 'sqlite-small',
    store: 'sqlite',
    mode: 'header',
    model: SMALL_MODEL,
    window: SMALL_WINDOW,
  },
};

interface Settings {
  connections: number;
  duration: number;
  paced: number;
  rate: number;
  warmup: number;
  maxMessages: number;
  sampleMs: number;
  cases: CaseSpec[];
  floor: boolean;
  cpuProf: string | undefined;
  chart: string;
}

interface Sample {
  t: number;
  rss: number;
  heap: number;
  cpuMs: number;
}

interface HeapMark {
  rss: number;
  heap: number;
  cpuMs: number;
  /** Garbage collection so far, and its full collections (a forced one shows in the next mark's). */
  gcMs: number;
  majorGcMs: number;
}

interface CaseResult {
  spec: CaseSpec;
  saturated: LoadResult;
  paced: LoadResult;
  samples: Sample[];
  phases: PhaseMark[];
  saturatedFrom: number;
  saturatedTo: number;
  marks: { start: HeapMark; afterSaturated: HeapMark; end: HeapMark };
  conversations: number;
  sessionChanges: number;
  /** Where those changes happened: `corpus source#step` → count. */
  changesAt: Map<string, number>;
  meanBodyKb: number;
  /** Mean tokens the proxy sent upstream, and the share of requests it sent fewer than the client's. */
  meanInputTokens: number;
  trimmedShare: number;
  log: ProxyLog;
}

/** What the proxy's own log said over the case: warnings and errors a client may not see. */
interface ProxyLog {
  lines: number;
  warnings: number;
  errors: number;
  /** The most frequent warning or error messages. */
  messages: Map<string, number>;
}

function readProxyLog(file: string): ProxyLog {
  const log: ProxyLog = { lines: 0, warnings: 0, errors: 0, messages: new Map() };
  if (!existsSync(file)) return log;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    log.lines++;
    let entry: { level?: number; msg?: string; err?: { message?: string } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const level = entry.level ?? 0;
    if (level < 40) continue;
    if (level >= 50) log.errors++;
    else log.warnings++;
    const message = `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 160);
    log.messages.set(message, (log.messages.get(message) ?? 0) + 1);
  }
  return log;
}

const MB = 1024 * 1024;
const number = (value: number, digits = 0) =>
  Number.isNaN(value)
    ? '—'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function settings(): Settings {
  const flags = parseFlags(process.argv.slice(2));
  const num = (name: string, fallback: number) => {
    const value = flags.get(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} takes a positive number`);
    return parsed;
  };
  const duration = num('duration', 20);
  const paced = num('paced', 15);
  const names = (flags.get('cases') ?? 'sqlite,sqlite-recognized,postgres').split(',').filter(Boolean);
  const cases = names.map((name) => {
    const spec = CASES[name];
    if (!spec) throw new Error(`unknown case ${name}; known: ${Object.keys(CASES).join(', ')}`);
    return spec;
  });
  const floor = flags.get('floor') ?? 'on';
  if (floor !== 'on' && floor !== 'off') throw new Error('--floor takes on or off');
  const total = duration + paced;
  return {
    connections: num('connections', 50),
    duration,
    paced,
    rate: num('rate', 20),
    warmup: num('warmup', 3),
    maxMessages: num('max-messages', 120),
    // About 200 samples a case, never more often than once a second.
    sampleMs: Math.max(1000, Math.round((total * 1000) / 200)),
    cases,
    floor: floor === 'on',
    cpuProf: flags.get('cpu-prof'),
    chart: flags.get('chart') ?? join(BENCH_DIR, 'results', 'serve-memory.svg'),
  };
}

/** A bench child process (run by tsx) and its IPC messages. */
class Child<M extends { type: string }> {
  readonly process: ChildProcess;
  readonly #waiting = new Map<string, ((message: M) => void)[]>();
  readonly #listeners: ((message: M) => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(script: string, argument: unknown, nodeFlags: string[] = []) {
    this.process = fork(join(BENCH_DIR, script), [JSON.stringify(argument)], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', ...nodeFlags],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
    this.process.on('message', (message: M) => {
      for (const listener of this.#listeners) listener(message);
      const waiters = this.#waiting.get(message.type);
      const next = waiters?.shift();
      next?.(message);
    });
  }

  onMessage(listener: (message: M) => void): void {
    this.#listeners.push(listener);
  }

  next<T extends M['type']>(type: T): Promise<Extract<M, { type: T }>> {
    return new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(type) ?? [];
      waiters.push(resolve as (message: M) => void);
      this.#waiting.set(type, waiters);
      void this.exited.then((code) => reject(new Error(`child ${type}: exited (${code}) before answering`)));
    });
  }

  send(message: { type: string }): void {
    this.process.send(message);
  }
}

function progress(label: string, seconds: number, rss: () => number | undefined) {
  return (tick: LoadTick): void => {
    const memory = rss();
    process.stderr.write(
      `\r  ${label}: ${Math.min(seconds, Math.floor(tick.elapsed))}/${seconds} s, ${number(tick.requests)} answered, ${tick.errors} errors${memory === undefined ? '' : `, proxy rss ${number(memory / MB)} MB`}     `,
    );
  };
}

const endProgress = () => process.stderr.write('\n');

async function runDirect(
  settingsNow: Settings,
  sessions: readonly BenchSession[],
  upstream: string,
): Promise<{ saturated: LoadResult; paced: LoadResult }> {
  const plan = new LoadPlan(sessions, {
    connections: settingsNow.connections,
    mode: 'header',
    runTag: `direct-${randomBytes(3).toString('hex')}`,
    model: MODEL,
  });
  const seconds = Math.min(settingsNow.duration, MAX_DIRECT_SECONDS);
  const none = () => undefined;
  await runSaturated(plan, `${upstream}/v1/chat/completions`, {
    connections: settingsNow.connections,
    seconds: Math.min(settingsNow.warmup, 2),
    onTick: progress('direct: warm-up', Math.min(settingsNow.warmup, 2), none),
  });
  endProgress();
  const saturated = await runSaturated(plan, `${upstream}/v1/chat/completions`, {
    connections: settingsNow.connections,
    seconds,
    onTick: progress('direct: saturated', seconds, none),
  });
  endProgress();
  const paced = await runPaced(plan, upstream, {
    connections: settingsNow.connections,
    rate: settingsNow.rate,
    seconds: settingsNow.paced,
    onTick: progress('direct: paced', settingsNow.paced, none),
  });
  endProgress();
  return { saturated, paced };
}

async function createDatabase(server: TestPostgres, name: string): Promise<string> {
  const admin = postgres(server.url(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return server.url(name);
}

async function runCase(
  spec: CaseSpec,
  settingsNow: Settings,
  sessions: readonly BenchSession[],
  upstream: string,
  postgresServer: TestPostgres | undefined,
): Promise<CaseResult> {
  const runTag = randomBytes(4).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-serve-'));
  let postgresUrl: string | undefined;
  if (spec.store === 'postgres') {
    if (!postgresServer) throw new Error('no PostgreSQL server');
    postgresUrl = await createDatabase(postgresServer, `ctxkit_bench_serve_${runTag}`);
  }
  const floor = spec.store === 'none';
  const proxySpec: ProxySpec | FloorSpec =
    spec.store === 'none'
      ? { upstream, sampleMs: settingsNow.sampleMs }
      : {
          store: spec.store,
          dataDir,
          ...(postgresUrl !== undefined && { postgresUrl }),
          upstream: `${upstream}/v1`,
          contextWindow: spec.window,
          sampleMs: settingsNow.sampleMs,
        };
  const saturatedSeconds = floor ? Math.min(settingsNow.duration, MAX_DIRECT_SECONDS) : settingsNow.duration;
  const flags = ['--expose-gc'];
  if (settingsNow.cpuProf) {
    // One directory a case: the main thread's profile is the largest file (tsx's loader thread writes one too).
    const dir = join(settingsNow.cpuProf, spec.name);
    mkdirSync(dir, { recursive: true });
    flags.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const child = new Child<ProxyMessage>(floor ? 'serve-floor.ts' : 'serve-proxy.ts', proxySpec, flags);
  const samples: Sample[] = [];
  let loadStarted: number | undefined;
  let lastRss: number | undefined;
  child.onMessage((message) => {
    if (message.type !== 'sample') return;
    lastRss = message.rss;
    if (loadStarted === undefined) return;
    samples.push({
      t: (performance.now() - loadStarted) / 1000,
      rss: message.rss / MB,
      heap: message.heapUsed / MB,
      cpuMs: message.cpuMs,
    });
  });
  try {
    const { url } = await child.next('ready');
    const plan = new LoadPlan(sessions, {
      connections: settingsNow.connections,
      mode: spec.mode,
      runTag,
      model: spec.model,
    });
    const target = `${url}/v1/chat/completions`;
    const rss = () => lastRss;
    const mark = async (): Promise<HeapMark> => {
      child.send({ type: 'gc' });
      const answer = await child.next('gc');
      return {
        rss: answer.rss / MB,
        heap: answer.heapUsed / MB,
        cpuMs: answer.cpuMs,
        gcMs: answer.gcMs,
        majorGcMs: answer.majorGcMs,
      };
    };
    loadStarted = performance.now();
    const since = () => (performance.now() - (loadStarted as number)) / 1000;
    await runSaturated(plan, target, {
      connections: settingsNow.connections,
      seconds: settingsNow.warmup,
      onTick: progress(`${spec.name}: warm-up`, settingsNow.warmup, rss),
    });
    endProgress();
    const start = await mark();
    const before = { ...plan.counters, changesAt: new Map(plan.counters.changesAt) };
    const saturatedFrom = since();
    const saturated = await runSaturated(plan, target, {
      connections: settingsNow.connections,
      seconds: saturatedSeconds,
      onTick: progress(`${spec.name}: saturated`, saturatedSeconds, rss),
    });
    endProgress();
    const saturatedTo = since();
    const afterSaturated = await mark();
    const pacedFrom = since();
    const paced = await runPaced(plan, url, {
      connections: settingsNow.connections,
      rate: settingsNow.rate,
      seconds: settingsNow.paced,
      onTick: progress(`${spec.name}: paced`, settingsNow.paced, rss),
    });
    endProgress();
    const end = await mark();
    const requests = plan.counters.requests - before.requests;
    return {
      spec,
      saturated,
      paced,
      samples,
      phases: [
        { label: 'saturated', at: saturatedFrom },
        { label: 'paced', at: pacedFrom },
      ],
      saturatedFrom,
      saturatedTo,
      marks: { start, afterSaturated, end },
      conversations: plan.counters.conversations - before.conversations,
      sessionChanges: plan.counters.sessionChanges - before.sessionChanges,
      changesAt: new Map(
        [...plan.counters.changesAt]
          .map(([at, count]): [string, number] => [at, count - (before.changesAt.get(at) ?? 0)])
          .filter(([, count]) => count > 0),
      ),
      meanBodyKb: requests > 0 ? (plan.counters.bodyBytes - before.bodyBytes) / requests / 1024 : Number.NaN,
      meanInputTokens:
        (plan.counters.inputTokens - before.inputTokens) /
        Math.max(1, plan.counters.managed - before.managed),
      trimmedShare:
        (plan.counters.trimmed - before.trimmed) / Math.max(1, plan.counters.managed - before.managed),
      log: readProxyLog(join(dataDir, 'serve.log')),
    };
  } finally {
    child.send({ type: 'stop' });
    await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (child.process.exitCode === null) child.process.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Least-squares slope of `value` over `t`, per minute. */
function slopePerMinute(points: readonly { t: number; value: number }[]): number {
  if (points.length < 2) return Number.NaN;
  const meanT = points.reduce((sum, point) => sum + point.t, 0) / points.length;
  const meanV = points.reduce((sum, point) => sum + point.value, 0) / points.length;
  let numerator = 0;
  let denominator = 0;
  for (const point of points) {
    numerator += (point.t - meanT) * (point.value - meanV);
    denominator += (point.t - meanT) ** 2;
  }
  return denominator === 0 ? Number.NaN : (numerator / denominator) * 60;
}

/** The commit measured, marked when src/ has changes not committed (read-only git commands). */
function sourceVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted src/ changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

function machine(loadAtStart: number): string {
  const cores = cpus();
  return `${cores.length} × ${cores[0]?.model.trim() ?? 'cpu'}, load average ${loadAtStart.toFixed(2)} at start`;
}

function report(
  settingsNow: Settings,
  context: { version: string; machine: string },
  sessions: readonly BenchSession[],
  direct: { saturated: LoadResult; paced: LoadResult },
  floor: CaseResult | undefined,
  results: readonly CaseResult[],
): void {
  const steps = sessions.reduce((sum, session) => sum + session.steps.length, 0);
  const ms = (value: number) => number(value, 2);
  const signed = (value: number) => (Number.isNaN(value) ? '—' : `${value >= 0 ? '+' : ''}${ms(value)}`);
  const added = (value: number, base: number) => signed(value - base);
  const label = (spec: CaseSpec) =>
    spec.store === 'none'
      ? 'passthrough floor'
      : `proxy ${spec.store}, ${spec.mode === 'header' ? 'header' : 'recognized'}${spec.window === MAIN_WINDOW ? '' : `, ${number(spec.window)} window`}`;
  const targets: { label: string; saturated: LoadResult; paced: LoadResult; ctxkit: boolean }[] = [
    { label: 'direct (no proxy)', saturated: direct.saturated, paced: direct.paced, ctxkit: false },
    ...(floor
      ? [{ label: label(floor.spec), saturated: floor.saturated, paced: floor.paced, ctxkit: false }]
      : []),
    ...results.map((result) => ({
      label: label(result.spec),
      saturated: result.saturated,
      paced: result.paced,
      ctxkit: true,
    })),
  ];
  const isDirect = (target: (typeof targets)[number]) => target.saturated === direct.saturated;
  console.log(
    `\nctxkit serve: ${settingsNow.connections} connections, one conversation each, from ${sessions.length} corpus sessions (${steps} requests a round, histories up to ${settingsNow.maxMessages} messages); model ${MODEL}, ${number(MAIN_WINDOW)} window; upstream answers at once; node ${process.version}`,
  );
  console.log(`source ${context.version}; ${context.machine}`);
  const meanKb = (results[0] ?? floor)?.meanBodyKb;
  if (meanKb !== undefined) console.log(`mean request body: ${number(meanKb, 1)} KB`);

  console.log(
    `\nSaturated: closed loop, ${settingsNow.duration} s per target (direct and floor: ${Math.min(settingsNow.duration, MAX_DIRECT_SECONDS)} s); latency is mostly queueing, ms\n`,
  );
  printTable(
    ['target', 'requests', 'req/s', 'p50', 'p99', 'added p50', 'added p99', 'errors', 'non-2xx'],
    targets.map((target) => {
      const load = target.saturated;
      return [
        target.label,
        number(load.requests),
        number(load.requests / load.seconds),
        ms(load.latency.p50),
        ms(load.latency.p99),
        isDirect(target) ? '' : added(load.latency.p50, direct.saturated.latency.p50),
        isDirect(target) ? '' : added(load.latency.p99, direct.saturated.latency.p99),
        String(load.errors),
        String(load.non2xx),
      ];
    }),
  );

  console.log(
    `\nPaced: about ${settingsNow.rate} req/s offered (exponential think time per conversation), ${settingsNow.paced} s per target; added = minus direct, over floor = ctxkit minus the passthrough floor (percentile minus percentile), ms\n`,
  );
  const overFloor = (target: (typeof targets)[number], pick: (load: LoadResult) => number) =>
    target.ctxkit && floor ? signed(pick(target.paced) - pick(floor.paced)) : '';
  printTable(
    [
      'target',
      'requests',
      'req/s',
      'p50',
      'p90',
      'p99',
      'max',
      'added p50',
      'added p99',
      'over floor p50',
      'over floor p99',
      'errors',
      'non-2xx',
    ],
    targets.map((target) => {
      const load = target.paced;
      return [
        target.label,
        number(load.requests),
        number(load.requests / load.seconds),
        ms(load.latency.p50),
        ms(load.latency.p90),
        ms(load.latency.p99),
        ms(load.latency.max),
        isDirect(target) ? '' : added(load.latency.p50, direct.paced.latency.p50),
        isDirect(target) ? '' : added(load.latency.p99, direct.paced.latency.p99),
        overFloor(target, (paced) => paced.latency.p50),
        overFloor(target, (paced) => paced.latency.p99),
        String(load.errors),
        String(load.non2xx),
      ];
    }),
  );

  console.log(
    `\nPaced, by request body: small < ${SMALL_BODY / 1024} KB, large > ${LARGE_BODY / 1024} KB; each class against the same class direct and through the floor; n = its requests (with a small n, p99 is about the max), ms\n`,
  );
  const classes: { name: string; pick: (load: LoadResult) => LatencySummary }[] = [
    { name: `< ${SMALL_BODY / 1024} KB`, pick: (load) => load.small },
    { name: `> ${LARGE_BODY / 1024} KB`, pick: (load) => load.large },
  ];
  printTable(
    ['target', 'body', 'n', 'p50', 'p99', 'added p50', 'added p99', 'over floor p50', 'over floor p99'],
    targets.flatMap((target) =>
      classes.map(({ name, pick }) => {
        const own = pick(target.paced);
        const base = pick(direct.paced);
        const floorClass = floor ? pick(floor.paced) : undefined;
        return [
          target.label,
          name,
          number(own.count),
          ms(own.p50),
          ms(own.p99),
          isDirect(target) ? '' : added(own.p50, base.p50),
          isDirect(target) ? '' : added(own.p99, base.p99),
          target.ctxkit && floorClass ? added(own.p50, floorClass.p50) : '',
          target.ctxkit && floorClass ? added(own.p99, floorClass.p99) : '',
        ];
      }),
    ),
  );
  console.log(
    `mean paced request body: ${targets.map((target) => `${target.label} ${number(target.paced.meanBodyBytes / 1024, 1)} KB`).join('; ')}`,
  );

  console.log(
    `\nProxy process memory, MB (sampled every ${settingsNow.sampleMs / 1000} s from the saturated phase's start to the end; slope over the saturated phase; heap after a forced GC)\n`,
  );
  printTable(
    [
      'case',
      'rss start',
      'rss end',
      'rss max',
      'rss MB/min',
      'heap MB/min',
      'heap after GC: start',
      'end',
      'conversations',
      'KB/conversation',
      'CPU ms/req',
      'GC ms/req',
      'full GC ms/req',
    ],
    [...(floor ? [floor] : []), ...results].map((result) => {
      const measured = result.samples.filter((sample) => sample.t >= result.saturatedFrom);
      const saturated = measured.filter((sample) => sample.t <= result.saturatedTo);
      const grown = result.marks.end.heap - result.marks.start.heap;
      const cpu = result.marks.afterSaturated.cpuMs - result.marks.start.cpuMs;
      const requests = Math.max(1, result.saturated.requests);
      const gc = result.marks.afterSaturated.gcMs - result.marks.start.gcMs;
      const majorGc = result.marks.afterSaturated.majorGcMs - result.marks.start.majorGcMs;
      return [
        result.spec.name,
        number(measured[0]?.rss ?? Number.NaN),
        number(measured[measured.length - 1]?.rss ?? Number.NaN),
        number(Math.max(...measured.map((sample) => sample.rss))),
        number(slopePerMinute(saturated.map((sample) => ({ t: sample.t, value: sample.rss }))), 1),
        number(slopePerMinute(saturated.map((sample) => ({ t: sample.t, value: sample.heap }))), 1),
        number(result.marks.start.heap, 1),
        number(result.marks.end.heap, 1),
        number(result.conversations),
        result.conversations > 0 ? number((grown * 1024) / result.conversations, 1) : '—',
        number(cpu / requests, 2),
        number(gc / requests, 2),
        number(majorGc / requests, 2),
      ];
    }),
  );
  for (const result of results) {
    const { log } = result;
    const top = [...log.messages]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([message, count]) => `${JSON.stringify(message)} ×${count}`)
      .join('; ');
    console.log(
      `${result.spec.name}: mean ${number(result.meanInputTokens)} tokens sent upstream; ${number(result.trimmedShare * 100, 1)} % of requests sent fewer tokens than the client's (compaction, offload); proxy log ${number(log.lines)} lines, ${log.warnings} warnings, ${log.errors} errors${top ? ` (${top})` : ''}`,
    );
  }
  // The figures a goal is stated in, plainly: CPU per request over the saturated phase, and the paced
  // latency ctxkit adds over the passthrough floor.
  const cpuPerRequest = (result: CaseResult) =>
    (result.marks.afterSaturated.cpuMs - result.marks.start.cpuMs) / Math.max(1, result.saturated.requests);
  console.log('\nGoal figures:');
  if (floor) console.log(`  passthrough floor: CPU ${ms(cpuPerRequest(floor))} ms/request`);
  for (const result of results)
    console.log(
      `  ${result.spec.name}: CPU ${ms(cpuPerRequest(result))} ms/request${floor ? ` (floor ${ms(cpuPerRequest(floor))})` : ''}; added latency p50 / p99 ${signed(result.paced.latency.p50 - direct.paced.latency.p50)} / ${signed(result.paced.latency.p99 - direct.paced.latency.p99)} ms${floor ? ` (floor ${signed(floor.paced.latency.p50 - direct.paced.latency.p50)} / ${signed(floor.paced.latency.p99 - direct.paced.latency.p99)}); over the floor p50 / p99 ${signed(result.paced.latency.p50 - floor.paced.latency.p50)} / ${signed(result.paced.latency.p99 - floor.paced.latency.p99)} ms` : ''}`,
    );
  const recognized = results.filter((result) => result.spec.mode === 'recognized');
  for (const result of recognized) {
    const where = [...result.changesAt]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([at, count]) => `${at} ×${count}`)
      .join(', ');
    console.log(
      `${result.spec.name}: ${result.sessionChanges} answers named another session than their conversation's previous answer (0: every conversation recognized)${where ? `; at corpus source#step: ${where}` : ''}`,
    );
  }
}

async function main(): Promise<void> {
  const now = settings();
  const context = { version: sourceVersion(), machine: machine(loadavg()[0] ?? Number.NaN) };
  process.stderr.write(`  loading ${now.maxMessages}-message corpus conversations\n`);
  const sessions = loadBenchSessions(now.maxMessages);
  const upstreamChild = new Child<{ type: 'ready'; url: string }>('serve-upstream.ts', {
    maxMessages: now.maxMessages,
    model: MODEL,
  });
  let postgresServer: TestPostgres | undefined;
  try {
    const { url: upstream } = await upstreamChild.next('ready');
    const direct = await runDirect(now, sessions, upstream);
    const floor = now.floor ? await runCase(FLOOR, now, sessions, upstream, undefined) : undefined;
    if (now.cases.some((spec) => spec.store === 'postgres')) {
      postgresServer = await startTestPostgres({ onProgress: (line) => process.stderr.write(`  ${line}\n`) });
    }
    const results: CaseResult[] = [];
    for (const spec of now.cases) results.push(await runCase(spec, now, sessions, upstream, postgresServer));
    report(now, context, sessions, direct, floor, results);
    const series: MemorySeries[] = [...results, ...(floor ? [floor] : [])].map((result) => ({
      label: result.spec.store === 'none' ? 'passthrough floor' : result.spec.name,
      points: result.samples.map((sample) => ({ t: sample.t, rss: sample.rss, heap: sample.heap })),
    }));
    mkdirSync(dirname(now.chart), { recursive: true });
    writeFileSync(
      now.chart,
      memoryChart(
        `ctxkit serve: proxy memory, ${now.connections} conversations (${now.duration} s saturated, ${now.paced} s paced)`,
        series,
        results[0]?.phases ?? [],
      ),
    );
    console.log(`\nmemory chart: ${relative(process.cwd(), now.chart)}`);
    if (now.cpuProf)
      console.log(
        `proxy CPU profiles: ${now.cpuProf}/<case>/*.cpuprofile (the main thread's is the largest)`,
      );
  } finally {
    upstreamChild.process.disconnect();
    await postgresServer?.stop();
  }
}

await main();
