import { CtxkitError } from '../core/errors/index.ts';
import { quoted } from '../core/escape-for-terminal.ts';
import { EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR } from './exit-codes.ts';

/** What the CLI prints for an error, and the status it exits with. */
export interface DescribedError {
  message: string;
  exitCode: number;
  /** A bug, not a user error: the stack is printed too. */
  internal: boolean;
}

/** File-system failures the user causes and can fix, in words. */
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'file name too long',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EEXIST: 'already exists',
};

/**
 * A thrown value as the user should read it: a CtxkitError's own message (it names the file, line,
 * key or flag), a file-system error as `no such file or directory: "x.jsonl"` (never an errno stack;
 * the path is input, so it is quoted and escaped here), and anything else as an internal error. A user
 * error is one line: the caller escapes it for the terminal with no newline kept; only an internal
 * error's stack is printed over several lines.
 */
export function describeError(error: unknown): DescribedError {
  if (CtxkitError.isInstance(error)) {
    return { message: error.message, exitCode: EXIT_BAD_INPUT, internal: false };
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof Error && code !== undefined && FILE_PROBLEMS[code] !== undefined) {
    const path = (error as NodeJS.ErrnoException).path;
    return {
      message: path !== undefined ? `${FILE_PROBLEMS[code]}: ${quoted(path)}` : `${FILE_PROBLEMS[code]}`,
      exitCode: EXIT_BAD_INPUT,
      internal: false,
    };
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    message: `internal error (a bug in ctxkit): ${message}`,
    exitCode: EXIT_INTERNAL_ERROR,
    internal: true,
  };
}
