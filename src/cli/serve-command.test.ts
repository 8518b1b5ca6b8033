import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { capturingLogger } from '../server/testing/capturing-logger.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { DAY_MS } from '../store/retention.ts';
import { createSqliteSessionStore } from '../store/sqlite-session-store.ts';
import { createMemoryTraceStore } from '../store/trace-store.ts';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { startServeRetention } from './serve-command.ts';
import { runCtxkit } from './testing/run-ctxkit.ts';
import { type ServeProcess, startServeProcess } from './testing/serve-process.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
let upstream: FakeProviderServer | undefined;
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await upstream?.close();
  upstream = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-serve-'));
  dirs.push(dir);
  return dir;
}

type Served = ServeProcess;

/** `ctxkit serve` as a user starts it, on a free port, in a temporary directory; killed after the test. */
async function serve(args: readonly string[]): Promise<Served> {
  const served = await startServeProcess(args, { cwd: tempDir() });
  children.push(served.child);
  return served;
}

describe('ctxkit serve', () => {
  it('refuses to listen beyond loopback without a token, naming the flag', async () => {
    const run = await runCtxkit(['serve', '--host', '0.0.0.0', '--data', tempDir()], { cwd: tempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--token');
    expect(run.stderr).toContain('CTXKIT_TOKEN');
  });

  it('names the flag of a bad upstream, port, token or upstream timeout', async () => {
    const cwd = tempDir();
    const upstreamRun = await runCtxkit(['serve', '--upstream', 'ftp://x'], { cwd });
    expect(upstreamRun.code).toBe(2);
    expect(upstreamRun.stderr).toContain('--upstream: must be an http');
    const portRun = await runCtxkit(['serve', '--port', '70000'], { cwd });
    expect(portRun.code).toBe(2);
    expect(portRun.stderr).toContain('--port');
    const tokenRun = await runCtxkit(['serve', '--port', '0'], { cwd, env: { CTXKIT_TOKEN: 'short' } });
    expect(tokenRun.code).toBe(2);
    expect(tokenRun.stderr).toContain('CTXKIT_TOKEN: a token must be at least 16 characters');
    const heldRun = await runCtxkit(['serve', '--max-held-sessions', '0', '--store', 'postgres://x/y'], {
      cwd,
    });
    expect(heldRun.code).toBe(2);
    expect(heldRun.stderr).toContain('--max-held-sessions');
    const sqliteHeldRun = await runCtxkit(['serve', '--max-held-sessions', '8'], { cwd });
    expect(sqliteHeldRun.code).toBe(2);
    expect(sqliteHeldRun.stderr).toContain('--max-held-sessions: applies to --store');
    for (const bad of ['0', '301', '1.5']) {
      const timeoutRun = await runCtxkit(['serve', '--upstream-timeout', bad], { cwd });
      expect(timeoutRun.code, bad).toBe(2);
      expect(timeoutRun.stderr, bad).toContain(
        `--upstream-timeout: expected a whole number of seconds from 1 to 300, got "${bad}"`,
      );
    }
  });

  it('gives up on a silent upstream after --upstream-timeout seconds: a 504', async () => {
    const silent = createServer((req) => req.resume());
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const { port } = silent.address() as AddressInfo;
      const served = await serve([
        '--data',
        tempDir(),
        '--upstream',
        `http://127.0.0.1:${port}/v1`,
        '--window',
        '16000',
        '--upstream-timeout',
        '1',
      ]);
      const started = performance.now();
      const response = await fetch(`${served.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'anyone there?' }] }),
      });
      expect(response.status).toBe(504);
      expect(await response.text()).toContain('the upstream sent nothing for 1 s');
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(await served.stop()).toBe(0);
    } finally {
      silent.closeAllConnections();
      await new Promise((done) => silent.close(done));
    }
  });

  it('serves a client, keeps its session in SQLite, stops cleanly on SIGTERM and recognizes the conversation after a restart', async () => {
    upstream = await startFakeProviderServer({ fallback: openAIReply({ content: 'served' }) });
    const data = tempDir();
    const args = ['--data', data, '--upstream', upstream.openAIBaseUrl, '--window', '16000'];
    const first = await serve(args);
    const key = 'sk-cli-test-key-1234567890';
    const client = new OpenAI({ baseURL: `${first.url}/v1`, apiKey: key });
    const opening = [{ role: 'user' as const, content: 'hello over the CLI' }];
    const { data: answer, response } = await client.chat.completions
      .create({ model: 'gpt-4o', messages: opening })
      .withResponse();
    expect(answer.choices[0]?.message.content).toBe('served');
    const session = response.headers.get('x-ctxkit-session');
    const history = [
      ...opening,
      answer.choices[0]?.message ?? { role: 'assistant' as const, content: '' },
      { role: 'user' as const, content: 'and again' },
    ];
    const again = await client.chat.completions.create({ model: 'gpt-4o', messages: history }).withResponse();
    expect(again.response.headers.get('x-ctxkit-session')).toBe(session);
    expect(await first.stop()).toBe(0);
    expect(first.stdout()).toContain(`OpenAI clients:    base URL ${first.url}/v1`);
    // One JSON line per model call; the key is never in it.
    const calls = first
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"model call"'))
      .map((line) => JSON.parse(line) as { session: string; status: number });
    expect(calls).toEqual([
      expect.objectContaining({ session, status: 200, origin: 'new' }),
      expect.objectContaining({ session, status: 200, origin: 'continued' }),
    ]);
    expect(first.stderr()).not.toContain('sk-cli-test-key');
    // Retention swept on start (the default policy keeps idle sessions 30 days): nothing was idle.
    expect(first.stderr()).toMatch(/"removed":0,.*"msg":"retention sweep"/);

    // A restarted server still knows the conversation: its next request continues the same session.
    const second = await serve(args);
    const resumed = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: key });
    const third = await resumed.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [
          ...history,
          again.data.choices[0]?.message ?? { role: 'assistant' as const, content: '' },
          { role: 'user' as const, content: 'after the restart' },
        ],
      })
      .withResponse();
    expect(third.response.headers.get('x-ctxkit-session')).toBe(session);
    expect(await second.stop()).toBe(0);

    const store = await createSqliteSessionStore({ dataDir: data });
    try {
      const sessions = await store.list();
      expect(sessions).toHaveLength(1);
      const stored = await store.load(sessions[0]?.id ?? '');
      expect(stored?.log.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('ctxkit serve stopping', () => {
  it('lets a stream in flight finish on SIGTERM, then exits 0', async () => {
    upstream = await startFakeProviderServer();
    upstream.enqueue({ ...openAIReply({ content: 'y'.repeat(240) }), eventDelayMs: 40 });
    const served = await serve([
      '--data',
      tempDir(),
      '--upstream',
      upstream.openAIBaseUrl,
      '--window',
      '16000',
    ]);
    const response = await fetch(`${served.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    // The stream has begun: the server is told to stop while it is still being answered.
    const exited = served.stop();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    expect(text).toContain('data: [DONE]');
    const content = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map(
        (line) =>
          (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]
            ?.delta?.content ?? '',
      )
      .join('');
    expect(content).toBe('y'.repeat(240));
    expect(await exited).toBe(0);
  }, 30_000);
});

describe('ctxkit serve closing', () => {
  it('answers a request in flight at SIGTERM with Connection: close, so a kept-alive client does not reuse it', async () => {
    upstream = await startFakeProviderServer();
    upstream.enqueue({ ...openAIReply({ content: 'late' }), delayMs: 800 });
    const served = await serve([
      '--data',
      tempDir(),
      '--upstream',
      upstream.openAIBaseUrl,
      '--window',
      '16000',
    ]);
    const agent = new Agent({ keepAlive: true });
    const answer = new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const request = httpRequest(
          `${served.url}/v1/chat/completions`,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (response) => {
            let body = '';
            response.on('data', (chunk) => {
              body += String(chunk);
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }),
            );
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'go' }] }));
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = served.stop();
    const { status, connection, body } = await answer;
    expect(status).toBe(200);
    expect(body).toContain('late');
    expect(connection).toBe('close');
    expect(await exited).toBe(0);
    agent.destroy();
  }, 30_000);
});

