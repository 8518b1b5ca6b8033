import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root and the `ctxkit` executable the package ships. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = join(ROOT, 'bin/ctxkit.js');

export interface CtxkitRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ctxkit` as a user does: a child process, in `cwd`, without colours and without the
 * developer's config file. Never throws for a non-zero exit: the status is part of the result.
 */
export function runCtxkit(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CtxkitRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: options.cwd,
        env: { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '', ...options.env },
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        done({ code, stdout, stderr });
      },
    );
  });
}
