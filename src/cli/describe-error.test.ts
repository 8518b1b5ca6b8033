import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors/index.ts';
import { describeError } from './describe-error.ts';
import { EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR } from './exit-codes.ts';

const errno = (code: string, path?: string) =>
  Object.assign(new Error(`${code}: raw message, stat '${path}'`), { code, ...(path ? { path } : {}) });

describe('describeError', () => {
  it('a ctxkit error is bad input, with its own message', () => {
    expect(describeError(new InvalidInputError('not valid JSON', { file: 'x.jsonl', line: 3 }))).toEqual({
      message: 'x.jsonl, line 3: not valid JSON',
      exitCode: EXIT_BAD_INPUT,
      internal: false,
    });
  });

  it('a file-system error says what was wrong in words and names the path, not the errno', () => {
    expect(describeError(errno('ENOENT', 'x.jsonl')).message).toBe('no such file or directory: "x.jsonl"');
    expect(describeError(errno('EACCES', '/root/s.jsonl')).message).toBe(
      'permission denied: "/root/s.jsonl"',
    );
    expect(describeError(errno('EISDIR', 'dir')).message).toBe('is a directory, not a file: "dir"');
    expect(describeError(errno('ENOENT', 'a\nb\u001b[2J')).message).toBe(
      'no such file or directory: "a\\nb\\x1b[2J"',
    );
    expect(describeError(errno('ENOENT')).exitCode).toBe(EXIT_BAD_INPUT);
  });

  it('anything else is a bug: its own exit status and the stack', () => {
    const described = describeError(new TypeError('undefined is not a function'));
    expect(described.exitCode).toBe(EXIT_INTERNAL_ERROR);
    expect(described.internal).toBe(true);
    expect(described.message).toMatch(
      /^internal error \(a bug in ctxkit\): TypeError: undefined is not a function\n\s+at /,
    );
    expect(describeError('thrown text').message).toBe('internal error (a bug in ctxkit): thrown text');
  });
});
