/**
 * `run_command`: a shell command run in the workspace root with `/bin/sh -c`, its standard output and
 * error interleaved as the terminal would show them, the exit code at the end. Offered only when commands
 * are allowed; asks the person first (`run: npm test`). The command runs in a process group of its own:
 * on timeout (default 2 minutes) or when the person cancels, the whole group is stopped (SIGTERM, then
 * SIGKILL), children included. Output is kept within a bound in memory, head and tail, with a marker
 * saying how much was left out between them.
 */

import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import type { AgentTool, AgentToolContext } from '../agent-tool.ts';
import { HeadTailBuffer } from './bounded-output.ts';
import { answering, failure, isResult, parseToolArgs, type WorkspaceToolResult } from './tool-result.ts';
import type { Workspace } from './workspace-paths.ts';

export const RUN_COMMAND_TOOL = 'run_command';

/** How long a command may run when the call does not say, and the longest a call may ask for. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Output kept from the start and from the end of a command's output; what lies between is counted. */
export const DEFAULT_COMMAND_OUTPUT_HEAD_BYTES = 64 * 1024;
export const DEFAULT_COMMAND_OUTPUT_TAIL_BYTES = 64 * 1024;
/** After SIGTERM, how long the process group has to end before SIGKILL. */
export const COMMAND_KILL_GRACE_MS = 2_000;
/** After the shell exits, how long output still written by processes it left running is read. */
export const COMMAND_DRAIN_MS = 250;
/** The shell commands run with. */
export const DEFAULT_SHELL = '/bin/sh';
/** The longest command accepted. */
export const MAX_COMMAND_LENGTH = 100_000;

export const runCommandTool: ToolDefinition = Object.freeze({
  name: RUN_COMMAND_TOOL,
  description:
    'Run a shell command (/bin/sh -c) in the workspace root and get its output (stdout and stderr ' +
    'interleaved) and exit code. Standard input is empty: the command must not wait for input. It is ' +
    `stopped after ${DEFAULT_COMMAND_TIMEOUT_MS / 1000} s unless timeoutSeconds says otherwise. Very long ` +
    'output keeps its start and end. The user may be asked to allow it.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The command line, e.g. "npm test".' },
      timeoutSeconds: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: MAX_COMMAND_TIMEOUT_MS / 1000,
        description: `Seconds before the command is stopped (default ${DEFAULT_COMMAND_TIMEOUT_MS / 1000}).`,
      },
    },
    required: ['command'],
    additionalProperties: false,
  }),
});

const ArgsSchema = z.strictObject({
  command: z.string().min(1).max(MAX_COMMAND_LENGTH),
  timeoutSeconds: z
    .number()
    .positive()
    .max(MAX_COMMAND_TIMEOUT_MS / 1000)
    .optional(),
});

const EXAMPLE = '{"command": "npm test"}';

export interface RunCommandOptions {
  /** Default DEFAULT_COMMAND_TIMEOUT_MS. */
  timeoutMs?: number;
  headBytes?: number;
  tailBytes?: number;
  /** Default DEFAULT_SHELL. */
  shell?: string;
  /** The command's environment; default this process's. */
  env?: NodeJS.ProcessEnv;
  killGraceMs?: number;
}

export function createRunCommandTool(workspace: Workspace, options: RunCommandOptions = {}): AgentTool {
  return {
    definition: runCommandTool,
    run: (args, context) => answering(() => runCommand(workspace, args, context, options)),
  };
}

/** The command on one line, for the confirmation: as typed, or JSON-quoted when it spans lines. */
function oneLine(command: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
  return /[\u0000-\u001f\u007f\u2028\u2029]/.test(command.replace(/\t/g, ' '))
    ? JSON.stringify(command)
    : command;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

async function runCommand(
  workspace: Workspace,
  args: unknown,
  context: AgentToolContext,
  options: RunCommandOptions,
): Promise<WorkspaceToolResult> {
  const parsed = parseToolArgs(ArgsSchema, args, EXAMPLE, 'command');
  if (isResult(parsed)) return parsed;
  if (parsed.command.trim() === '') return failure('invalid_arguments', '"command" is empty');
  const cwd = await workspace.realRoot();
  if (context.signal.aborted) return failure('aborted', 'cancelled: the command was not run');
  const allowed = await context.confirm({
    tool: RUN_COMMAND_TOOL,
    summary: `run: ${oneLine(parsed.command)}`,
  });
  if (!allowed) return failure('declined', 'the user declined to run this command: it was not run');
  if (context.signal.aborted) return failure('aborted', 'cancelled: the command was not run');
  const timeoutMs = Math.min(
    parsed.timeoutSeconds !== undefined
      ? parsed.timeoutSeconds * 1000
      : (options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS),
    MAX_COMMAND_TIMEOUT_MS,
  );
  return execute(parsed.command, cwd, timeoutMs, context.signal, options);
}

function execute(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
  options: RunCommandOptions,
): Promise<WorkspaceToolResult> {
  const output = new HeadTailBuffer(
    options.headBytes ?? DEFAULT_COMMAND_OUTPUT_HEAD_BYTES,
    options.tailBytes ?? DEFAULT_COMMAND_OUTPUT_TAIL_BYTES,
  );
  const started = Date.now();
  return new Promise((resolve) => {
    // `exec 2>&1` first: one pipe for both streams, so they interleave exactly as written.
    const child = spawn(options.shell ?? DEFAULT_SHELL, ['-c', `exec 2>&1\n${command}`], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    let stoppedFor: 'timeout' | 'abort' | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const killGroup = (killSignal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, killSignal);
      } catch {
        // The group is gone already.
      }
    };
    const stop = (why: 'timeout' | 'abort') => {
      if (stoppedFor || settled) return;
      stoppedFor = why;
      killGroup('SIGTERM');
      // The follow-up outlives this call when needed: a process that ignores SIGTERM still ends.
      setTimeout(() => killGroup('SIGKILL'), options.killGraceMs ?? COMMAND_KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('abort');
    signal.addEventListener('abort', onAbort, { once: true });

    const finish = (spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      signal.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (spawnError) {
        resolve(failure('failed', `the command could not be started: ${spawnError.message}`));
        return;
      }
      const text = output.totalBytes === 0 ? '(no output)' : output.text().replace(/\n$/, '');
      const took = seconds(Date.now() - started);
      if (stoppedFor === 'timeout')
        resolve({
          content: `${text}\n[timed out after ${seconds(timeoutMs)}: the command and the processes it started were stopped]`,
          isError: true,
          code: 'timed_out',
        });
      else if (stoppedFor === 'abort')
        resolve({
          content: `${text}\n[cancelled by the user after ${took}: the command and the processes it started were stopped]`,
          isError: true,
          code: 'aborted',
        });
      else if (exit?.signal)
        resolve({
          content: `${text}\n[killed by ${exit.signal} after ${took}]`,
          isError: true,
          code: 'failed',
        });
      else {
        const code = exit?.code ?? 0;
        resolve({ content: `${text}\n[exit code ${code} · ${took}]`, isError: code !== 0 });
      }
    };

    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => finish(error));
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Processes the shell left running may hold the pipe open: read on a moment, then stop reading.
      drainTimer = setTimeout(() => finish(), COMMAND_DRAIN_MS);
    });
    child.on('close', () => finish());
    if (signal.aborted) stop('abort');
  });
}
