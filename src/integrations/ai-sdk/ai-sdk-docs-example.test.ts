/**
 * README.md's AI SDK example (`<!-- example: ai-sdk -->`) runs as written, importing ctxkit and
 * ctxkit/ai-sdk by name.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeExample } from '../../testing/readme-examples.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The README's AI SDK example, as written there. */
function example(): string {
  return readmeExample('ai-sdk');
}

describe('README.md (the AI SDK example)', () => {
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
