import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCtxkit } from './testing/run-ctxkit.ts';

/** `ctxkit prune` as a user runs it (child process). */
describe('ctxkit prune (child process)', () => {
  let dir: string;
  const ctxkit = (args: string[]) => runCtxkit(args, { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-prune-'));
  });

  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('a missing data directory or database is nothing to prune, and neither is created', async () => {
    await mkdir(join(dir, 'empty'));
    const [dryMissing, missing, dryEmpty] = await Promise.all([
      ctxkit(['prune', '--dry-run', '--data', 'nonexist']),
      ctxkit(['prune', '--data', 'gone']),
      ctxkit(['prune', '--dry-run', '--data', 'empty']),
    ]);
    expect(dryMissing).toEqual({
      code: 0,
      stdout: 'nothing to prune: no data directory nonexist\n',
      stderr: '',
    });
    expect(missing).toEqual({ code: 0, stdout: 'nothing to prune: no data directory gone\n', stderr: '' });
    expect(dryEmpty).toEqual({
      code: 0,
      stdout: 'nothing to prune: no session store in empty\n',
      stderr: '',
    });
    expect(existsSync(join(dir, 'nonexist'))).toBe(false);
    expect(existsSync(join(dir, 'gone'))).toBe(false);
    expect(await readdir(join(dir, 'empty'))).toEqual([]);
  });

  it('--dry-run lists the idle sessions of an existing store and changes nothing', async () => {
    const session = join(ROOT, 'fixtures/corpus/openhands__basic.jsonl');
    const replay = await ctxkit(['replay', session, '--data', 'data', '--window', '16000']);
    expect(replay.code).toBe(0);
    const snapshot = async () => {
      const files = (await readdir(join(dir, 'data'), { recursive: true })).sort();
      const db = createHash('sha256')
        .update(await readFile(join(dir, 'data/ctxkit.db')))
        .digest('hex');
      return { files, db };
    };
    const before = await snapshot();

    // The replayed session is dated by its recording, long past the 30-day retention.
    const dry = await ctxkit(['prune', '--dry-run', '--data', 'data']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^would remove replay-openhands__basic\.jsonl-\S+: idle \d+ days, /m);
    expect(dry.stdout).toMatch(/^1 session\(s\) idle more than 30 days would be removed from data\n$/m);
    expect(await snapshot()).toEqual(before);

    const pruned = await ctxkit(['prune', '--data', 'data']);
    expect(pruned.stdout).toMatch(/^1 session\(s\) idle more than 30 days removed from data\n$/m);
    const after = await ctxkit(['prune', '--dry-run', '--data', 'data']);
    expect(after.stdout).toBe('0 session(s) idle more than 30 days would be removed from data\n');
  });
});