describe('the retention of ctxkit serve', () => {
  function setUp(maxIdleDays: number) {
    const store = createMemorySessionStore();
    const blobs = createMemoryBlobStore();
    const trace = createMemoryTraceStore();
    const policy = { ...PRESETS.default, retention: { ...PRESETS.default.retention, maxIdleDays } };
    const manager = createContextManager({ policy, store, blobs, trace });
    const { logger, lines } = capturingLogger();
    return { store, blobs, manager, logger, lines };
  }

  it('sweeps idle sessions on start, with their blobs, logs what it removed, and stops', async () => {
    const { store, blobs, manager, logger, lines } = setUp(30);
    const now = Date.now();
    await store.appendMessages('idle', numbered([user('old'), assistant('hi')]), 0, now - 40 * DAY_MS);
    await blobs.put('idle', 'large_tool_results', 'call_1', 'output');
    await store.appendMessages('fresh', numbered([user('new'), assistant('hi')]), 0, now - DAY_MS);
    const schedule = startServeRetention(manager, logger);
    expect(schedule).toBeDefined();
    const first = await schedule?.first;
    expect(first?.ok).toBe(true);
    expect((await store.list()).map((listing) => listing.id)).toEqual(['fresh']);
    expect(await blobs.list('idle')).toEqual([]);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; removed?: number });
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'retention sweep', removed: 1, maxIdleDays: 30 }),
    );
    await schedule?.stop();
  });

  it('runs again every day until stopped', async () => {
    const { manager, logger, lines } = setUp(30);
    const pending: Array<() => void> = [];
    const schedule = startServeRetention(manager, logger, {
      timers: { setTimeout: (run) => pending.push(run), clearTimeout: () => {} },
    });
    await schedule?.first;
    expect(pending).toHaveLength(1);
    pending.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines.filter((line) => line.includes('"retention sweep"'))).toHaveLength(2);
    await schedule?.stop();
  });

  it('starts nothing when the policy keeps every session (maxIdleDays 0)', () => {
    const { manager, logger } = setUp(0);
    expect(startServeRetention(manager, logger)).toBeUndefined();
  });
});
