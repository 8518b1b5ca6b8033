import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditFileTool } from './edit-file-tool.ts';
import { createWorkspace } from './workspace-paths.ts';
import { call, makeTempDir, toolContext, writeTree } from './workspace-test-helpers.ts';
import { createWriteFileTool } from './write-file-tool.ts';

let root: string;
let remove: () => void;
let outside: { dir: string; remove: () => void };
const tools = () => {
  const workspace = createWorkspace(root);
  return [createWriteFileTool(workspace), createEditFileTool(workspace)];
};
const read = (name: string) => fs.readFileSync(path.join(root, name), 'utf8');

beforeEach(() => {
  ({ dir: root, remove } = makeTempDir());
  outside = makeTempDir();
  writeTree(root, { 'src/a.ts': 'const a = 1;\nconst b = 1;\nexport { a, b };\n' });
});
afterEach(() => {
  remove();
  outside.remove();
});

describe('write_file', () => {
  it('creates a file and its parent directories, after asking with a one-line summary', async () => {
    const context = toolContext();
    const content = `${'x'.repeat(1_199)}\nend\n`;
    const result = await call(tools(), 'write_file', { path: 'new/dir/c.txt', content }, context);
    expect(result).toEqual({ content: 'created new/dir/c.txt (1,204 bytes, 2 lines)', isError: false });
    expect(context.asked).toEqual([
      {
        tool: 'write_file',
        summary: 'write new/dir/c.txt (1,204 bytes)',
        detail: `+ ${'x'.repeat(159)}…\n+ end`,
      },
    ]);
    expect(read('new/dir/c.txt')).toBe(content);
    const again = await call(tools(), 'write_file', { path: 'new/dir/c.txt', content: 'é' }, context);
    expect(again.content).toBe('replaced new/dir/c.txt (2 bytes, 1 line)');
    expect(read('new/dir/c.txt')).toBe('é');
  });

  it('writes nothing when the user declines', async () => {
    const result = await call(
      tools(),
      'write_file',
      { path: 'b.txt', content: 'x' },
      toolContext({ allow: false }),
    );
    expect(result).toMatchObject({ isError: true, code: 'declined' });
    expect(result.content).toContain('the user declined');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
  });

  it('refuses paths outside the workspace without asking, symbolic links out included', async () => {
    fs.symlinkSync(outside.dir, path.join(root, 'out'));
    for (const input of ['../escape.txt', path.join(outside.dir, 'x.txt'), 'out/x.txt', 'out/deep/x.txt']) {
      const context = toolContext();
      const result = await call(tools(), 'write_file', { path: input, content: 'x' }, context);
      expect(result, input).toMatchObject({ isError: true, code: 'outside_workspace' });
      expect(context.asked).toEqual([]);
    }
    expect(fs.readdirSync(outside.dir)).toEqual([]);
  });

  it('writes through a symbolic link that stays inside the workspace, to its target', async () => {
    fs.symlinkSync(path.join(root, 'src/a.ts'), path.join(root, 'alias.ts'));
    await call(tools(), 'write_file', { path: 'alias.ts', content: 'new\n' });
    expect(read('src/a.ts')).toBe('new\n');
    expect(fs.lstatSync(path.join(root, 'alias.ts')).isSymbolicLink()).toBe(true);
  });

  it('refuses directories and bad arguments, naming the field', async () => {
    expect(await call(tools(), 'write_file', { path: 'src', content: 'x' })).toMatchObject({
      code: 'not_a_file',
    });
    expect(await call(tools(), 'write_file', { path: '.', content: 'x' })).toMatchObject({
      code: 'not_a_file',
    });
    const bad = await call(tools(), 'write_file', { path: 'a.txt', content: 5 });
    expect(bad).toMatchObject({ isError: true, code: 'invalid_arguments' });
    expect(bad.content).toContain('"content"');
    expect((await call(tools(), 'write_file', { path: 'src/a.ts/x', content: 'x' })).isError).toBe(true);
  });
});

