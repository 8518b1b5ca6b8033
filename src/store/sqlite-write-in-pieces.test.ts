/**
 * A large write to the SQLite store goes in transactions of a few milliseconds, the event loop getting
 * turns between them, and is still whole or absent: the pieces lie past the session's counts, where no
 * read looks, until the last moves the counts on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import type { SessionStore } from './session-store.ts';
import { TABLE_PREFIX } from './session-store-migrations.ts';
import {
  createSqliteSessionStore,
  SQLITE_PIECE_ROWS,
  sqliteSessionStorePath,
} from './sqlite-session-store.ts';
import { DROP_EDIT } from './testing/session-store-conformance-fixtures.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-pieces-'));
  dirs.push(dir);
  return dir;
}

/** `count` messages numbered from `from`, ids `m<seq>`. */
function messages(count: number, from = 0): Message[] {
  return numbered(
    Array.from({ length: from + count }, (_, index) =>
      index % 2 === 0 ? user(`u${index}`) : assistant(`a${index}`),
    ),
  ).slice(from);
}

/** Every message row of the session, past its counts too (a second connection). */
function rowsOf(dir: string, sessionId: string): number {
  const db = new Database(sqliteSessionStorePath({ dataDir: dir }), { readonly: true });
  try {
    return db
      .prepare(`SELECT count(*) FROM ${TABLE_PREFIX}messages WHERE session_id = ?`)
      .pluck()
      .get(sessionId) as number;
  } finally {
    db.close();
  }
}

/** Resolves once `condition` holds, checked after every turn of the event loop. */
async function turnsUntil(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000 && !condition(); turn++) await new Promise((done) => setImmediate(done));
  expect(condition()).toBe(true);
}

it('writes a large append whole, giving the event loop turns while it does', async () => {
  const store = await createSqliteSessionStore({ dataDir: dataDir() });
  try {
    const log = messages(SQLITE_PIECE_ROWS * 5 + 7);
    const turns = new EventLoopTurns();
    await store.append(
      's',
      { messages: log, contentIds: log.map((m) => `c${m.seq}`), expectedSeq: 0, expectedEditCount: 0 },
      1,
    );
    turns.stop();
    // One transaction gave none: the append ran from start to end without letting anything else run.
    expect(turns.count).toBeGreaterThanOrEqual(5);
    const loaded = await store.load('s');
    expect(loaded?.log).toEqual(log);
    const recent = await store.loadRecent('s');
    expect(recent?.contentIds).toEqual(log.map((m) => `c${m.seq}`));
    await store.appendMessages('s', messages(1, log.length), log.length, 2);
    expect((await store.load('s'))?.log).toHaveLength(log.length + 1);
  } finally {
    await store.close();
  }
});

it('shows nothing of a large append before it is whole, and refuses a malformed one storing nothing', async () => {
  const dir = dataDir();
  const store = await createSqliteSessionStore({ dataDir: dir });
  try {
    await store.appendMessages('s', messages(3), 0, 1);
    const log = messages(SQLITE_PIECE_ROWS * 3, 3);
    const writing = store.appendMessages('s', log, 3, 2);
    // Pieces are in the table (past the counts) while the reads still see the three messages.
    await turnsUntil(() => rowsOf(dir, 's') > 3);
    expect(rowsOf(dir, 's')).toBeLessThan(3 + log.length);
    expect((await store.load('s'))?.log).toHaveLength(3);
    expect((await store.loadRecent('s'))?.messageIds).toHaveLength(3);
    expect((await store.list()).find((listing) => listing.id === 's')?.messages).toBe(3);
    await writing;
    expect((await store.load('s'))?.log).toHaveLength(3 + log.length);

    const malformed = messages(SQLITE_PIECE_ROWS * 3, 3 + log.length);
    (malformed.at(-1) as { parts: unknown }).parts = [{ type: 'text', text: 3 }];
    await expect(store.appendMessages('s', malformed, 3 + log.length, 3)).rejects.toMatchObject({
      code: 'invalid_append',
    });
    expect(rowsOf(dir, 's')).toBe(3 + log.length);
  } finally {
    await store.close();
  }
});

it('drops what a large write left when another writer came first, which is then a conflict', async () => {
  const dir = dataDir();
  const first = await createSqliteSessionStore({ dataDir: dir });
  const second = await createSqliteSessionStore({ dataDir: dir });
  try {
    await first.appendMessages('s', messages(2), 0, 1);
    const large = first.appendMessages('s', messages(SQLITE_PIECE_ROWS * 4, 2), 2, 2);
    const settled = large.then(
      () => undefined,
      (error: unknown) => error,
    );
    await turnsUntil(() => rowsOf(dir, 's') > 2);
    // The other writer takes position 2: the large write's pieces past it are dropped.
    await second.appendMessages('s', messages(1, 2), 2, 3);
    expect(await settled).toMatchObject({ code: 'sequence_conflict' });
    expect(rowsOf(dir, 's')).toBe(3);
    expect((await first.load('s'))?.log).toEqual(messages(3));
    // And the next large write goes whole.
    await first.appendMessages('s', messages(SQLITE_PIECE_ROWS * 2, 3), 3, 4);
    expect((await second.load('s'))?.log).toEqual(messages(3 + SQLITE_PIECE_ROWS * 2));
  } finally {
    await first.close();
    await second.close();
  }
});

it('writes a large first append of a new session, edits with it', async () => {
  const store: SessionStore = await createSqliteSessionStore({ dataDir: dataDir() });
  try {
    const log = messages(SQLITE_PIECE_ROWS * 2 + 1);
    const edit = DROP_EDIT;
    await store.append('new', { messages: log, edits: [edit], expectedSeq: 0, expectedEditCount: 0 }, 1);
    const loaded = await store.load('new');
    expect(loaded?.log).toEqual(log);
    expect(loaded?.edits).toEqual([edit]);
  } finally {
    await store.close();
  }
});
