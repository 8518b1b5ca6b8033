import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteSessionStore } from '../store/sqlite-session-store.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { BIN, runCtxkit } from './testing/run-ctxkit.ts';

const dirs: string[] = [];
let upstream: FakeProviderServer | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-serve-'));
  dirs.push(dir);
  return dir;
}

describe('ctxkit serve', () => {
  it('refuses to listen beyond loopback without a token, naming the flag', async () => {
    const run = await runCtxkit(['serve', '--host', '0.0.0.0', '--data', tempDir()], { cwd: tempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--token');
    expect(run.stderr).toContain('CTXKIT_TOKEN');
  });

  it('names the flag of a bad upstream, port or token', async () => {
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
  });

  it('serves a client, keeps its session in SQLite and stops cleanly on SIGTERM', async () => {
    upstream = await startFakeProviderServer({ fallback: openAIReply({ content: 'served' }) });
    const data = tempDir();
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--data',
        data,
        '--upstream',
        upstream.openAIBaseUrl,
        '--window',
        '16000',
      ],
      { cwd: tempDir(), env: { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '' } },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += String(chunk);
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-cli-test-key-1234567890' });
    const { data: answer, response } = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello over the CLI' }] })
      .withResponse();
    expect(answer.choices[0]?.message.content).toBe('served');
    const session = response.headers.get('x-ctxkit-session');
    const again = await client.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [
          { role: 'user', content: 'hello over the CLI' },
          answer.choices[0]?.message ?? { role: 'assistant', content: '' },
          { role: 'user', content: 'and again' },
        ],
      })
      .withResponse();
    expect(again.response.headers.get('x-ctxkit-session')).toBe(session);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain(`OpenAI clients:    base URL ${url}/v1`);
    // One JSON line per model call; the key is never in it.
    const calls = stderr
      .split('\n')
      .filter((line) => line.includes('"model call"'))
      .map((line) => JSON.parse(line) as { session: string; status: number });
    expect(calls).toEqual([
      expect.objectContaining({ session, status: 200, origin: 'new' }),
      expect.objectContaining({ session, status: 200, origin: 'continued' }),
    ]);
    expect(stderr).not.toContain('sk-cli-test-key');
    const store = await createSqliteSessionStore({ dataDir: data });
    try {
      const sessions = await store.list();
      expect(sessions).toHaveLength(1);
      const stored = await store.load(sessions[0]?.id ?? '');
      expect(stored?.log.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    } finally {
      await store.close();
    }
  }, 30_000);
});
