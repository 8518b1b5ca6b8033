import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { numbered, user } from '../testing/build-messages.ts';
import { describeSessionStoreConformance } from './session-store.conformance.ts';
import {
  CREATE_MIGRATIONS_TABLE,
  MIGRATIONS_TABLE,
  SESSION_STORE_MIGRATIONS,
  SESSION_STORE_SCHEMA_VERSION,
  statementsFor,
  TABLE_PREFIX,
} from './session-store-migrations.ts';
import {
  createSqliteSessionStore,
  DEFAULT_DATA_DIR,
  DEFAULT_SQLITE_FILE,
  sqliteSessionStorePath,
} from './sqlite-session-store.ts';
import { expectMigratedV1Session, V1_MESSAGES } from './testing/schema-v1-session.ts';
import { sqliteHarness } from './testing/session-store-sqlite-harness.ts';

describeSessionStoreConformance('sqlite', sqliteHarness);

describe('createSqliteSessionStore', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-sqlite-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('puts ctxkit.db under ./.ctxkit unless told otherwise', () => {
    expect(sqliteSessionStorePath()).toBe(resolve(DEFAULT_DATA_DIR, DEFAULT_SQLITE_FILE));
    expect(sqliteSessionStorePath({ dataDir: '/data' })).toBe('/data/ctxkit.db');
    expect(sqliteSessionStorePath({ dataDir: '/data', path: 'x/y.db' })).toBe(resolve('x/y.db'));
  });

  it('creates the data directory, opens in WAL mode and records the schema version once', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    for (let open = 0; open < 2; open++) {
      const store = await createSqliteSessionStore({ dataDir });
      await store.appendMessages(`s${open}`, numbered([user('a')]), 0, 1);
      await store.close();
    }
    const db = new Database(join(dataDir, DEFAULT_SQLITE_FILE), { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare(`SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`).all()).toEqual(
        Array.from({ length: SESSION_STORE_SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })),
      );
      expect(db.prepare(`SELECT id, message_count FROM ${TABLE_PREFIX}sessions ORDER BY id`).all()).toEqual([
        { id: 's0', message_count: 1 },
        { id: 's1', message_count: 1 },
      ]);
    } finally {
      db.close();
    }
  });

  it('migrates a version-1 database: ids read from the bodies, content ids left empty, nothing lost', async () => {
    const dataDir = tempDir();
    const messages = V1_MESSAGES;
    const old = new Database(join(dataDir, DEFAULT_SQLITE_FILE));
    const [first] = SESSION_STORE_MIGRATIONS;
    if (!first) throw new Error('no migrations');
    old.exec(CREATE_MIGRATIONS_TABLE);
    for (const statement of statementsFor(first, 'sqlite')) old.exec(statement);
    old.prepare(`INSERT INTO ${MIGRATIONS_TABLE} VALUES (1, ?, 0)`).run(first.name);
    old.prepare(`INSERT INTO ${TABLE_PREFIX}sessions VALUES ('s1', 1, 1, 3, 0)`).run();
    for (const message of messages) {
      old
        .prepare(`INSERT INTO ${TABLE_PREFIX}messages (session_id, seq, body) VALUES ('s1', ?, ?)`)
        .run(message.seq, JSON.stringify(message));
    }
    old.close();
    const store = await createSqliteSessionStore({ dataDir });
    try {
      await expectMigratedV1Session(store);
    } finally {
      await store.close();
    }
  });

  it('opens a private in-memory database for ":memory:"', async () => {
    const store = await createSqliteSessionStore({ path: ':memory:' });
    await store.appendMessages('s1', numbered([user('a')]), 0, 1);
    expect((await store.load('s1'))?.log).toHaveLength(1);
    await store.close();
    expect(existsSync(':memory:')).toBe(false);
  });

  it('waits for another writer, then gives up with store_busy once busy_timeout has passed', async () => {
    const dataDir = tempDir();
    const store = await createSqliteSessionStore({ dataDir, busyTimeoutMs: 100 });
    const other = new Database(join(dataDir, DEFAULT_SQLITE_FILE));
    try {
      other.exec('BEGIN IMMEDIATE');
      const started = performance.now();
      await expect(store.appendMessages('s1', numbered([user('a')]), 0, 1)).rejects.toMatchObject({
        code: 'store_busy',
      });
      expect(performance.now() - started).toBeGreaterThanOrEqual(90);
      // Readers are not blocked by a writer in WAL mode.
      expect(await store.load('s1')).toBeUndefined();
      other.exec('ROLLBACK');
      await store.appendMessages('s1', numbered([user('a')]), 0, 1);
      expect((await store.load('s1'))?.log).toHaveLength(1);
    } finally {
      other.close();
      await store.close();
    }
  });
});
