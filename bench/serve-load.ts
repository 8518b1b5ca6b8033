/**
 * The two loads of `bench/serve.ts`, both with one conversation per connection (`LoadPlan`):
 *
 * - saturated: autocannon, each connection sending its next request as soon as the last is answered
 *   (closed loop): the most requests per second the target serves. Latency here is mostly queueing
 *   (≈ connections / rate).
 * - paced: each connection waits a random think time (exponential, mean `connections / rate` seconds)
 *   after an answer, so requests arrive spread out at about `rate` per second, as from agents whose
 *   model takes time: the latency of one request on a server that is not saturated. A small node:http
 *   client (autocannon's rate limit fires each connection's requests together at every second's start).
 *
 * Latencies are kept whole (ms, as floats: autocannon's histogram rounds to whole ms), each with its
 * request's body size, so a result also has them for small (< `SMALL_BODY`) and large (> `LARGE_BODY`)
 * requests.
 */
import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { LoadPlan } from './serve-conversations.ts';
import { type AnswerHeaders, answerHeaders } from './serve-conversations.ts';

/** Body sizes (bytes) of the small and large request classes. */
export const SMALL_BODY = 50 * 1024;
export const LARGE_BODY = 200 * 1024;

export interface LoadResult {
  seconds: number;
  requests: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  latency: LatencySummary;
  /** The same for requests whose body is under `SMALL_BODY`, and over `LARGE_BODY`. */
  small: LatencySummary;
  large: LatencySummary;
  /** Mean body of the answered (2xx) requests, bytes. */
  meanBodyBytes: number;
}

