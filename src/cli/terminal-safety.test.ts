import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Terminal as TerminalType } from '@xterm/headless';
import xterm from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CtxkitRun, runCtxkit } from './testing/run-ctxkit.ts';

// @xterm/headless is CommonJS without named ESM exports: Node only exposes its default export.
const { Terminal } = xterm;

/**
 * Everything the CLI prints is rendered by a real terminal emulator (xterm.js, headless) after a
 * sentinel line. If any input-derived escape sequence reached it raw, the screen would be cleared,
 * the cursor moved, a line overwritten, the title set or the bell rung; instead every line printed
 * must sit on its own row, exactly as printed, below the sentinel.
 */

const ESC = '\u001b';
/** What a hostile session carries: clear screen, cursor home, 8-bit CSI, title, hyperlink, bidi, bell. */
const HOSTILE = `${ESC}[2J${ESC}[H\u009b2J${ESC}]0;pwned\u0007${ESC}]8;;http://evil${ESC}\\link\u202etxt.exe\r\b`;
const SENTINEL = 'SENTINEL-LINE';

interface Rendered {
  rows: string[];
  cursorRow: number;
  titleChanged: boolean;
  bell: boolean;
  alternateScreen: boolean;
}

async function renderInTerminal(text: string): Promise<Rendered> {
  const lines = text.split('\n').length;
  const terminal: TerminalType = new Terminal({
    cols: 400,
    rows: lines + 10,
    scrollback: 0,
    convertEol: true,
    allowProposedApi: true,
  });
  let titleChanged = false;
  let bell = false;
  terminal.onTitleChange(() => {
    titleChanged = true;
  });
  terminal.onBell(() => {
    bell = true;
  });
  await new Promise<void>((done) => terminal.write(`${SENTINEL}\n${text}`, done));
  const buffer = terminal.buffer.active;
  const rows: string[] = [];
  for (let row = 0; row < buffer.length; row++) rows.push(buffer.getLine(row)?.translateToString(true) ?? '');
  const rendered = {
    rows,
    cursorRow: buffer.baseY + buffer.cursorY,
    titleChanged,
    bell,
    alternateScreen: buffer.type === 'alternate',
  };
  terminal.dispose();
  return rendered;
}

/** The run's stdout and stderr, each shown as a terminal shows it, untouched by what they print. */
async function expectShownAsPrinted(run: CtxkitRun): Promise<void> {
  for (const text of [run.stdout, run.stderr]) {
    expect(text.replace(/\n/g, '')).not.toMatch(/[\p{Cc}\u2028\u2029\p{Cf}]/u);
    const printed = text.replace(/\n$/, '').split('\n');
    const screen = await renderInTerminal(text);
    expect(screen.rows[0]).toBe(SENTINEL);
    expect(screen.rows.slice(1, printed.length + 1)).toEqual(printed.map((line) => line.trimEnd()));
    expect(screen.cursorRow).toBe(
      text === '' ? 1 : text.endsWith('\n') ? printed.length + 1 : printed.length,
    );
    expect(screen.titleChanged).toBe(false);
    expect(screen.bell).toBe(false);
    expect(screen.alternateScreen).toBe(false);
  }
}

