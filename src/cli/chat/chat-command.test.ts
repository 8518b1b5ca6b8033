import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import { createContextManager } from '../../engine/context-manager.ts';
import { openEmbeddedStores } from '../../store/open-embedded-stores.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../../testing/fake-provider-server.ts';
import { providerError } from '../../testing/fake-provider-server-errors.ts';
import { type CodingTurn, scriptedCodingModel } from '../../testing/scripted-coding-model.ts';
import { BIN } from '../testing/run-ctxkit.ts';

const counter = createExactCounter('o200k');
const MODEL = 'local-coder';

/** The chat's model calls, without the window lookups. */
const modelCalls = () => server.requests.filter((request) => request.path.endsWith('/chat/completions'));

/** `ctxkit chat` as a script drives it: stdin not a terminal, one message or command per line. */
function chat(args: string[], lines: string[], options: { cwd: string; env?: Record<string, string> }) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [BIN, 'chat', ...args], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.cwd,
        NO_COLOR: '1',
        CTXKIT_CONFIG: '',
        ...options.env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(lines.map((line) => `${line}\n`).join(''));
  });
}

let server: FakeProviderServer;
let dir: string;
beforeEach(async () => {
  // A vLLM-style server that says it serves the model with a 16k window: the window the chat uses.
  server = await startFakeProviderServer({
    servedWindows: { vllmModels: [{ id: MODEL, maxModelLen: 16_000 }] },
  });
  dir = await mkdtemp(join(tmpdir(), 'ctxkit-chat-'));
  await writeFile(join(dir, 'notes.md'), '# Notes\n- [ ] fix the parser in src/parser.ts\n');
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function scripted(turns: CodingTurn[]) {
  const model = scriptedCodingModel({ turns, window: 16_000, counter });
  server.setFallback(model.reply);
  return model;
}

describe('ctxkit chat (stdin not a terminal)', () => {
  it('says what to set when there is no key and no endpoint, and exits 2', async () => {
    const run = await chat([], ['hello'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OPENAI_API_KEY/);
    expect(run.stderr).toMatch(/--base-url/);
  });

  it('chooses the window by the one rule: an unknown model is the library’s error, picoclaw’s window is 4 × the reserve', async () => {
    scripted([{ steps: [], answer: 'x' }]);
    const base = ['--base-url', server.openAIBaseUrl, '--model', 'no-such-model', '--data', join(dir, '.d')];
    const [unknown, withReserve, withWindow, picoclaw, tooLarge] = await Promise.all([
      chat(base, ['hello'], { cwd: dir }),
      // A reserve is not a window: under any preset but picoclaw, the same error as without one.
      chat([...base, '--max-output', '2048'], ['hello'], { cwd: dir }),
      chat([...base, '--window', '8000', '--session', 'w'], ['/exit'], { cwd: dir }),
      chat(
        [...base, '--policy', 'picoclaw', '--max-output', '2048', '--session', 'p'],
        ['/context', '/exit'],
        {
          cwd: dir,
        },
      ),
      // The server's 16k is the window: a reserve it cannot hold is refused as the flag the user typed.
      chat(
        [
          '--base-url',
          server.openAIBaseUrl,
          '--model',
          MODEL,
          '--max-output',
          '20000',
          '--data',
          join(dir, '.d'),
        ],
        ['/exit'],
        { cwd: dir },
      ),
    ]);
    for (const run of [unknown, withReserve]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        'error unknown model "no-such-model" and no context window configured: pass contextWindow to createContextManager (or prepare), set budget.contextWindow, or use --window on the command line\n',
      );
    }
    expect(withWindow.code).toBe(0);
    expect(withWindow.stdout).toContain('window 8,000 (--window)');
    expect(picoclaw.stderr).toBe('');
    expect(picoclaw.code).toBe(0);
    expect(picoclaw.stdout).toContain('window 8,192 (4 × max output 2,048)');
    expect(picoclaw.stdout).toMatch(/ of 6,144 usable tokens \(window 8,192\)$/m);
    expect(picoclaw.stdout).toMatch(/^deviations from the picoclaw seed:$/m);
    expect(picoclaw.stdout).toMatch(/^ {2}budget\.detectWindow — the seed: the window is 4 × MaxTokens /m);
    expect(tooLarge.code).toBe(2);
    expect(tooLarge.stderr).toMatch(
      /^error --max-output: must be smaller than the window \(16,000 tokens\), got 20,000/,
    );
  });

  it('/context says what each step does and where the preset departs from its seed (deepagents clears)', async () => {
    scripted([{ steps: [], answer: 'x' }]);
    const base = ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.d')];
    const run = await chat([...base, '--policy', 'deepagents'], ['/context', '/exit'], { cwd: dir });
    expect(run.stderr).toBe('');
    // 16,000 served, 4,000 reserved: the largest request that fits is 75 % of the window.
    expect(run.stdout).toMatch(
      /^ {2}clearing +at 60% \([\d,]+ tokens\): old tool results are cleared to "\[cleared\]" \(not kept\)$/m,
    );
    expect(run.stdout).toMatch(
      /^ {2}summarizing +at 75% \([\d,]+ tokens\) \(deviation: deepagents' 85% is past the largest request that fits, so it fires at 75%\): older turns are summarized$/m,
    );
    expect(run.stdout).toMatch(/^deviations from the deepagents seed:$/m);
    expect(run.stdout).toMatch(/^ {2}summarize\.trigger — .*With this window: 85% as set, 75% used/m);
    expect(run.stdout).toMatch(
      /^next: old tool results are cleared to "\[cleared\]" \(not kept\) in [\d,]+ more tokens \(at 60%\)$/m,
    );
    expect(run.stdout).not.toMatch(/offloaded/);
  });

  it('a configured window never exceeds what the server serves', async () => {
    scripted([{ steps: [], answer: 'x' }]);
    const base = ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.d')];
    const [larger, smaller, picoclaw] = await Promise.all([
      chat([...base, '--window', '32000', '--session', 'a'], ['/exit'], { cwd: dir }),
      chat([...base, '--window', '8000', '--session', 'b'], ['/exit'], { cwd: dir }),
      chat(
        [...base, '--policy', 'picoclaw', '--max-output', '8192', '--session', 'c'],
        ['/context', '/exit'],
        {
          cwd: dir,
        },
      ),
    ]);
    expect(larger.stdout).toContain(
      'window 16,000 (as the server has it loaded; --window 32,000 is more than the server has loaded)',
    );
    expect(smaller.stdout).toContain('window 8,000 (--window; the server has 16,000)');
    // picoclaw's 4 × 8,192 is more than the model is loaded with.
    expect(picoclaw.stdout).toContain('window 16,000 (as the server has it loaded)');
    expect(picoclaw.stdout).toMatch(/\(window 16,000\)$/m);
  });

  it('runs turns with tools, prints each call and a one-line result, and answers commands', async () => {
    const model = scripted([
      {
        steps: [[{ name: 'read_file', args: { path: 'notes.md' } }]],
        answer: 'The notes hold one open item.',
      },
    ]);
    const run = await chat(
      [
        '--base-url',
        server.openAIBaseUrl,
        '--model',
        MODEL,
        '--session',
        'work',
        '--data',
        join(dir, '.ctxkit'),
      ],
      [
        '[turn 0] what do my notes say?',
        '/context',
        '/config summarize.trigger 0.9',
        '/config no.such.key 1',
        '/nope',
        '/exit',
      ],
      { cwd: dir },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/⚙ read_file .*notes\.md/);
    expect(run.stdout).toMatch(/→ .*notes\.md.*\(\d+ lines?, [\d,]+ chars\)/);
    expect(run.stdout).toContain('The notes hold one open item.');
    expect(run.stdout).toMatch(/^tokens:$/m);
    expect(run.stdout).toMatch(/^next: /m);
    expect(run.stdout).toContain('summarize.trigger = 0.9 (kept for this session)');
    expect(run.stdout).toMatch(/error .*no\.such\.key/);
    expect(run.stdout).toMatch(/unknown command \/nope/);
    expect(model.figures.requests).toBe(2);
  });

  it('--session resumes the thread and the settings /config kept', async () => {
    scripted([
      { steps: [], answer: 'first answer' },
      { steps: [], answer: 'second answer' },
    ]);
    const flags = [
      '--base-url',
      server.openAIBaseUrl,
      '--model',
      MODEL,
      '--session',
      'resume-me',
      '--data',
      join(dir, '.ctxkit'),
    ];
    const first = await chat(flags, ['[turn 0] remember the word PELICAN', '/config clearing.trigger 0.7'], {
      cwd: dir,
    });
    expect(first.code).toBe(0);
    const second = await chat(flags, ['/config', '[turn 1] what was the word?'], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('settings of this session: clearing.trigger=0.7');
    expect(second.stdout).toContain('second answer');
    const last = modelCalls().at(-1)?.rawBody ?? '';
    expect(last).toContain('PELICAN');
    expect(last).toContain('first answer');
  });

  it('offers write and command tools only when allowed, and refuses them without a terminal to ask', async () => {
    scripted([
      { steps: [[{ name: 'write_file', args: { path: 'out.txt', content: 'x' } }]], answer: 'tried' },
    ]);
    const run = await chat(
      ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.ctxkit')],
      ['[turn 0] write it'],
      { cwd: dir },
    );
    const body = modelCalls()[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
    const tools = (body?.tools ?? []).map((tool) => tool.function.name);
    expect(tools).toContain('read_file');
    expect(tools).toContain('read_offloaded');
    expect(tools).not.toContain('write_file');
    expect(tools).not.toContain('run_command');
    expect(run.stdout).toMatch(/✗ .*write_file/);

    server.setFallback(
      scriptedCodingModel({
        turns: [
          { steps: [[{ name: 'write_file', args: { path: 'out.txt', content: 'x' } }]], answer: 'tried' },
        ],
        window: 16_000,
        counter,
      }).reply,
    );
    const allowed = await chat(
      ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.ctxkit'), '--allow-write'],
      ['[turn 0] write it'],
      { cwd: dir },
    );
    expect(allowed.stdout).toMatch(/not allowed: .*out\.txt.*--yes/);
  });

  it('--allow-commands --yes runs commands in the workspace, and the model never sees the keys', async () => {
    scripted([
      {
        steps: [
          [{ name: 'run_command', args: { command: 'echo "key=[$OPENAI_API_KEY] dir=$(basename $PWD)"' } }],
        ],
        answer: 'ran it',
      },
    ]);
    const run = await chat(
      [
        '--base-url',
        server.openAIBaseUrl,
        '--model',
        MODEL,
        '--data',
        join(dir, '.ctxkit'),
        '--allow-commands',
        '--yes',
      ],
      ['[turn 0] run it'],
      { cwd: dir, env: { OPENAI_API_KEY: 'sk-secret-never-shown' } },
    );
    expect(run.code).toBe(0);
    const sent = modelCalls()
      .map((request) => request.rawBody)
      .join('\n');
    expect(sent).toContain('key=[] dir=');
    expect(sent).not.toContain('sk-secret-never-shown');
    expect(run.stdout).not.toContain('sk-secret-never-shown');
    expect(run.stdout).toContain('ran it');
  });

  it('removes sessions idle past retention on start (30 days under default), keeps the rest', async () => {
    scripted([{ steps: [], answer: 'hi' }]);
    const dataDir = join(dir, '.ctxkit');
    const stores = await openEmbeddedStores({ dataDir });
    const DAY = 86_400_000;
    for (const [id, daysAgo] of [
      ['stale', 40],
      ['fresh', 2],
    ] as const) {
      const manager = createContextManager({
        policy: PRESETS.default,
        store: stores.store,
        blobs: stores.blobs,
        trace: stores.trace,
        clock: () => Date.now() - daysAgo * DAY,
      });
      await manager.append(id, [{ role: 'user', parts: [{ type: 'text', text: `a ${id} session` }] }]);
      await manager.flushTrace();
    }
    await stores.close();
    const run = await chat(
      ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', dataDir],
      ['/exit'],
      {
        cwd: dir,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('removed 1 session(s) idle more than 30 days');
    const after = await openEmbeddedStores({ dataDir });
    try {
      expect(await after.store.load('stale')).toBeUndefined();
      expect(await after.store.load('fresh')).toBeDefined();
    } finally {
      await after.close();
    }
  });

  it('resumes as the policy restores: the whole thread under default, last turns as text under cowagent (seed 000)', async () => {
    const roles = async (policy: string) => {
      scripted([
        { steps: [[{ name: 'read_file', args: { path: 'notes.md' } }]], answer: 'read them' },
        { steps: [], answer: 'resumed' },
      ]);
      const flags = [
        '--base-url',
        server.openAIBaseUrl,
        '--model',
        MODEL,
        '--policy',
        policy,
        '--session',
        policy,
      ];
      const data = ['--data', join(dir, `.ctxkit-${policy}`)];
      await chat([...flags, ...data], ['[turn 0] read my notes'], { cwd: dir });
      const resumed = await chat([...flags, ...data], ['[turn 1] and now?'], { cwd: dir });
      expect(resumed.stdout).toContain('resumed');
      const body = modelCalls().at(-1)?.body as { messages: { role: string; content: unknown }[] };
      return body.messages.map((message) => message.role);
    };
    expect(await roles('default')).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    const cowagent = await roles('cowagent');
    expect(cowagent).not.toContain('tool');
    expect(cowagent.at(-1)).toBe('user');
    expect(JSON.stringify(modelCalls().at(-1)?.body)).toContain('read them');
  });

  it("/config: a later setting of the same path replaces the earlier (seed name or not), unset drops it, the window is the flags'", async () => {
    scripted([{ steps: [], answer: 'x' }]);
    const flags = [
      '--base-url',
      server.openAIBaseUrl,
      '--model',
      MODEL,
      '--session',
      'cfg',
      '--data',
      join(dir, '.ctxkit'),
    ];
    const run = await chat(
      flags,
      [
        '/config compression_trigger 0.7',
        '/config summarize.trigger 0.8',
        '/config',
        '/config unset summarize.trigger',
        '/config',
        '/config budget.contextWindow 1000000',
      ],
      { cwd: dir },
    );
    expect(run.stdout).toContain('summarize.trigger = 0.8 (kept for this session)');
    expect(run.stdout).toContain('settings of this session: summarize.trigger=0.8');
    expect(run.stdout).toContain('summarize.trigger unset');
    expect(run.stdout).toContain('no settings of this session yet');
    expect(run.stdout).toMatch(
      /error budget\.contextWindow: the window and the reply reserve are the chat's --window and --max-output/,
    );
  });

  it('takes the model the server lists when --model is not given, and asks for one when it lists several', async () => {
    scripted([{ steps: [], answer: 'from the only model' }]);
    const one = await chat(
      ['--base-url', server.openAIBaseUrl, '--data', join(dir, '.ctxkit')],
      ['[turn 0] hi'],
      {
        cwd: dir,
      },
    );
    expect(one.stdout).toContain(`ctxkit chat · ${MODEL} via openai`);
    expect(one.stdout).toContain('from the only model');
    server.setServedWindows({
      vllmModels: [
        { id: 'a', maxModelLen: 8_000 },
        { id: 'b', maxModelLen: 8_000 },
      ],
    });
    const several = await chat(['--base-url', server.openAIBaseUrl], ['hi'], { cwd: dir });
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/--model: the server serves several models; pass one: a, b/);
  });

  it('answers a message given as an argument when stdin has already ended, then exits 0', async () => {
    scripted([{ steps: [], answer: 'Nothing is open.' }]);
    const run = await chat(
      ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.ctxkit'), '[turn 0] hi'],
      [],
      { cwd: dir },
    );
    expect(run.stdout).toContain('Nothing is open.');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(modelCalls()).toHaveLength(1);
  });

  it('exits 1 when a scripted message failed, and says why', async () => {
    server.enqueue(providerError('rate-limit'), providerError('rate-limit'), providerError('rate-limit'));
    const run = await chat(
      ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.ctxkit')],
      ['[turn 0] hi'],
      { cwd: dir },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^error .*429/m);
  });
});

describe('ctxkit chat as a process', () => {
  /** A chat left running: lines are written when the test says, the output is read as it comes. */
  function startChat(args: string[], env: Record<string, string> = {}) {
    const child = spawn(process.execPath, [BIN, 'chat', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, NO_COLOR: '1', CTXKIT_CONFIG: '', ...env },
    });
    const output = { text: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : null))),
    );
    const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
      const started = Date.now();
      while (!pattern.test(output.text)) {
        if (Date.now() - started > timeoutMs)
          throw new Error(`timed out waiting for ${pattern}:\n${output.text}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    return { child, output, exited, waitFor };
  }
  const flags = () => ['--base-url', server.openAIBaseUrl, '--model', MODEL, '--data', join(dir, '.ctxkit')];

  it('one chat per session: a second on the same session is refused while the first runs', async () => {
    scripted([{ steps: [], answer: 'x' }]);
    const first = startChat([...flags(), '--session', 'busy']);
    await first.waitFor(/session busy/);
    const second = await chat([...flags(), '--session', 'busy'], ['hi'], { cwd: dir });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/--session: session "busy" is open in another ctxkit chat \(pid \d+\)/);
    first.child.stdin.end();
    expect(await first.exited).toBe(0);
    // Once it has left, the session is free again.
    const third = await chat([...flags(), '--session', 'busy'], ['/exit'], { cwd: dir });
    expect(third.code).toBe(0);
  });

  it('SIGTERM cancels the command in flight (its process group ends) and exits 143', async () => {
    scripted([
      {
        steps: [[{ name: 'run_command', args: { command: 'echo $$ > cmd.pid; exec sleep 30' } }]],
        answer: 'x',
      },
    ]);
    const running = startChat([...flags(), '--allow-commands', '--yes']);
    running.child.stdin.write('[turn 0] run it\n');
    const pidFile = join(dir, 'cmd.pid');
    const started = Date.now();
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
      if (Date.now() - started > 15_000)
        throw new Error(`the command never started:\n${running.output.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pid = Number(readFileSync(pidFile, 'utf8'));
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(143);
    const gone = Date.now();
    while (isAlive(pid) && Date.now() - gone < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(pid)).toBe(false);
  });

  it('a reader that goes away (| head) ends the chat quietly, and SIGINT with no turn running ends it with 130', async () => {
    scripted([{ steps: [], answer: 'a long answer '.repeat(50) }]);
    const piped = startChat(flags());
    piped.child.stdout.destroy();
    piped.child.stdin.write('[turn 0] talk\n');
    piped.child.stdin.end();
    expect(await piped.exited).toBe(0);
    expect(piped.output.text).not.toMatch(/EPIPE|Unhandled/);

    const idle = startChat(flags());
    await idle.waitFor(/ctxkit chat ·/);
    idle.child.kill('SIGINT');
    expect(await idle.exited).toBe(130);
  });

  it('SIGINT while the chat is still opening ends it with 130 before any turn runs', async () => {
    scripted([{ steps: [], answer: 'x' }]);
    // A server that holds its model list until the test has sent the signal.
    let listed: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      listed = resolve;
    });
    let answer: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const slow = createServer((request, response) => {
      if (request.url?.endsWith('/models')) {
        listed();
        void held.then(() => {
          response.setHeader('content-type', 'application/json');
          response.end(
            JSON.stringify({ object: 'list', data: [{ id: MODEL, object: 'model', max_model_len: 16_000 }] }),
          );
        });
        return;
      }
      response.statusCode = 404;
      response.end();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const { port } = slow.address() as AddressInfo;
    try {
      const opening = startChat([
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--data',
        join(dir, '.ctxkit'),
      ]);
      opening.child.stdin.write('[turn 0] hi\n');
      await asked;
      opening.child.kill('SIGINT');
      // Let the signal land before the list comes back.
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer();
      expect(await opening.exited, opening.output.text).toBe(130);
      expect(modelCalls()).toHaveLength(0);
    } finally {
      answer();
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
