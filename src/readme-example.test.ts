import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));

/** The README's first TypeScript example after a heading, as written there. */
function exampleUnder(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.indexOf(`\n## ${heading}\n`);
  expect(section, `README has a "## ${heading}" section`).toBeGreaterThan(-1);
  const start = readme.indexOf('```ts\n', section);
  const end = readme.indexOf('\n```', start + 6);
  return readme.slice(start + 6, end);
}

describe('the README', () => {
  it('"As a library": the example runs as written, against this package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-readme-'));
    try {
      const example = exampleUnder('As a library')
        .replace("from 'ctxkit'", `from ${JSON.stringify(INDEX)}`)
        .replace(
          'await openEmbeddedStores()',
          `await openEmbeddedStores({ dataDir: ${JSON.stringify(dir)} })`,
        );
      const file = join(dir, 'example.mts');
      writeFileSync(
        file,
        `${example}\nconsole.log(JSON.stringify({ system, messages: request.messages.length, tools: request.tools.map((tool) => tool.function.name), pointers }));\n`,
      );
      const out = execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, encoding: 'utf8' });
      expect(JSON.parse(out.trim().split('\n').at(-1) ?? '{}')).toEqual({
        system: 'You are a coding agent.',
        messages: 2,
        tools: ['bash', 'read_offloaded'],
        pointers: [],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
