/**
 * A resume of a long session reads the SQLite store a range at a time, the event loop getting turns
 * between two reads, and reads what one transaction read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import { createSqliteSessionStore, SQLITE_READ_ROWS } from './sqlite-session-store.ts';
import { DROP_EDIT } from './testing/session-store-conformance-fixtures.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store() {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-ranges-'));
  dirs.push(dir);
  return createSqliteSessionStore({ dataDir: dir });
}

const messages = (count: number): Message[] =>
  numbered(
    Array.from({ length: count }, (_, index) =>
      index % 2 === 0 ? user(`u${index}`) : assistant(`a${index}`),
    ),
  );

it('resumes a long session in ranges: every id, the bodies since the newest cut, other work going on', async () => {
  const sessions = await store();
  try {
    const log = messages(SQLITE_READ_ROWS * 2 + 5);
    const contentIds = log.map((message) => `c${message.seq}`);
    const cut = { ...DROP_EDIT, throughSeq: log.length - 10 };
    await sessions.append(
      's',
      { messages: log, contentIds, edits: [cut], expectedSeq: 0, expectedEditCount: 0 },
      1,
    );
    const turns = new EventLoopTurns();
    const recent = await sessions.loadRecent('s');
    turns.stop();
    expect(recent?.messageIds).toEqual(log.map((message) => message.id));
    expect(recent?.contentIds).toEqual(contentIds);
    expect(recent?.logStart).toBe(cut.throughSeq + 1);
    expect(recent?.recent).toEqual(log.slice(cut.throughSeq + 1));
    expect(recent?.edits).toEqual([cut]);
    expect(recent?.editCount).toBe(1);
    // One transaction gave no turn.
    expect(turns.count).toBeGreaterThanOrEqual(3);
  } finally {
    await sessions.close();
  }
});

it('finds no session when it is deleted while it is read', async () => {
  const sessions = await store();
  try {
    const log = messages(SQLITE_READ_ROWS * 3);
    await sessions.appendMessages('s', log, 0, 1);
    const reading = sessions.loadRecent('s');
    await new Promise((done) => setImmediate(done));
    await sessions.delete('s');
    expect(await reading).toBeUndefined();
  } finally {
    await sessions.close();
  }
});
