/**
 * `ctxkit serve` given one huge request: a Chat Completions body of N tiny messages (a client resending a
 * history of hundreds of thousands), up to the largest the proxy takes (32 MiB). Numbers only; nothing
 * here passes or fails.
 *
 * Set-up: the proxy as `ctxkit serve` builds it (`serve-proxy.ts`: default policy, SQLite stores with the
 * conversation index in a temp dir, its own process, `--expose-gc`), in front of the bench's upstream
 * (`serve-upstream.ts`, answering "OK." at once), model gpt-4o (a 128k window: the history is compacted).
 * Each size is a new conversation (no session header: it is recognized, recorded, and its session made).
 *
 * For each size it prints:
 * - the time of the request, and per 1,000 messages (equal figures: time linear in the messages);
 * - while the request is being handled: the latency of `GET /healthz`, asked again every `--probe-ms`,
 *   and of a small model call (two messages) on a session of its own, asked again as soon as answered;
 *   p50, p99 and max of each;
 * - the proxy's memory (RSS and heap used): before (after a full collection), the largest RSS sampled
 *   during, after (a full collection), and after `--settle-s` seconds idle (when the proxy gives memory
 *   back by itself, RSS).
 *
 *   npm run bench:serve-huge [-- --sizes 100000,400000,max --probe-ms 10 --settle-s 4]
 * `max`: as many messages as fit 32 MiB (about 790,000). Each size has a proxy of its own. A default run
 * takes about a minute.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_BODY_BYTES } from '../src/server/proxy-options.ts';
import { parseFlags } from './parse-flags.ts';
import type { ProxyMessage, ProxySpec } from './serve-proxy.ts';
import { percentile } from './token-bench-support.ts';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = join(BENCH_DIR, '..');
const MODEL = 'gpt-4o';
const MB = 1024 * 1024;

interface Settings {
  sizes: Array<number | 'max'>;
  probeMs: number;
  settleS: number;
}

function settings(): Settings {
  const flags = parseFlags(process.argv.slice(2));
  return {
    sizes: (flags.get('sizes') ?? '100000,400000,max')
      .split(',')
      .map((size) => (size.trim() === 'max' ? 'max' : Number(size))),
    probeMs: Number(flags.get('probe-ms') ?? 10),
    settleS: Number(flags.get('settle-s') ?? 4),
  };
}

/** A bench child process (run by tsx) and its IPC messages. */
class Child<M extends { type: string }> {
  readonly process: ChildProcess;
  readonly #waiting = new Map<string, ((message: M) => void)[]>();
  readonly #listeners: ((message: M) => void)[] = [];

  constructor(script: string, argument: unknown, nodeFlags: string[] = []) {
    this.process = fork(join(BENCH_DIR, script), [JSON.stringify(argument)], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', ...nodeFlags],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.process.on('message', (message: M) => {
      for (const listener of this.#listeners) listener(message);
      this.#waiting.get(message.type)?.shift()?.(message);
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
      this.process.once('exit', (code) => reject(new Error(`${type}: the child exited (${code})`)));
    });
  }

  send(message: { type: string }): void {
    this.process.send(message);
  }
}

/** The body of a Chat Completions request of `count` tiny messages, each its own (`tag` keeps runs apart). */
function hugeBody(count: number, tag: string): string {
  const messages = [];
  for (let index = 0; index < count; index++)
    messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: `${tag}${index}` });
  return JSON.stringify({ model: MODEL, messages });
}

/** As many messages as a body of `bytes` holds. */
function messagesFitting(bytes: number, tag: string): number {
  const perMessage = hugeBody(10_000, tag).length / 10_000;
  let count = Math.floor((bytes / perMessage) * 0.99);
  while (Buffer.byteLength(hugeBody(count, tag)) > bytes) count = Math.floor(count * 0.995);
  return count;
}

interface Latencies {
  values: number[];
  errors: number;
}

/** Asks `ask` again and again (`gapMs` apart) until `stop`, timing each answer. */
async function probe(ask: () => Promise<boolean>, gapMs: number, stop: () => boolean): Promise<Latencies> {
  const result: Latencies = { values: [], errors: 0 };
  while (!stop()) {
    const started = performance.now();
    const ok = await ask().catch(() => false);
    if (ok) result.values.push(performance.now() - started);
    else result.errors++;
    if (gapMs > 0) await new Promise((done) => setTimeout(done, gapMs));
  }
  return result;
}

const summary = (latencies: Latencies): string => {
  const { values } = latencies;
  if (values.length === 0) return 'none answered';
  const fixed = (value: number) => value.toFixed(value < 10 ? 1 : 0);
  return `p50 ${fixed(percentile(values, 0.5))} · p99 ${fixed(percentile(values, 0.99))} · max ${fixed(Math.max(...values))} ms (${values.length}${latencies.errors ? `, ${latencies.errors} failed` : ''})`;
};

