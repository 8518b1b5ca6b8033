/**
 * README.md (With LangChain.js agents), as written: its complete example runs against this package, imported by name
 * (`ctxkit`, `ctxkit/langchain`: a file inside the package resolves its own name through `exports`), and its
 * one-line switch from `summarizationMiddleware` is one line that changes only the function's name.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ctxkitContextMiddleware } from './ctxkit-context-middleware.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION_START = README.indexOf('\n## With LangChain.js agents\n');
/** The README's LangChain.js section. */
const DOC = README.slice(SECTION_START, README.indexOf('\n## ', SECTION_START + 5));

/** The TypeScript blocks after a heading of the page, as written there. */
function blocksUnder(heading: string): string[] {
  const start = DOC.indexOf(`\n### ${heading}\n`);
  expect(start, `README.md (With LangChain.js agents) has a "### ${heading}" section`).toBeGreaterThan(-1);
  const next = DOC.indexOf('\n### ', start + 5);
  const section = DOC.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
}

describe('README.md (With LangChain.js agents)', () => {
  it('"A complete example" runs as written, importing ctxkit/langchain', () => {
    const [example] = blocksUnder('A complete example');
    expect(example).toContain("from 'ctxkit/langchain'");
    // Inside the package (the git-ignored tmp/), so the package's own name resolves through its exports.
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    const dir = mkdtempSync(join(ROOT, 'tmp', 'docs-langchain-'));
    try {
      const file = join(dir, 'example.mts');
      writeFileSync(file, example ?? '');
      const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
      expect(out.trim().split('\n')).toEqual([
        'context 0%, 0 pointer(s)',
        'context 1%, 1 pointer(s)',
        'The date parser rejected ISO weeks; fixed in src/date.ts.',
        '4 messages in the session log',
      ]);
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
