import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './run-ctxkit.ts';

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM, then the exit status. */
  stop(): Promise<number | null>;
}

/**
 * `ctxkit serve` as a user starts it: a child process on a free port, in `cwd`, without colours and
 * without the developer's config file; resolves once it says where it listens.
 */
export async function startServeProcess(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '', ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk) => {
        stdout += String(chunk);
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    return {
      url,
      child,
      stdout: () => stdout,
      stderr: () => stderr,
      stop: () => {
        if (child.exitCode !== null) return Promise.resolve(child.exitCode);
        const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        return exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
