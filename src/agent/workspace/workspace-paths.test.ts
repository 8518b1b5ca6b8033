import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceToolError } from './tool-result.ts';
import { createWorkspace, type Workspace } from './workspace-paths.ts';
import { makeTempDir, writeTree } from './workspace-test-helpers.ts';

let root: string;
let outside: string;
let workspace: Workspace;
const cleanups: Array<() => void> = [];

beforeEach(() => {
  const base = makeTempDir();
  cleanups.push(base.remove);
  root = path.join(base.dir, 'root');
  outside = path.join(base.dir, 'outside');
  writeTree(root, { 'src/a.ts': 'a\n', 'docs/readme.md': 'r\n' });
  writeTree(outside, { 'secret.txt': 'secret\n' });
  workspace = createWorkspace(root);
});

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function refusal(input: string): Promise<WorkspaceToolError> {
  const error = await workspace.resolve(input).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `${input} should be refused`).toBeInstanceOf(WorkspaceToolError);
  return error as WorkspaceToolError;
}

describe('workspace path confinement', () => {
  it('resolves relative paths inside the root, existing or not', async () => {
    expect(await workspace.resolve('src/a.ts')).toEqual({
      relative: 'src/a.ts',
      real: path.join(root, 'src/a.ts'),
      exists: true,
    });
    expect(await workspace.resolve('.')).toMatchObject({ relative: '.', real: root, exists: true });
    expect(await workspace.resolve('src/../docs/./readme.md')).toMatchObject({ relative: 'docs/readme.md' });
    expect(await workspace.resolve('new/dir/file.txt')).toEqual({
      relative: 'new/dir/file.txt',
      real: path.join(root, 'new/dir/file.txt'),
      exists: false,
    });
  });

  it('accepts an absolute path inside the root', async () => {
    expect(await workspace.resolve(path.join(root, 'src/a.ts'))).toMatchObject({
      relative: 'src/a.ts',
      exists: true,
    });
  });

  it('refuses .. that leaves the root, and absolute paths elsewhere', async () => {
    for (const input of [
      '..',
      '../outside/secret.txt',
      'src/../../outside/secret.txt',
      outside,
      '/etc/passwd',
    ]) {
      const error = await refusal(input);
      expect(error.resultCode).toBe('outside_workspace');
      expect(error.message).toContain('outside the workspace');
    }
  });

  it('refuses a symbolic link whose real path leaves the root, for existing and new paths under it', async () => {
    fs.symlinkSync(outside, path.join(root, 'escape'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    for (const input of [
      'escape',
      'escape/secret.txt',
      'escape/new-file.txt',
      'escape/new/dir/f',
      'secret-link',
    ]) {
      expect((await refusal(input)).resultCode).toBe('outside_workspace');
    }
  });

  it('follows a symbolic link that stays inside the root, to its real path', async () => {
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'source'));
    expect(await workspace.resolve('source/a.ts')).toEqual({
      relative: 'source/a.ts',
      real: path.join(root, 'src/a.ts'),
      exists: true,
    });
    expect(await workspace.resolve('source/new.ts')).toMatchObject({
      real: path.join(root, 'src/new.ts'),
      exists: false,
    });
  });

  it('refuses a dangling symbolic link (a write would go wherever it points)', async () => {
    fs.symlinkSync(path.join(outside, 'not-yet'), path.join(root, 'dangling'));
    expect((await refusal('dangling')).resultCode).toBe('invalid_path');
  });

  it('works when the root itself is reached through a symbolic link', async () => {
    const linked = `${root}-link`;
    fs.symlinkSync(root, linked);
    const throughLink = createWorkspace(linked);
    expect(await throughLink.resolve(path.join(linked, 'src/a.ts'))).toMatchObject({ relative: 'src/a.ts' });
    expect(await throughLink.resolve(path.join(root, 'src/a.ts'))).toMatchObject({ relative: 'src/a.ts' });
    await expect(throughLink.resolve('../outside')).rejects.toMatchObject({
      resultCode: 'outside_workspace',
    });
  });

  it('refuses NUL bytes and overlong paths', async () => {
    expect((await refusal('src/a.ts\0.png')).resultCode).toBe('invalid_path');
    expect((await refusal('a/'.repeat(3_000))).resultCode).toBe('invalid_path');
  });

  it('says so when the root does not exist', async () => {
    await expect(createWorkspace(path.join(root, 'missing')).resolve('a')).rejects.toMatchObject({
      resultCode: 'not_found',
    });
  });
});
