/**
 * One huge request (a client resending a history of 160,000 tiny messages) on the proxy as `ctxkit
 * serve` builds it (SQLite stores, the conversation index beside them): it takes time in proportion to
 * its size, and it keeps no more memory after it than a small one. `bench/serve-huge-body.ts` measures
 * the same up to the largest body taken (32 MiB), and how other requests are answered meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openServeStores } from '../cli/serve-command.ts';
import { PRESETS } from '../core/policy/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { memoryReducingCollection } from './release-memory.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An upstream that reads what it is sent and answers at once. */
const upstream: typeof fetch = async (_input, init) => {
  const sent = (await new Response(init?.body).arrayBuffer()).byteLength;
  return new Response(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'OK.' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: Math.ceil(sent / 4),
        completion_tokens: 2,
        total_tokens: Math.ceil(sent / 4) + 2,
      },
    }),
    { status: 200, headers: { 'content-type': 'application/json' } },
  );
};

async function startServe(): Promise<RunningProxy> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ctxkit-huge-'));
  const stores = await openServeStores(dataDir, undefined, () => {});
  const manager = createContextManager({
    policy: PRESETS.default,
    store: stores.store,
    blobs: stores.blobs,
    trace: stores.trace,
  });
  const proxy = await startProxyServer({
    manager,
    upstream: 'http://upstream.test/v1',
    fetch: upstream,
    detectWindow: false,
    conversations: stores.conversations,
    sessions: stores.store,
    trace: stores.trace,
  });
  cleanups.push(async () => {
    await proxy.close(0);
    await manager.flushTrace();
    await stores.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return proxy;
}

/** A Chat Completions body of `count` tiny messages, each its own (`tag` keeps requests apart). */
function hugeBody(count: number, tag: string): string {
  const messages = [];
  for (let index = 0; index < count; index++)
    messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: `${tag} ${index}` });
  return JSON.stringify({ model: 'gpt-4o', messages });
}

const chat = (proxy: RunningProxy, body: string, headers: Record<string, string> = {}) =>
  fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

/** Seconds to answer a request of `count` messages. */
async function timed(proxy: RunningProxy, count: number, tag: string): Promise<number> {
  const body = hugeBody(count, tag);
  const started = performance.now();
  const response = await chat(proxy, body);
  await response.text();
  expect(response.status).toBe(200);
  return (performance.now() - started) / 1000;
}

const heapUsed = (collect: () => void): number => {
  collect();
  return process.memoryUsage().heapUsed;
};

it('handles a request of 160,000 messages in time linear in its size, and keeps no memory of it', {
  timeout: 240_000,
}, async () => {
  const collect = memoryReducingCollection();
  expect(collect).toBeTypeOf('function');
  const proxy = await startServe();
  // Warm: the exact tokenizer's tables, the statements, the code paths.
  await timed(proxy, 2_000, 'warm');
  const small = await timed(proxy, 40_000, 'small');
  const before = heapUsed(collect as () => void);
  const large = await timed(proxy, 160_000, 'large');
  // 4x the messages: 21x the time before (the token caches evicted one entry at a time past 100,000).
  expect(large / small).toBeLessThan(6);
  // Its session (all of it) stayed loaded: 0.3 GB of heap for 400,000 messages.
  const after = heapUsed(collect as () => void);
  expect((after - before) / 1024 / 1024).toBeLessThan(60);
});

/** Latencies (ms) of `ask`, asked again 5 ms after each answer until `stop`. */
async function probe(ask: () => Promise<boolean>, stop: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!stop()) {
    const started = performance.now();
    expect(await ask()).toBe(true);
    latencies.push(performance.now() - started);
    await new Promise((done) => setTimeout(done, 5));
  }
  return latencies;
}

const p99 = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
};

it('answers /healthz and a small call on another session within 100 ms (p99) while it handles 160,000 messages', {
  timeout: 240_000,
}, async () => {
  const proxy = await startServe();
  await timed(proxy, 2_000, 'warm');
  const body = hugeBody(160_000, 'large');
  const smallCall = JSON.stringify({
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'still there?' },
    ],
  });
  let done = false;
  const stop = () => done;
  const health = probe(
    async () => (await (await fetch(`${proxy.url}/healthz`)).text()) === '{"ok":true}',
    stop,
  );
  const calls = probe(async () => (await chat(proxy, smallCall, { 'x-ctxkit-session': 'other' })).ok, stop);
  const response = await chat(proxy, body);
  await response.text();
  done = true;
  const [healthLatencies, callLatencies] = await Promise.all([health, calls]);
  expect(response.status).toBe(200);
  // The request held the thread for seconds at a time: /healthz waited up to 48 s behind 400,000.
  expect(healthLatencies.length).toBeGreaterThan(20);
  expect(p99(healthLatencies)).toBeLessThan(100);
  expect(p99(callLatencies)).toBeLessThan(100);
});
