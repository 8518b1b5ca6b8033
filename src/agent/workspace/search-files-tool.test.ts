import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSearchFilesTool,
  DEFAULT_SEARCH_FILES_LIMIT,
  MAX_SEARCH_FILE_BYTES,
  MAX_SEARCH_FILES_CHARS,
  type SearchFilesOptions,
} from './search-files-tool.ts';
import { createWorkspace } from './workspace-paths.ts';
import { call, makeTempDir, writeTree } from './workspace-test-helpers.ts';

let root: string;
let remove: () => void;
const search = (args: unknown, options: SearchFilesOptions = {}) =>
  call([createSearchFilesTool(createWorkspace(root), options)], 'search_files', args);

beforeEach(() => {
  ({ dir: root, remove } = makeTempDir());
  writeTree(root, {
    'src/a.ts': 'const total = a + b;\nconst price = (x) => x * 2;\nexport { total };\n',
    'src/b.js': 'let Total = 3;\r\n',
    'docs/notes.md': 'the total (a+b) is computed in src/a.ts\n',
    '.git/config': 'total\n',
    'node_modules/pkg/index.js': 'total\n',
    'image.bin': Buffer.from([0x00, 0x74, 0x6f, 0x74, 0x61, 0x6c]),
  });
});
afterEach(() => remove());

const matchLines = (content: string) => content.split('\n').slice(1);

describe('search_files', () => {
  it('finds a text case-insensitively as path:line: text, skipping .git, node_modules and binary files', async () => {
    const result = await search({ query: 'total' });
    expect(result.isError).toBe(false);
    expect(matchLines(result.content)).toEqual([
      'docs/notes.md:1: the total (a+b) is computed in src/a.ts',
      'src/a.ts:1: const total = a + b;',
      'src/a.ts:3: export { total };',
      'src/b.js:1: let Total = 3;',
    ]);
    expect(result.content.split('\n')[0]).toMatch(/4 matches for "total" in 3 files; searched 3 files\./);
    expect(result.content).toMatch(/Not searched: 2 directories \(\.git, node_modules.*1 binary file/);
    const all = await search({ query: 'total', includeSkipped: true });
    expect(all.content).toContain('.git/config:1: total');
    expect(all.content).toContain('node_modules/pkg/index.js:1: total');
  });

  it('takes the query literally unless regex is true', async () => {
    expect(matchLines((await search({ query: '(a+b)' })).content)).toEqual([
      'docs/notes.md:1: the total (a+b) is computed in src/a.ts',
    ]);
    expect(matchLines((await search({ query: 'const \\w+ = \\(', regex: true })).content)).toEqual([
      'src/a.ts:2: const price = (x) => x * 2;',
    ]);
    expect(matchLines((await search({ query: 'Total', caseSensitive: true })).content)).toEqual([
      'src/b.js:1: let Total = 3;',
    ]);
    const bad = await search({ query: '(unclosed', regex: true });
    expect(bad).toMatchObject({ isError: true, code: 'invalid_arguments' });
    expect(bad.content).toContain('not a valid regular expression');
  });

  it('narrows by path and glob, and searches a single file', async () => {
    expect(matchLines((await search({ query: 'total', glob: '*.ts' })).content)).toHaveLength(2);
    expect(matchLines((await search({ query: 'total', path: 'docs' })).content)).toEqual([
      'docs/notes.md:1: the total (a+b) is computed in src/a.ts',
    ]);
    expect(matchLines((await search({ query: 'total', path: 'src/b.js' })).content)).toEqual([
      'src/b.js:1: let Total = 3;',
    ]);
    expect(await search({ query: 'x', path: 'image.bin' })).toMatchObject({ code: 'binary_file' });
    expect(await search({ query: 'x', path: '../' })).toMatchObject({ code: 'outside_workspace' });
    const none = await search({ query: 'nowhere to be found' });
    expect(none).toMatchObject({ isError: false });
    expect(none.content).toMatch(/^\[no line matches "nowhere to be found"; searched 3 files/);
  });

  it('keeps its answer bounded: a limit of matches, characters and excerpt length', async () => {
    writeTree(root, { 'many.txt': 'needle here\n'.repeat(5_000) });
    const result = await search({ query: 'needle', path: 'many.txt' });
    expect(matchLines(result.content)).toHaveLength(DEFAULT_SEARCH_FILES_LIMIT);
    expect(result.content).toContain(`Stopped at ${DEFAULT_SEARCH_FILES_LIMIT} matches`);
    const long = await search({ query: 'needle', path: 'many.txt', limit: 1_000 });
    expect(long.content.length).toBeLessThanOrEqual(MAX_SEARCH_FILES_CHARS + 500);
    writeTree(root, { 'wide.txt': `${'x'.repeat(10_000)}NEEDLE${'y'.repeat(10_000)}\n` });
    const wide = await search({ query: 'needle', path: 'wide.txt' });
    const line = matchLines(wide.content)[0] ?? '';
    expect(line.length).toBeLessThan(300);
    expect(line).toMatch(/^wide\.txt:1: …x+NEEDLEy+…$/);
  });

  it('skips files over the size limit and says so', async () => {
    const big = path.join(root, 'big.log');
    fs.writeFileSync(big, Buffer.alloc(MAX_SEARCH_FILE_BYTES + 1, 0x61));
    const result = await search({ query: 'total' });
    expect(result.content).toMatch(/1 file over [\d,]+ bytes/);
    expect(await search({ query: 'a', path: 'big.log' })).toMatchObject({ code: 'too_large' });
  });

  it('stops a pattern with catastrophic backtracking instead of hanging', async () => {
    writeTree(root, { 'evil.txt': `${'a'.repeat(40)}!\n` });
    const started = Date.now();
    const result = await search({ query: '(a+)+$', regex: true, path: 'evil.txt' }, { fileTimeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ isError: true, code: 'timed_out' });
    expect(result.content).toContain('simplify it');
  });

  it('names the argument at fault', async () => {
    for (const [args, field] of [
      [{}, '"query" is required'],
      [{ query: 3 }, '"query"'],
      [{ query: 'a', regex: 'yes' }, '"regex"'],
      [{ query: 'a', glob: '{x' }, '"glob"'],
      [{ query: 'a', nope: 1 }, '"nope"'],
    ] as const) {
      const result = await search(args);
      expect(result, JSON.stringify(args)).toMatchObject({ isError: true, code: 'invalid_arguments' });
      expect(result.content).toContain(field);
    }
  });
});