export interface LatencySummary {
  /** Latencies summarized (answered 2xx). */
  count: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** What a run reports each second, for the progress line. */
export interface LoadTick {
  elapsed: number;
  requests: number;
  errors: number;
}

function summarize(values: Float64Array): LatencySummary {
  const sorted = values.slice().sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  let total = 0;
  for (const value of sorted) total += value;
  return {
    count: sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    mean: sorted.length > 0 ? total / sorted.length : Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Latencies (ms) with their requests' body sizes (bytes). */
class Latencies {
  #values = new Float64Array(1 << 16);
  #bytes = new Float64Array(1 << 16);
  #size = 0;

  push(ms: number, bodyBytes: number): void {
    if (this.#size === this.#values.length) {
      const values = new Float64Array(this.#values.length * 2);
      values.set(this.#values);
      this.#values = values;
      const bytes = new Float64Array(this.#bytes.length * 2);
      bytes.set(this.#bytes);
      this.#bytes = bytes;
    }
    this.#values[this.#size] = ms;
    this.#bytes[this.#size++] = bodyBytes;
  }

  summaries(): Pick<LoadResult, 'latency' | 'small' | 'large' | 'meanBodyBytes'> {
    const values = this.#values.subarray(0, this.#size);
    const bytes = this.#bytes.subarray(0, this.#size);
    const where = (keep: (bodyBytes: number) => boolean) =>
      Float64Array.from(values.filter((_, index) => keep(bytes[index] as number)));
    let totalBytes = 0;
    for (const value of bytes) totalBytes += value;
    return {
      latency: summarize(values),
      small: summarize(where((bodyBytes) => bodyBytes < SMALL_BODY)),
      large: summarize(where((bodyBytes) => bodyBytes > LARGE_BODY)),
      meanBodyBytes: this.#size > 0 ? totalBytes / this.#size : Number.NaN,
    };
  }
}

interface AutocannonClient {
  setHeadersAndBody(headers: Record<string, string>, body: Buffer): void;
  on(event: 'response', listener: (status: number, bytes: number, ms: number) => void): void;
  on(event: 'headers', listener: (info: { headers: string[] }) => void): void;
}

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  duration: number;
}

type Autocannon = (
  options: {
    url: string;
    connections: number;
    duration: number;
    method: string;
    timeout: number;
    setupClient: (client: AutocannonClient) => void;
  },
  done: (error: Error | null, result: AutocannonResult) => void,
) => unknown;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function ticker(
  started: number,
  counts: () => { requests: number; errors: number },
  onTick: (tick: LoadTick) => void,
) {
  return setInterval(() => onTick({ elapsed: (performance.now() - started) / 1000, ...counts() }), 1000);
}

/** Closed loop with autocannon: `connections` conversations, each request sent as soon as the last is answered. */
export function runSaturated(
  plan: LoadPlan,
  url: string,
  options: { connections: number; seconds: number; onTick: (tick: LoadTick) => void },
): Promise<LoadResult> {
  const latencies = new Latencies();
  let requests = 0;
  let errors = 0;
  let next = 0;
  plan.newPhase();
  const started = performance.now();
  const timer = ticker(started, () => ({ requests, errors }), options.onTick);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: options.connections,
        duration: options.seconds,
        method: 'POST',
        timeout: 30,
        setupClient: (client) => {
          const index = next++;
          let answer: AnswerHeaders = {};
          const first = plan.request(index);
          client.setHeadersAndBody(first.headers, first.body);
          client.on('headers', (info) => {
            const raw = info.headers;
            answer = answerHeaders((name) => {
              for (let at = 0; at < raw.length; at += 2)
                if (raw[at]?.toLowerCase() === name) return raw[at + 1];
              return undefined;
            });
          });
          client.on('response', (status, _bytes, ms) => {
            requests++;
            if (status >= 200 && status < 300) latencies.push(ms, plan.request(index).body.length);
            plan.advance(index, answer);
            const request = plan.request(index);
            client.setHeadersAndBody(request.headers, request.body);
          });
        },
      },
      (error, result) => {
        clearInterval(timer);
        if (error) {
          reject(error);
          return;
        }
        errors = result.errors + result.timeouts;
        resolve({
          seconds: (performance.now() - started) / 1000,
          requests,
          errors,
          non2xx: result.non2xx,
          ...latencies.summaries(),
        });
      },
    );
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Open-ish loop: each conversation thinks (exponential, mean connections / rate s) between requests. */
export async function runPaced(
  plan: LoadPlan,
  url: string,
  options: { connections: number; rate: number; seconds: number; onTick: (tick: LoadTick) => void },
): Promise<LoadResult> {
  const target = new URL('/v1/chat/completions', url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies = new Latencies();
  plan.newPhase();
  const meanGapMs = (options.connections / options.rate) * 1000;
  const thinkMs = () => -Math.log(1 - Math.random()) * meanGapMs;
  let requests = 0;
  let errors = 0;
  let non2xx = 0;
  const started = performance.now();
  const until = started + options.seconds * 1000;
  const timer = ticker(started, () => ({ requests, errors }), options.onTick);
  const connection = async (index: number): Promise<void> => {
    await sleep(Math.random() * meanGapMs);
    while (performance.now() < until) {
      const { headers, body } = plan.request(index);
      const sent = performance.now();
      try {
        const answer = await post(agent, target, headers, body);
        const ms = performance.now() - sent;
        requests++;
        if (answer.status >= 200 && answer.status < 300) latencies.push(ms, body.length);
        else non2xx++;
        plan.advance(index, answer.headers);
      } catch {
        errors++;
      }
      await sleep(Math.min(thinkMs(), Math.max(0, until - performance.now())));
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, (_, index) => connection(index)));
  } finally {
    clearInterval(timer);
    agent.destroy();
  }
  return {
    seconds: (performance.now() - started) / 1000,
    requests,
    errors,
    non2xx,
    ...latencies.summaries(),
  };
}

function post(
  agent: Agent,
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; headers: AnswerHeaders }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(body.length) },
        timeout: 30_000,
      },
      (response) => {
        response.on('error', reject);
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: answerHeaders((name) => {
              const value = response.headers[name];
              return typeof value === 'string' ? value : undefined;
            }),
          });
        });
        response.resume();
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end(body);
  });
}
