/**
 * The LangChain.js docs, as written: the README's example (`<!-- example: langchain -->`) runs against this
 * package, imported by name (`ctxkit`, `ctxkit/langchain`: a file inside the package resolves its own name
 * through `exports`), and docs/langchain.md's one-line switch from `summarizationMiddleware` is one line
 * that changes only the function's name.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { promisedOutput, readmeExample } from '../../testing/readme-examples.ts';
import { ctxkitContextMiddleware } from './ctxkit-context-middleware.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs', 'langchain.md'), 'utf8');

/** The TypeScript blocks under a heading of docs/langchain.md, as written there. */
function blocksUnder(heading: string): string[] {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/langchain.md has a "## ${heading}" section`).toBeGreaterThan(-1);
  const next = DOC.indexOf('\n## ', start + 5);
  const section = DOC.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
}

describe('the LangChain.js docs', () => {
  it("the README's example is plain JavaScript that runs as printed and prints what its comments say", () => {
    const example = readmeExample('langchain');
    expect(example).toContain("from 'ctxkit/langchain'");
    // Inside the package (the git-ignored tmp/), so the package's own name resolves through its exports.
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, 'tmp', 'docs-langchain-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, example);
      execFileSync(process.execPath, ['--check', file]);
      const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
      const lines = out.trim().split('\n');
      expect(lines).toEqual([
        'The date parser rejected ISO weeks; fixed in src/date.ts.',
        'context 0%, 0 pointer(s) · context 1%, 1 pointer(s)',
        'user → assistant → tool → assistant',
      ]);
      expect(promisedOutput(example)).toEqual(lines);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('"Switching from summarizationMiddleware" changes one line, the name, and the options are taken as they are', () => {
    const [before, after] = blocksUnder('Switching from summarizationMiddleware');
    expect(before?.split('\n')).toHaveLength(1);
    expect(after).toBe(before?.replace('summarizationMiddleware', 'ctxkitContextMiddleware'));
    const options = /ctxkitContextMiddleware\((\{.*\})\)/.exec(after ?? '')?.[1] ?? '';
    const middleware = ctxkitContextMiddleware(
      // The page's own options object (a `provider:model` name is resolved only when a summary is written).
      new Function(`return (${options});`)() as Parameters<typeof ctxkitContextMiddleware>[0],
    );
    expect(middleware.manager.policy.budget.maxContextTokens).toBe(4000);
    expect(middleware.manager.policy.summarize.keepRecentMessages).toBe(20);
    expect(middleware.manager.summarizer.name).toBe('model:gpt-4o-mini');
  });
});
