/** README.md (With the Vercel AI SDK)'s example runs as written, importing `ctxkit` and `ctxkit/ai-sdk` by name. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The first TypeScript block of the README's AI SDK section, as written there. */
function example(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf('\n## With the Vercel AI SDK\n');
  expect(from, 'README.md has a "With the Vercel AI SDK" section').toBeGreaterThan(-1);
  const page = readme.slice(from, readme.indexOf('\n## ', from + 5));
  const start = page.indexOf('```ts\n');
  expect(start, 'the section has a ```ts example').toBeGreaterThan(-1);
  const end = page.indexOf('\n```', start + 6);
  return page.slice(start + 6, end);
}

describe('README.md (With the Vercel AI SDK)', () => {
  it('the example runs as written against this package, and prints what its comments say', () => {
    const code = example();
    expect(code).toContain("from 'ctxkit/ai-sdk'");
    // Inside the package, so `ctxkit/ai-sdk` resolves to this package by its own name (package.json exports).
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, 'tmp', 'ai-sdk-example-'));
    try {
      const file = join(dir, 'example.mts');
      writeFileSync(file, code);
      const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
      const lines = out.trim().split('\n');
      expect(lines[0]).toBe('1 test failed: parses ISO dates.');
      expect(lines[1]).toBe('user → assistant → tool → assistant');
      expect(lines[2]).toBe('{ inputTokens: 950, outputTokens: 12 }');
      expect(lines[3]).toBe('true');
      // Each printed line is what the example's comment next to it says.
      const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((match) => match[1]);
      expect(promised.slice(0, 3)).toEqual(lines.slice(0, 3));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
