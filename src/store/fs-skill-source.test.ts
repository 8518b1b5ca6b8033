import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsSkillSource, DEFAULT_SKILL_LIST_REFRESH_MS } from './fs-skill-source.ts';
import type { SkillTree } from './memory-skill-source.ts';
import { describeSkillSourceConformance, skillFile } from './skill-source.conformance.ts';

/** Lays a tree out as a skills directory under `root`. */
async function writeTree(root: string, tree: SkillTree): Promise<void> {
  for (const [directory, files] of Object.entries(tree)) {
    for (const [file, content] of Object.entries(files)) {
      const target = path.join(root, directory, ...file.split('/'));
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, content);
    }
  }
}

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-skills-'));
}

describeSkillSourceConformance('file system', async (trees) => {
  const base = await tempDir();
  const dirs: string[] = [];
  for (const [index, tree] of trees.entries()) {
    const dir = path.join(base, `skills-${index}`);
    await fs.mkdir(dir);
    await writeTree(dir, tree);
    dirs.push(dir);
  }
  return {
    source: createFsSkillSource(dirs),
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
});

describe('file-system skill source', () => {
  it('refuses directories that are not an array of paths, naming the argument', () => {
    for (const dirs of ['/tmp', [42], [''], null]) {
      expect(() => createFsSkillSource(dirs as never)).toThrow(
        expect.objectContaining({ code: 'invalid_input', field: 'createFsSkillSource(dirs)' }),
      );
    }
  });

  const withBase = (test: (base: string) => Promise<void>) => async () => {
    const base = await tempDir();
    try {
      await test(base);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  };

  it(
    'a FIFO where a file should be is not a file: reading and listing answer at once, never blocking',
    withBase(async (base) => {
      const skills = path.join(base, 'skills');
      await writeTree(skills, { tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Body.\n') } });
      await fs.mkdir(path.join(skills, 'piped'));
      execFileSync('mkfifo', [path.join(skills, 'tidy', 'data'), path.join(skills, 'piped', 'SKILL.md')]);
      const source = createFsSkillSource([skills]);
      const listing = await source.list();
      expect(listing.skills.map((skill) => skill.name)).toEqual(['tidy']);
      await expect(source.read('tidy', 'data')).rejects.toMatchObject({ code: 'skill_file_not_found' });
    }),
  );

  it(
    'refuses a symlink that leads out of the skill, and follows one that stays inside it',
    withBase(async (base) => {
      const skills = path.join(base, 'skills');
      await writeTree(skills, {
        tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Body.\n'), 'notes/inside.md': 'inside\n' },
        other: { 'SKILL.md': skillFile('other', 'Another skill.', 'Other body.\n') },
      });
      await fs.writeFile(path.join(base, 'secret.txt'), 'secret\n');
      await fs.symlink(path.join(base, 'secret.txt'), path.join(skills, 'tidy', 'leak.txt'));
      await fs.symlink(path.join(skills, 'other', 'SKILL.md'), path.join(skills, 'tidy', 'sibling.md'));
      await fs.symlink(base, path.join(skills, 'tidy', 'up'));
      await fs.symlink(
        path.join(skills, 'tidy', 'notes', 'inside.md'),
        path.join(skills, 'tidy', 'alias.md'),
      );
      const source = createFsSkillSource([skills]);
      await source.list();
      for (const outward of ['leak.txt', 'sibling.md', 'up/secret.txt']) {
        await expect(source.read('tidy', outward), outward).rejects.toMatchObject({
          code: 'invalid_skill_path',
        });
      }
      expect(await source.read('tidy', 'alias.md')).toBe('inside\n');
    }),
  );

  it(
    'reports a skill directory symlinked from outside, a symlinked SKILL.md and a missing skills directory as problems',
    withBase(async (base) => {
      const skills = path.join(base, 'skills');
      const elsewhere = path.join(base, 'elsewhere');
      await writeTree(skills, { tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Body.\n') } });
      await writeTree(elsewhere, {
        stray: { 'SKILL.md': skillFile('stray', 'Lives outside.', 'Stray body.\n') },
        linked: { 'SKILL.md': skillFile('linked', 'Linked file.', 'Linked body.\n') },
      });
      await fs.symlink(path.join(elsewhere, 'stray'), path.join(skills, 'stray'));
      await fs.mkdir(path.join(skills, 'linked'));
      await fs.symlink(path.join(elsewhere, 'linked', 'SKILL.md'), path.join(skills, 'linked', 'SKILL.md'));
      const missing = path.join(base, 'missing');
      const { skills: listed, problems } = await createFsSkillSource([missing, skills]).list();
      expect(listed).toEqual([{ name: 'tidy', description: 'Tidy up.' }]);
      expect(problems.map((problem) => problem.code).sort()).toEqual([
        'invalid_skill',
        'missing_directory',
        'outside_root',
      ]);
      expect(problems.find((problem) => problem.code === 'missing_directory')?.path).toBe(missing);
      expect(problems.find((problem) => problem.code === 'invalid_skill')?.message).toMatch(
        /linked\/SKILL\.md: file is a symbolic link/,
      );
    }),
  );

  it(
    'sees a skill changed, added or removed on disk once its listing is older than the refresh',
    withBase(async (base) => {
      await writeTree(base, { tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Body.\n') } });
      let now = 0;
      const source = createFsSkillSource([base], { clock: () => now });
      expect((await source.list()).skills).toEqual([{ name: 'tidy', description: 'Tidy up.' }]);
      await fs.writeFile(
        path.join(base, 'tidy', 'SKILL.md'),
        skillFile('tidy', 'Tidy up, v2.', 'Body two.\n'),
      );
      await writeTree(base, { fresh: { 'SKILL.md': skillFile('fresh', 'New.', 'Fresh body.\n') } });
      // Within the refresh the disk is not read again: list() runs before every call.
      now += DEFAULT_SKILL_LIST_REFRESH_MS - 1;
      expect((await source.list()).skills).toEqual([{ name: 'tidy', description: 'Tidy up.' }]);
      now += 1;
      expect((await source.list()).skills).toEqual([
        { name: 'fresh', description: 'New.' },
        { name: 'tidy', description: 'Tidy up, v2.' },
      ]);
      await fs.rm(path.join(base, 'fresh'), { recursive: true });
      now += DEFAULT_SKILL_LIST_REFRESH_MS;
      expect((await source.list()).skills.map((skill) => skill.name)).toEqual(['tidy']);
      await expect(source.read('fresh')).rejects.toMatchObject({ code: 'skill_not_found' });
      // A skill added is readable at once, before the next listing.
      await writeTree(base, { later: { 'SKILL.md': skillFile('later', 'Later.', 'Later body.\n') } });
      expect(await source.read('later')).toBe('Later body.\n');
    }),
  );

  it(
    'escapes control characters of a directory name in the problems it reports',
    withBase(async (base) => {
      await writeTree(base, { 'evil\u001b[31m': { 'SKILL.md': skillFile('evil', 'Evil.', 'Body.\n') } });
      const { problems } = await createFsSkillSource([base]).list();
      expect(problems).toHaveLength(1);
      expect(problems[0]?.path).toContain('evil\\u001b[31m');
      expect(JSON.stringify(problems)).not.toContain('\u001b');
    }),
  );

  it(
    'reports a skills directory that is a file, and lists the other directories',
    withBase(async (base) => {
      const file = path.join(base, 'not-a-dir');
      await fs.writeFile(file, 'x');
      await writeTree(path.join(base, 'skills'), {
        tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Body.\n') },
      });
      const { skills, problems } = await createFsSkillSource([file, path.join(base, 'skills')]).list();
      expect(skills.map((skill) => skill.name)).toEqual(['tidy']);
      expect(problems).toMatchObject([{ path: file, code: 'unreadable' }]);
      expect(problems[0]?.message).toMatch(/is not a directory/);
    }),
  );
});
