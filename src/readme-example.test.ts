import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { promisedOutput, readmeExample } from './testing/readme-examples.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('the README', () => {
  it('the library example is plain JavaScript that runs as printed and prints what its comments say', () => {
    const code = readmeExample('library');
    expect(code).toContain("from 'ctxkit'");
    // Inside the package (the git-ignored tmp/), so `ctxkit` resolves to this package by its own name.
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, 'tmp', 'readme-library-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, code);
      // Plain node parses it: no TypeScript syntax slipped in.
      execFileSync(process.execPath, ['--check', file]);
      // Run from its own directory: the example writes ./.ctxkit, as its comment says, and nowhere else.
      const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: dir, encoding: 'utf8' });
      const lines = out.trim().split('\n');
      expect(lines).toEqual(['system → user', '1', '1: FAIL src/dates.test.ts']);
      expect(promisedOutput(code)).toEqual(lines);
      expect(existsSync(join(dir, '.ctxkit', 'ctxkit.db'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
