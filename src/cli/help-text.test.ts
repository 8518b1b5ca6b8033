import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCtxkit } from './testing/run-ctxkit.ts';

/** Help a user copies from must run in a clone: every path an example names ships in the repository. */
describe('ctxkit help examples (child process)', () => {
  it('name paths that exist in the repository, never outside it', async () => {
    const commands = [[], ['replay'], ['inspect'], ['config'], ['prune']];
    const runs = await Promise.all(
      commands.map((command) => runCtxkit([...command, '--help'], { cwd: ROOT })),
    );
    const examples: string[] = [];
    for (const [index, run] of runs.entries()) {
      expect(run.code, commands[index]?.join(' ')).toBe(0);
      expect(run.stdout, commands[index]?.join(' ')).not.toContain('../');
      for (const line of run.stdout.split('\n')) {
        const example = /^\s+ctxkit (?:replay|inspect) (.*)$/.exec(line)?.[1];
        if (example !== undefined) examples.push(example);
      }
    }
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      // The positional arguments: everything before the first flag.
      const tokens = example.split(/\s+/);
      const end = tokens.findIndex((token) => token.startsWith('-'));
      for (const path of tokens.slice(0, end === -1 ? undefined : end)) {
        expect(existsSync(join(ROOT, path)), `${path} in "ctxkit … ${example}"`).toBe(true);
      }
    }
  });
});

/** A flag a user learns on one command works on the next: the data directory has one name everywhere. */
describe('ctxkit flag names (child process)', () => {
  it('every command that keeps sessions takes their directory as --data', async () => {
    const commands = ['replay', 'prune', 'chat', 'serve'];
    const runs = await Promise.all(commands.map((command) => runCtxkit([command, '--help'], { cwd: ROOT })));
    for (const [index, run] of runs.entries()) {
      expect(run.code, commands[index]).toBe(0);
      expect(run.stdout, commands[index]).toMatch(/^\s+--data <dir>\s/m);
      expect(run.stdout, commands[index]).not.toContain('--data-dir');
    }
  });
});