async function main(): Promise<void> {
  const now = settings();
  const upstreamChild = new Child<{ type: 'ready'; url: string }>('serve-upstream.ts', {
    maxMessages: 0,
    model: MODEL,
  });
  try {
    const { url: upstream } = await upstreamChild.next('ready');
    const rows: string[] = [];
    const timings: { messages: number; seconds: number }[] = [];
    for (const size of now.sizes) {
      const tag = `run${timings.length}-`;
      const messages = size === 'max' ? messagesFitting(DEFAULT_MAX_BODY_BYTES, tag) : size;
      // A proxy of its own for each size: its memory before is a fresh server's.
      const measured = await measure(now, upstream, messages, tag);
      timings.push({ messages, seconds: measured.seconds });
      rows.push(measured.row);
      process.stderr.write(`  ${messages} messages: ${measured.seconds.toFixed(2)} s\n`);
    }
    console.log(`ctxkit serve, one huge request (SQLite stores, ${MODEL}, 128k window)\n`);
    console.log(rows.join('\n\n'));
    const first = timings[0];
    if (first && timings.length > 1) {
      console.log('\nTime against the smallest (linear: the same ratio as the messages):');
      for (const timing of timings.slice(1))
        console.log(
          `  ${(timing.messages / first.messages).toFixed(1)}x the messages: ${(timing.seconds / first.seconds).toFixed(1)}x the time`,
        );
    }
  } finally {
    upstreamChild.process.kill();
  }
}

/** One size, on a proxy of its own: the request's time, the probes' latencies and the memory. */
async function measure(
  now: Settings,
  upstream: string,
  messages: number,
  tag: string,
): Promise<{ seconds: number; row: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ctxkit-huge-body-'));
  const spec: ProxySpec = {
    store: 'sqlite',
    dataDir,
    upstream: `${upstream}/v1`,
    contextWindow: 128_000,
    sampleMs: 50,
  };
  const proxy = new Child<ProxyMessage>('serve-proxy.ts', spec, ['--expose-gc']);
  try {
    const { url } = await proxy.next('ready');
    let peakRss = 0;
    proxy.onMessage((message) => {
      if (message.type === 'sample') peakRss = Math.max(peakRss, message.rss);
    });
    const collected = async () => {
      proxy.send({ type: 'gc' });
      return proxy.next('gc');
    };
    const chat = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    // Warm: the exact tokenizer's tables, the statements, the code paths.
    for (let round = 0; round < 3; round++) await (await chat(hugeBody(2_000, `warm${round}-`))).text();
    const body = hugeBody(messages, tag);
    const before = await collected();
    peakRss = before.rss;
    let done = false;
    const stop = () => done;
    const small = JSON.stringify({
      model: MODEL,
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
        { role: 'user', content: 'still there?' },
      ],
    });
    const healthz = probe(
      async () => (await (await fetch(`${url}/healthz`)).text()).includes('"ok":true'),
      now.probeMs,
      stop,
    );
    const calls = probe(
      async () => (await chat(small, { 'x-ctxkit-session': 'small' })).ok,
      now.probeMs,
      stop,
    );
    const started = performance.now();
    const response = await chat(body);
    await response.text();
    const seconds = (performance.now() - started) / 1000;
    done = true;
    const [health, call] = await Promise.all([healthz, calls]);
    const after = await collected();
    // Idle, as a server is between requests: it may give memory back by itself meanwhile.
    await new Promise((settle) => setTimeout(settle, now.settleS * 1000));
    const settledRss = (await proxy.next('sample')).rss;
    const row = [
      `${messages.toLocaleString('en')} messages, ${(Buffer.byteLength(body) / MB).toFixed(1)} MiB: ${response.status}, ${seconds.toFixed(2)} s (${((seconds * 1000) / (messages / 1000)).toFixed(1)} ms per 1,000 messages)`,
      `  /healthz meanwhile:            ${summary(health)}`,
      `  small call, another session:   ${summary(call)}`,
      `  memory: RSS ${(before.rss / MB).toFixed(0)} MB before, ${(peakRss / MB).toFixed(0)} MB at most during, ${(after.rss / MB).toFixed(0)} MB after (a collection), ${(settledRss / MB).toFixed(0)} MB ${now.settleS} s later; heap used after a collection ${(before.heapUsed / MB).toFixed(0)} MB before, ${(after.heapUsed / MB).toFixed(0)} MB after`,
    ].join('\n');
    return { seconds, row };
  } finally {
    proxy.send({ type: 'stop' });
    await new Promise((settle) => setTimeout(settle, 500));
    proxy.process.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`serve-huge-body: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
