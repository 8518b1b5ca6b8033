import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createListFilesTool, DEFAULT_LIST_FILES_LIMIT } from './list-files-tool.ts';
import { createWorkspace } from './workspace-paths.ts';
import { call, makeTempDir, writeTree } from './workspace-test-helpers.ts';

let root: string;
let remove: () => void;
const list = (args: unknown) => call([createListFilesTool(createWorkspace(root))], 'list_files', args);

beforeEach(() => {
  ({ dir: root, remove } = makeTempDir());
  writeTree(root, {
    'README.md': '# r\n',
    'src/index.ts': 'x\n',
    'src/lib/util.ts': 'x\n',
    'src/lib/deep/deeper/leaf.ts': 'x\n',
    '.git/HEAD': 'ref\n',
    'node_modules/pkg/index.js': 'x\n',
  });
});
afterEach(() => remove());

describe('list_files', () => {
  it('lists the tree to the default depth, directories marked, paths from the root', async () => {
    const result = await list({});
    expect(result.isError).toBe(false);
    const lines = result.content.split('\n');
    expect(lines.slice(1, 7)).toEqual([
      'README.md',
      'src/',
      'src/index.ts',
      'src/lib/',
      'src/lib/deep/',
      'src/lib/util.ts',
    ]);
    expect(result.content).not.toContain('leaf.ts');
    expect(result.content).toContain('Directories at depth 3 are not opened');
  });

  it('skips .git and node_modules unless asked, and says it did', async () => {
    const result = await list({});
    expect(result.content).not.toContain('HEAD');
    expect(result.content).not.toContain('pkg');
    expect(result.content).toMatch(/Not opened: \.git, node_modules/);
    const all = await list({ includeSkipped: true });
    expect(all.content).toContain('.git/HEAD');
    expect(all.content).toContain('node_modules/pkg/');
  });

  it('lists a subdirectory with paths still relative to the root, and filters by pattern at any depth', async () => {
    const sub = await list({ path: 'src/lib', depth: 1 });
    expect(sub.content.split('\n').slice(1)).toEqual([
      'src/lib/deep/',
      'src/lib/util.ts',
      expect.stringContaining('depth 1'),
    ]);
    const ts = await list({ pattern: '*.ts' });
    expect(ts.content.split('\n').slice(1, 4)).toEqual([
      'src/index.ts',
      'src/lib/deep/deeper/leaf.ts',
      'src/lib/util.ts',
    ]);
    expect(ts.content).toContain('3 entries matching "*.ts"');
  });

  it('shows symbolic links with their target and does not follow them', async () => {
    fs.symlinkSync('/', path.join(root, 'src', 'to-root'));
    const result = await list({ path: 'src' });
    expect(result.content).toContain('src/to-root -> /');
    expect(result.content).not.toContain('src/to-root/');
  });

  it('stops at the limit and says there are more', async () => {
    writeTree(
      root,
      Object.fromEntries(
        Array.from({ length: 700 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, '']),
      ),
    );
    const result = await list({ path: 'many' });
    expect(result.content.split('\n').filter((line) => line.startsWith('many/'))).toHaveLength(
      DEFAULT_LIST_FILES_LIMIT,
    );
    expect(result.content).toContain(`Stopped at ${DEFAULT_LIST_FILES_LIMIT} entries: there are more`);
    const small = await list({ path: 'many', limit: 3 });
    expect(small.content.split('\n').filter((line) => line.startsWith('many/'))).toHaveLength(3);
  });

  it('refuses paths outside the workspace, files, missing directories and bad arguments', async () => {
    expect(await list({ path: '..' })).toMatchObject({ isError: true, code: 'outside_workspace' });
    expect(await list({ path: 'README.md' })).toMatchObject({ isError: true, code: 'not_a_directory' });
    expect(await list({ path: 'nope' })).toMatchObject({ isError: true, code: 'not_found' });
    const bad = await list({ depth: 'deep' });
    expect(bad).toMatchObject({ isError: true, code: 'invalid_arguments' });
    expect(bad.content).toContain('"depth"');
    expect((await list({ pattern: '{a' })).content).toContain('"pattern"');
  });
});