describe('edit_file', () => {
  it('replaces the one occurrence of the old text, after asking', async () => {
    const context = toolContext();
    const result = await call(
      tools(),
      'edit_file',
      { path: 'src/a.ts', oldText: 'const b = 1;', newText: 'const b = 2;\n// two' },
      context,
    );
    expect(result).toEqual({
      content: 'edited src/a.ts: 1 line from line 2 replaced by 2 lines',
      isError: false,
    });
    expect(context.asked).toEqual([
      {
        tool: 'edit_file',
        summary: 'edit src/a.ts (line 2)',
        detail: '- const b = 1;\n+ const b = 2;\n+ // two',
      },
    ]);
    expect(read('src/a.ts')).toBe('const a = 1;\nconst b = 2;\n// two\nexport { a, b };\n');
  });

  it('refuses an old text that occurs more than once, saying how many times and where', async () => {
    const context = toolContext();
    const result = await call(
      tools(),
      'edit_file',
      { path: 'src/a.ts', oldText: ' = 1;', newText: ' = 3;' },
      context,
    );
    expect(result).toMatchObject({ isError: true, code: 'ambiguous_match' });
    expect(result.content).toContain('occurs 2 times in src/a.ts (at lines 1, 2)');
    expect(context.asked).toEqual([]);
    expect(read('src/a.ts')).toBe('const a = 1;\nconst b = 1;\nexport { a, b };\n');
    // Overlapping occurrences count too.
    writeTree(root, { 'aaa.txt': 'aaa' });
    expect(
      (await call(tools(), 'edit_file', { path: 'aaa.txt', oldText: 'aa', newText: 'b' })).content,
    ).toContain('occurs 2 times');
  });

  it('refuses an old text that does not occur, with a hint when it nearly does', async () => {
    const none = await call(tools(), 'edit_file', { path: 'src/a.ts', oldText: 'const c', newText: 'x' });
    expect(none).toMatchObject({ isError: true, code: 'no_match' });
    expect(none.content).toContain('does not occur in src/a.ts');
    const spaced = await call(tools(), 'edit_file', {
      path: 'src/a.ts',
      oldText: '  const a = 1;  ',
      newText: 'x',
    });
    expect(spaced.content).toContain('different leading or trailing whitespace');
    writeTree(root, { 'crlf.txt': 'one\r\ntwo\r\n' });
    const crlf = await call(tools(), 'edit_file', { path: 'crlf.txt', oldText: 'one\ntwo', newText: 'x' });
    expect(crlf.content).toContain('\\r\\n');
  });

  it('changes nothing when the user declines, or when the file changed while they were asked', async () => {
    const declined = await call(
      tools(),
      'edit_file',
      { path: 'src/a.ts', oldText: 'const a', newText: 'let a' },
      toolContext({ allow: false }),
    );
    expect(declined).toMatchObject({ isError: true, code: 'declined' });
    expect(read('src/a.ts')).toContain('const a');
    const racing = {
      ...toolContext(),
      confirm: async () => {
        fs.appendFileSync(path.join(root, 'src/a.ts'), '// meanwhile\n');
        return true;
      },
    };
    const changed = await call(
      tools(),
      'edit_file',
      { path: 'src/a.ts', oldText: 'const a', newText: 'let a' },
      racing,
    );
    expect(changed).toMatchObject({ isError: true, code: 'changed' });
    expect(read('src/a.ts')).toBe('const a = 1;\nconst b = 1;\nexport { a, b };\n// meanwhile\n');
  });

  it('refuses binary files, files that are not UTF-8, paths outside and bad arguments', async () => {
    writeTree(root, {
      'bin.dat': Buffer.from([0, 1, 2, 3]),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    });
    expect(await call(tools(), 'edit_file', { path: 'bin.dat', oldText: 'a', newText: 'b' })).toMatchObject({
      code: 'binary_file',
    });
    const latin = await call(tools(), 'edit_file', { path: 'latin1.txt', oldText: 'caf', newText: 'tea' });
    expect(latin).toMatchObject({ code: 'binary_file' });
    expect(latin.content).toContain('not valid UTF-8');
    expect(await call(tools(), 'edit_file', { path: '../x', oldText: 'a', newText: 'b' })).toMatchObject({
      code: 'outside_workspace',
    });
    const empty = await call(tools(), 'edit_file', { path: 'src/a.ts', oldText: '', newText: 'b' });
    expect(empty).toMatchObject({ code: 'invalid_arguments' });
    expect(empty.content).toContain('"oldText"');
    const missing = await call(tools(), 'edit_file', { path: 'src/a.ts', oldText: 'a' });
    expect(missing.content).toContain('"newText" is required');
  });
});
