import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRunCommandTool,
  DEFAULT_COMMAND_OUTPUT_HEAD_BYTES,
  DEFAULT_COMMAND_OUTPUT_TAIL_BYTES,
  type RunCommandOptions,
} from './run-command-tool.ts';
import { createWorkspace } from './workspace-paths.ts';
import { call, makeTempDir, toolContext } from './workspace-test-helpers.ts';

let root: string;
let remove: () => void;
const run = (args: unknown, context = toolContext(), options: RunCommandOptions = {}) =>
  call([createRunCommandTool(createWorkspace(root), options)], 'run_command', args, context);

beforeEach(() => {
  ({ dir: root, remove } = makeTempDir());
});
afterEach(() => remove());

/** Whether a process is alive (a zombie waiting to be reaped counts as ended). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

const childPid = async (): Promise<number> => {
  const file = path.join(root, 'child.pid');
  expect(
    await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n'), 5_000),
  ).toBe(true);
  return Number(fs.readFileSync(file, 'utf8').trim());
};

describe('run_command', () => {
  it('runs in the workspace root after asking, stdout and stderr interleaved, the exit code at the end', async () => {
    const context = toolContext();
    const result = await run({ command: 'echo out; echo err >&2; echo out2; pwd; exit 3' }, context);
    expect(context.asked).toEqual([
      { tool: 'run_command', summary: 'run: echo out; echo err >&2; echo out2; pwd; exit 3' },
    ]);
    expect(result.content).toMatch(
      new RegExp(`^out\\nerr\\nout2\\n${root}\\n\\[exit code 3 · \\d+\\.\\d s\\]$`),
    );
    expect(result.isError).toBe(true);
    const ok = await run({ command: 'printf done' });
    expect(ok).toMatchObject({ isError: false });
    expect(ok.content).toMatch(/^done\n\[exit code 0 · /);
    expect((await run({ command: 'true' })).content).toMatch(/^\(no output\)\n\[exit code 0/);
  });

  it('shows a multi-line command on one line when asking', async () => {
    const context = toolContext();
    await run({ command: 'echo a\necho b' }, context);
    expect(context.asked[0]?.summary).toBe('run: "echo a\\necho b"');
  });

  it('runs nothing when the user declines, or when the call was cancelled before it began', async () => {
    const declined = await run({ command: 'touch ran.txt' }, toolContext({ allow: false }));
    expect(declined).toMatchObject({ isError: true, code: 'declined' });
    expect(declined.content).toContain('the user declined');
    const controller = new AbortController();
    controller.abort();
    expect(await run({ command: 'touch ran.txt' }, toolContext({ signal: controller.signal }))).toMatchObject(
      {
        code: 'aborted',
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });

  it('stops the whole process group at the timeout: a sleep 30 child ends too', async () => {
    const started = Date.now();
    const pending = run({
      command: 'sleep 30 & echo $! > child.pid; echo started; wait',
      timeoutSeconds: 0.5,
    });
    const pid = await childPid();
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ isError: true, code: 'timed_out' });
    expect(result.content).toMatch(
      /^started\n\[timed out after 0\.5 s: the command and the processes it started were stopped\]$/,
    );
    expect(await waitFor(() => !isRunning(pid), 5_000)).toBe(true);
  });

  it('stops the whole process group when the call is cancelled', async () => {
    const controller = new AbortController();
    const pending = run(
      { command: 'sleep 30 & echo $! > child.pid; wait' },
      toolContext({ signal: controller.signal }),
    );
    const pid = await childPid();
    expect(isRunning(pid)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ isError: true, code: 'aborted' });
    expect(result.content).toContain('cancelled by the user');
    expect(await waitFor(() => !isRunning(pid), 5_000)).toBe(true);
  });

  it('kills a group that ignores SIGTERM after the grace period', async () => {
    const controller = new AbortController();
    const pending = run(
      { command: "trap '' TERM; sleep 30 & echo $! > child.pid; wait" },
      toolContext({ signal: controller.signal }),
      { killGraceMs: 200 },
    );
    const pid = await childPid();
    controller.abort();
    const result = await pending;
    expect(result.code).toBe('aborted');
    expect(await waitFor(() => !isRunning(pid), 5_000)).toBe(true);
  });

  it('keeps 50 MB of output to its head and tail, saying how much was left out', async () => {
    const result = await run({
      command: 'echo FIRST; head -c 52428800 /dev/zero | tr "\\000" a; echo; echo LAST',
    });
    expect(result.isError).toBe(false);
    expect(Buffer.byteLength(result.content)).toBeLessThan(
      DEFAULT_COMMAND_OUTPUT_HEAD_BYTES + DEFAULT_COMMAND_OUTPUT_TAIL_BYTES + 400,
    );
    expect(result.content.startsWith('FIRST\naaa')).toBe(true);
    expect(result.content).toMatch(/aaa\nLAST\n\[exit code 0 · [\d.]+ s\]$/);
    const omitted = /\[… ([\d,]+) bytes \(\d+ line breaks\) of ([\d,]+) left out here/.exec(result.content);
    expect(Number(omitted?.[2]?.replaceAll(',', ''))).toBe(6 + 52_428_800 + 1 + 5);
    expect(Number(omitted?.[1]?.replaceAll(',', ''))).toBe(
      6 + 52_428_800 + 1 + 5 - DEFAULT_COMMAND_OUTPUT_HEAD_BYTES - DEFAULT_COMMAND_OUTPUT_TAIL_BYTES,
    );
  });

  it('describes binary output instead of returning NUL bytes', async () => {
    const result = await run({ command: 'head -c 100 /dev/zero' });
    expect(result.content).toMatch(/^\[binary output: 100 bytes, not shown\]\n\[exit code 0/);
    expect(result.content).not.toContain('\0');
  });

  it('names the argument at fault', async () => {
    for (const [args, field] of [
      [{ command: 42 }, '"command"'],
      [{}, '"command" is required'],
      [{ command: 'ls', timeoutSeconds: -1 }, '"timeoutSeconds"'],
      [{ command: 'ls', timeoutSeconds: 10_000 }, '"timeoutSeconds"'],
      [{ command: 'ls', cwd: '/' }, '"cwd"'],
    ] as const) {
      const result = await run(args);
      expect(result, JSON.stringify(args)).toMatchObject({ isError: true, code: 'invalid_arguments' });
      expect(result.content).toContain(field);
    }
  });
});
