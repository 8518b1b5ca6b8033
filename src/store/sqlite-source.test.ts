import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { betterSqlite3 } from './load-better-sqlite3.ts';
import { DEFAULT_SQLITE_SYNCHRONOUS, openSqlite } from './sqlite-source.ts';

const SYNCHRONOUS_LEVELS = { off: 0, normal: 1, full: 2, extra: 3 } as const;

describe('openSqlite', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
  });

  it('opens a file in WAL mode, syncing as the session store does, and leaves a shared database as it is', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-sqlite-source-'));
    dirs.push(dir);
    const opened = openSqlite({ filename: path.join(dir, 'ctxkit.db') });
    expect(opened.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(opened.db.pragma('synchronous', { simple: true })).toBe(
      SYNCHRONOUS_LEVELS[DEFAULT_SQLITE_SYNCHRONOUS],
    );
    opened.close();

    const database = new (betterSqlite3())(path.join(dir, 'shared.db'));
    database.pragma('synchronous = full');
    const shared = openSqlite({ database });
    expect(shared.db.pragma('synchronous', { simple: true })).toBe(SYNCHRONOUS_LEVELS.full);
    shared.close();
    expect(database.open).toBe(true);
    database.close();
  });
});