describe('nothing from input reaches the terminal raw', () => {
  let dir: string;
  const hostileFile = () => join(dir, `session-${ESC}[2J.jsonl`);
  const ctxkit = (args: string[]) => runCtxkit(args, { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-terminal-'));
    const tool = `${ESC}[2Jbash${HOSTILE}`;
    const lines = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: `fix ${HOSTILE} in /tmp/${ESC}[31mred.py` },
      {
        role: 'assistant',
        content: 'ok',
        tool_calls: [{ id: 'c1', name: tool, arguments: JSON.stringify({ cmd: `ls ${HOSTILE}` }) }],
      },
      { role: 'tool', content: `${HOSTILE} first line\nError: ${HOSTILE}\nsecond`, tool_call_id: 'c1' },
      { role: 'assistant', content: 'done' },
    ];
    await writeFile(hostileFile(), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    await writeFile(join(dir, 'broken.jsonl'), `{"role":"user","content":"x"}\n${HOSTILE}garbage\n`);
    await writeFile(
      join(dir, `config-${ESC}[2J.yaml`),
      `model: "${ESC}[2Jgpt\\u009b2J"\nsummarize:\n  trigger: 0.8\n`,
    );
  });

  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('the terminal check itself catches a raw escape sequence', async () => {
    const screen = await renderInTerminal(`one\n${HOSTILE}two\n`);
    expect(screen.rows.slice(1, 3)).not.toEqual(['one', `${HOSTILE}two`]);
  });

  it('inspect: file names, tool names and result lines', async () => {
    const run = await ctxkit(['inspect', hostileFile()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('session-\\x1b[2J.jsonl');
    expect(run.stdout).toContain('\\x1b[2Jbash\\x1b[2J\\x1b[H\\x9b2J');
    await expectShownAsPrinted(run);
  });

  it('inspect --json stays valid JSON with the same text, C1 and bidi escaped too', async () => {
    const run = await ctxkit(['inspect', hostileFile(), '--json']);
    expect(run.code).toBe(0);
    const [report] = JSON.parse(run.stdout) as { file: string; toolCallsByName: Record<string, number> }[];
    expect(report?.file).toBe(hostileFile());
    expect(Object.keys(report?.toolCallsByName ?? {})).toEqual([`${ESC}[2Jbash${HOSTILE}`]);
    expect(run.stdout).toContain('\\u009b2J');
    expect(run.stdout).toContain('\\u202e');
    await expectShownAsPrinted(run);
  });

  it('replay: tables, verbose output, lost facts and --check', async () => {
    const run = await ctxkit([
      'replay',
      hostileFile(),
      '--verbose',
      '--calls',
      '--check',
      '--store',
      'memory',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('session-\\x1b[2J.jsonl');
    await expectShownAsPrinted(run);
  });

  it('replay of several sessions with a config file named with an escape', async () => {
    const run = await ctxkit([
      'replay',
      hostileFile(),
      hostileFile(),
      '--policy',
      join(dir, `config-${ESC}[2J.yaml`),
      '--window',
      '8000',
      '--store',
      'memory',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ctxkit:config-\\x1b[2J.yaml');
    await expectShownAsPrinted(run);
  });

  it('config: values and file names from the config file and flags', async () => {
    const run = await ctxkit(['config', '--config', join(dir, `config-${ESC}[2J.yaml`)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\\x1b[2Jgpt\\x9b2J');
    await expectShownAsPrinted(run);
    const json = await ctxkit(['config', '--set', `summarize.prefix=${HOSTILE}`, '--json']);
    expect(json.code).toBe(0);
    expect(
      (JSON.parse(json.stdout) as { policy: { summarize: { prefix: string } } }).policy.summarize.prefix,
    ).toBe(HOSTILE);
    await expectShownAsPrinted(json);
  });

  it('errors: a parse error quoting the line, a missing file, an unknown flag, a bad value', async () => {
    const runs = await Promise.all([
      ctxkit(['inspect', join(dir, 'broken.jsonl')]),
      ctxkit(['inspect', join(dir, `missing-${ESC}[2J.jsonl`)]),
      ctxkit(['inspect', hostileFile(), `--bogus${ESC}[2J`]),
      ctxkit(['config', '--window', `${ESC}[2J`]),
      ctxkit(['config', '--policy', `defualt${ESC}[2J`]),
      ctxkit(['config', '--set', `${ESC}[2J=1`]),
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('\\x1b[2J');
      expect(run.stderr).not.toMatch(/\n\s+at /);
      await expectShownAsPrinted(run);
    }
    expect(runs[0]?.stderr).toContain('broken.jsonl, line 2: not valid JSON');
    expect(runs[1]?.stderr).toContain('no such file or directory');
  });
});
