/**
 * `ctxkit chat` in a real terminal: tmux runs it in a pane, keys are sent as a person types them, and the
 * pane is read back. The answer streams in, Ctrl-C cancels the call in flight without ending the program,
 * the status line shows the context percentage, and `/exit` leaves. Set CTXKIT_SCREEN_OUT to a file to
 * keep the last screen.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../../testing/fake-provider-server.ts';
import { openAIStreamReply } from '../../testing/fake-provider-server-streams.ts';
import { scriptedCodingModel } from '../../testing/scripted-coding-model.ts';
import { BIN } from '../testing/run-ctxkit.ts';

const MODEL = 'local-coder';
const SOCKET = `ctxkit-test-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const screen = () => tmux('capture-pane', '-p', '-t', 'chat');

async function until(what: string, test: (text: string) => boolean, timeoutMs = 15_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = screen();
    if (test(text)) return text;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out waiting for ${what}; the screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let server: FakeProviderServer;
let dir: string;
beforeEach(async () => {
  server = await startFakeProviderServer({
    servedWindows: { vllmModels: [{ id: MODEL, maxModelLen: 16_000 }] },
  });
  dir = await mkdtemp(join(tmpdir(), 'ctxkit-tty-'));
  await writeFile(join(dir, 'README.md'), '# A project\n');
});
afterEach(async () => {
  try {
    tmux('kill-server');
  } catch {
    // Already gone: /exit ended the only session.
  }
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ctxkit chat in a terminal (tmux)', () => {
  it('streams, cancels the call in flight on Ctrl-C and carries on, shows the status line, leaves on /exit', async () => {
    const story = Array.from({ length: 400 }, (_, index) => `word${index}`).join(' ');
    // The first call streams slowly (6 characters every 40 ms): Ctrl-C lands while it runs.
    server.enqueue(openAIStreamReply({ content: story, chunkSize: 6, chunkDelayMs: 40 }));
    server.setFallback(
      scriptedCodingModel({
        turns: [
          { steps: [], answer: 'unused' },
          { steps: [[{ name: 'list_files', args: {} }]], answer: 'One file: README.md.' },
        ],
        window: 16_000,
        counter: createExactCounter('o200k'),
      }).reply,
    );
    const command = [
      'env',
      `PATH=${process.env.PATH ?? ''}`,
      'TERM=xterm-256color',
      process.execPath,
      BIN,
      'chat',
      '--base-url',
      server.openAIBaseUrl,
      '--model',
      MODEL,
      '--data',
      join(dir, '.ctxkit'),
      '--session',
      'tty',
    ]
      .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
      .join(' ');
    tmux('new-session', '-d', '-s', 'chat', '-x', '110', '-y', '40', '-c', dir, command);
    await until('the prompt', (text) => text.includes('›') && /context \d+%/.test(text));

    tmux('send-keys', '-t', 'chat', '-l', '[turn 0] tell me a long story');
    tmux('send-keys', '-t', 'chat', 'Enter');
    await until('the answer to start streaming', (text) => text.includes('word20'));
    tmux('send-keys', '-t', 'chat', 'C-c');
    const cancelled = await until('the cancellation', (text) => text.includes('(cancelled)'));
    // Cancelled mid-answer: the stream stopped well before its end, and the program is still there.
    expect(cancelled).not.toContain('word399');
    // The connection was closed, not just the printing stopped: the server sees the client go.
    const waited = Date.now();
    while (!server.requests.some((request) => request.clientAborted) && Date.now() - waited < 5_000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.requests.some((request) => request.clientAborted)).toBe(true);

    tmux('send-keys', '-t', 'chat', '-l', '[turn 1] what files are here?');
    tmux('send-keys', '-t', 'chat', 'Enter');
    await until('the second answer', (text) => text.includes('One file: README.md.'));
    const after = await until(
      'the status line',
      (text) => (text.match(/context \d+% · [\d,]+ \/ [\d,]+ tokens/g) ?? []).length >= 2,
    );
    expect(after).toMatch(/⚙ list_files/);
    expect(after).toMatch(/→ .*\(\d+ lines?, [\d,]+ chars\)/);

    tmux('send-keys', '-t', 'chat', '-l', '/context');
    tmux('send-keys', '-t', 'chat', 'Enter');
    const context = await until('/context', (text) => /^next: /m.test(text));
    expect(context).toMatch(/^tokens:$/m);
    if (process.env.CTXKIT_SCREEN_OUT) await writeFile(process.env.CTXKIT_SCREEN_OUT, context);

    // Ctrl-C on a line being typed clears it and does not count toward leaving.
    tmux('send-keys', '-t', 'chat', '-l', 'half typed');
    await until('the typed text', (text) => text.includes('› half typed'));
    tmux('send-keys', '-t', 'chat', 'C-c');
    await until('the line cleared', (text) => (text.trimEnd().split('\n').at(-1) ?? '').trim() === '›');
    expect(screen()).not.toContain('Ctrl-C again');

    // Lines pasted together are one message (one answer), not one per line.
    const before = server.requests.filter((request) => request.path.endsWith('/chat/completions')).length;
    tmux('send-keys', '-t', 'chat', '-l', '[turn 1] first pasted line\nsecond pasted line\n');
    await until(
      'the pasted message answered',
      () => server.requests.filter((request) => request.path.endsWith('/chat/completions')).length > before,
    );
    const pastedCalls = server.requests.filter((request) => request.path.endsWith('/chat/completions'));
    const lastBody = pastedCalls.at(-1)?.rawBody ?? '';
    expect(lastBody).toContain('first pasted line\\nsecond pasted line');

    tmux('send-keys', '-t', 'chat', '-l', '/exit');
    tmux('send-keys', '-t', 'chat', 'Enter');
    const ended = Date.now();
    for (;;) {
      try {
        tmux('has-session', '-t', 'chat');
      } catch {
        break;
      }
      if (Date.now() - ended > 10_000) throw new Error(`/exit did not end the program:\n${screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 60_000);
});
