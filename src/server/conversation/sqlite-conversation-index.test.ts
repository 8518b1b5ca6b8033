import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaTooNewError } from '../../core/errors/index.ts';
import { EventLoopTurns } from '../../testing/event-loop-turns.ts';
import { conversationIndexConformance } from './conversation-index.conformance.ts';
import { type ConversationMatch, conversationHashes } from './conversation-index.ts';
import {
  CONVERSATION_INDEX_SCHEMA_VERSION,
  CONVERSATION_MIGRATIONS_TABLE,
} from './conversation-index-migrations.ts';
import { createSqliteConversationIndex, HASHES_PER_STATEMENT } from './sqlite-conversation-index.ts';
import { PREFIXES_TABLE, SESSIONS_TABLE } from './stored-conversation-index.ts';

const tempFile = (): { filename: string; remove(): void } => {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-conversations-'));
  return { filename: join(dir, 'ctxkit.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
};

conversationIndexConformance('sqlite', async () => {
  const file = tempFile();
  const index = createSqliteConversationIndex({ filename: file.filename });
  return {
    index,
    close: async () => {
      await index.close();
      file.remove();
    },
  };
});

const hashesOf = (...contentIds: string[]): string[] => conversationHashes('owner', 'system', contentIds);
/** The match for a request holding `length` messages of the session whose conversation is `held` (ids). */
const matchOf = (sessionId: string, length: number, held: readonly string[]): ConversationMatch => ({
  sessionId,
  length,
  head: held.length,
  headHash: hashesOf(...held).at(-1) ?? '',
});

describe('createSqliteConversationIndex', () => {
  const files: { remove(): void }[] = [];
  const fileForTest = (): string => {
    const file = tempFile();
    files.push(file);
    return file.filename;
  };
  afterEach(() => {
    for (const file of files.splice(0)) file.remove();
  });

  it('is found again by a restarted proxy (a new index on the same file), and by a second process meanwhile', async () => {
    const filename = fileForTest();
    const first = createSqliteConversationIndex({ filename });
    await first.record('owner', 's1', hashesOf('a', 'b', 'c'));
    const second = createSqliteConversationIndex({ filename });
    expect(await second.find('owner', hashesOf('a', 'b', 'c', 'd'))).toEqual(
      matchOf('s1', 3, ['a', 'b', 'c']),
    );
    await second.record('owner', 's2', hashesOf('a', 'x'));
    expect(await first.find('owner', hashesOf('a', 'x'))).toEqual(matchOf('s2', 2, ['a', 'x']));
    await first.close();
    await second.close();

    const restarted = createSqliteConversationIndex({ filename });
    try {
      expect(await restarted.find('owner', hashesOf('a', 'b', 'c'))).toEqual(
        matchOf('s1', 3, ['a', 'b', 'c']),
      );
      expect(await restarted.find('owner', hashesOf('a', 'x'))).toEqual(matchOf('s2', 2, ['a', 'x']));
    } finally {
      await restarted.close();
    }
  });

  it('records all of a conversation or none of it: a head that cannot be written takes its prefixes back', async () => {
    const filename = fileForTest();
    const index = createSqliteConversationIndex({ filename });
    try {
      await index.record('owner', 's1', hashesOf('a'));
      const db = new Database(filename);
      db.exec(
        `CREATE TRIGGER refuse_head BEFORE UPDATE ON ${SESSIONS_TABLE} BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
      );
      db.close();
      await expect(index.record('owner', 's1', hashesOf('a', 'b', 'c'))).rejects.toThrow(/disk full/);
      expect(await index.find('owner', hashesOf('a', 'b', 'c'))).toEqual(matchOf('s1', 1, ['a']));
      const check = new Database(filename, { readonly: true });
      try {
        expect(check.prepare(`SELECT count(*) AS n FROM ${PREFIXES_TABLE}`).get()).toEqual({ n: 1 });
      } finally {
        check.close();
      }
    } finally {
      await index.close();
    }
  });

  it('shares a database it was given, in WAL mode when it opens its own, and leaves a given one open', async () => {
    const filename = fileForTest();
    const own = createSqliteConversationIndex({ filename });
    await own.record('owner', 's1', hashesOf('a'));
    await own.close();
    const database = new Database(filename);
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      const shared = createSqliteConversationIndex({ database });
      expect(await shared.find('owner', hashesOf('a'))).toEqual(matchOf('s1', 1, ['a']));
      await shared.close();
      expect(database.open).toBe(true);
    } finally {
      database.close();
    }
  });

  it('migrates a database from before head hashes: its sessions are found, not continued, until recorded again', async () => {
    const filename = fileForTest();
    const old = new Database(filename);
    try {
      // The tables as the index created them before it kept versions or head hashes.
      old.exec(`
        CREATE TABLE ${PREFIXES_TABLE} (owner TEXT NOT NULL, hash TEXT NOT NULL, session_id TEXT NOT NULL,
          PRIMARY KEY (owner, hash)) WITHOUT ROWID;
        CREATE TABLE ${SESSIONS_TABLE} (owner TEXT NOT NULL, session_id TEXT NOT NULL, head INTEGER NOT NULL,
          recorded_at INTEGER NOT NULL, PRIMARY KEY (owner, session_id)) WITHOUT ROWID;`);
      const claim = old.prepare(`INSERT INTO ${PREFIXES_TABLE} VALUES ('owner', ?, 's1')`);
      for (const hash of hashesOf('a', 'b')) claim.run(hash);
      old.exec(`INSERT INTO ${SESSIONS_TABLE} VALUES ('owner', 's1', 2, 0)`);
    } finally {
      old.close();
    }
    const index = createSqliteConversationIndex({ filename });
    try {
      const request = hashesOf('a', 'b', 'c');
      const match = await index.find('owner', request);
      expect(match).toEqual({ sessionId: 's1', length: 2, head: 2, headHash: '' });
      // Its head hash is unknown: the request starts a session of its own rather than guess.
      expect(await index.heads('owner', request)).toEqual([]);
      await index.record('owner', 's1', hashesOf('a', 'b', 'c', 'd'));
      expect(await index.find('owner', hashesOf('a', 'b', 'c', 'd', 'e'))).toEqual(
        matchOf('s1', 4, ['a', 'b', 'c', 'd']),
      );
      expect(await index.heads('owner', hashesOf('a', 'b', 'c', 'd', 'e'))).toMatchObject([
        { sessionId: 's1', head: 4, headHash: hashesOf('a', 'b', 'c', 'd')[3] },
      ]);
    } finally {
      await index.close();
    }
    // Opening again applies nothing more.
    const again = createSqliteConversationIndex({ filename });
    await again.close();
    const check = new Database(filename, { readonly: true });
    try {
      const versions = check.prepare(`SELECT version FROM ${CONVERSATION_MIGRATIONS_TABLE} ORDER BY version`);
      expect(versions.pluck().all()).toEqual([1, 2, 3]);
    } finally {
      check.close();
    }
  });

  it('migrates a database with head hashes: its sessions keep the order they were recorded in', async () => {
    const filename = fileForTest();
    const old = new Database(filename);
    const conversation = hashesOf('a', 'b');
    try {
      // The tables at version 2, with sessions recorded in another order than their rows'.
      old.exec(`
        CREATE TABLE ${CONVERSATION_MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
          applied_at DOUBLE PRECISION NOT NULL);
        INSERT INTO ${CONVERSATION_MIGRATIONS_TABLE} VALUES (1, 'prefixes and heads', 0), (2, 'head hashes', 0);
        CREATE TABLE ${PREFIXES_TABLE} (owner TEXT NOT NULL, hash TEXT NOT NULL, session_id TEXT NOT NULL,
          PRIMARY KEY (owner, hash)) WITHOUT ROWID;
        CREATE TABLE ${SESSIONS_TABLE} (owner TEXT NOT NULL, session_id TEXT NOT NULL, head INTEGER NOT NULL,
          recorded_at INTEGER NOT NULL, head_hash TEXT NOT NULL DEFAULT '',
          PRIMARY KEY (owner, session_id)) WITHOUT ROWID;`);
      const claim = old.prepare(`INSERT INTO ${PREFIXES_TABLE} VALUES ('owner', ?, 'a-late')`);
      for (const hash of conversation) claim.run(hash);
      const session = old.prepare(`INSERT INTO ${SESSIONS_TABLE} VALUES ('owner', ?, 2, ?, ?)`);
      session.run('a-late', 3_000, conversation[1]);
      session.run('b-early', 1_000, conversation[1]);
      session.run('c-middle', 2_000, conversation[1]);
    } finally {
      old.close();
    }
    const index = createSqliteConversationIndex({ filename });
    try {
      const byRecording = async () =>
        (await index.heads('owner', hashesOf('a', 'b', 'c')))
          .sort((left, right) => left.recordedAt - right.recordedAt)
          .map((head) => head.sessionId);
      expect(await byRecording()).toEqual(['b-early', 'c-middle', 'a-late']);
      await index.record('owner', 'b-early', conversation);
      expect(await byRecording()).toEqual(['c-middle', 'a-late', 'b-early']);
    } finally {
      await index.close();
    }
  });

  it('looks heads up through the (owner, head_hash) index, even before the planner has statistics', async () => {
    const database = new Database(':memory:');
    const statements: string[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = ((source: string) => {
      statements.push(source);
      return prepare(source);
    }) as typeof database.prepare;
    const index = createSqliteConversationIndex({ database });
    try {
      for (let session = 0; session < 50; session++) {
        await index.record('owner', `s${session}`, hashesOf(`${session}`, 'b'));
      }
      expect(await index.heads('owner', hashesOf('7', 'b', 'c'))).toMatchObject([{ sessionId: 's7' }]);
      // The index's own statement (one for all of a request's hashes), as SQLite plans it.
      const query = statements.find((source) => /\bhead_hash IN\b/.test(source));
      expect(query).toBeDefined();
      const plan = prepare(`EXPLAIN QUERY PLAN ${query}`).all('owner', JSON.stringify(hashesOf('a', 'b')));
      expect(JSON.stringify(plan)).toMatch(
        /SEARCH \w+ USING (COVERING )?INDEX \w+_head \(owner=\? AND head_hash=\?\)/,
      );
    } finally {
      await index.close();
      database.close();
    }
  });

  it('refuses a database a newer ctxkit migrated, and leaves it as it was', async () => {
    const filename = fileForTest();
    await createSqliteConversationIndex({ filename }).close();
    const db = new Database(filename);
    try {
      db.prepare(`INSERT INTO ${CONVERSATION_MIGRATIONS_TABLE} VALUES (?, 'from the future', 0)`).run(
        CONVERSATION_INDEX_SCHEMA_VERSION + 1,
      );
    } finally {
      db.close();
    }
    expect(() => createSqliteConversationIndex({ filename })).toThrow(SchemaTooNewError);
  });
});

describe('a conversation of many thousand messages', () => {
  const files: { remove(): void }[] = [];
  afterEach(() => {
    for (const file of files.splice(0)) file.remove();
  });
  const ids = (count: number, from = 0): string[] =>
    Array.from({ length: count }, (_, index) => `m${from + index}`);

  it('is recorded and looked up in pieces, the event loop getting turns, and found as one', async () => {
    const file = tempFile();
    files.push(file);
    const index = createSqliteConversationIndex({ filename: file.filename });
    try {
      const hashes = hashesOf(...ids(HASHES_PER_STATEMENT * 4 + 3));
      const turns = new EventLoopTurns();
      await index.record('owner', 's1', hashes);
      const afterRecord = turns.count;
      const heads = await index.heads('owner', [...hashes, ...hashesOf(...ids(5, 1_000_000))]);
      turns.stop();
      // In one transaction and one statement neither gave a turn.
      expect(afterRecord).toBeGreaterThanOrEqual(4);
      expect(turns.count - afterRecord).toBeGreaterThanOrEqual(4);
      expect(heads).toMatchObject([{ sessionId: 's1', head: hashes.length, headHash: hashes.at(-1) }]);
      expect(await index.find('owner', [...hashes, 'next'])).toEqual({
        sessionId: 's1',
        length: hashes.length,
        head: hashes.length,
        headHash: hashes.at(-1),
      });
      // Continued by one message: its new prefix is claimed, the head moves on.
      const longer = hashesOf(...ids(HASHES_PER_STATEMENT * 4 + 4));
      await index.record('owner', 's1', longer);
      expect(await index.heads('owner', longer)).toMatchObject([{ sessionId: 's1', head: longer.length }]);
      // A fork from the middle is found as the prefix it shares.
      const fork = [...hashes.slice(0, 5_000), ...hashesOf('other')];
      expect(await index.find('owner', fork)).toMatchObject({ sessionId: 's1', length: 5_000 });
    } finally {
      await index.close();
    }
  });

  it('hashes as it always did (the hashes are stored)', () => {
    const root = createHash('sha256').update('ctxkit-conversation\nowner\nsystem').digest('hex').slice(0, 32);
    const first = createHash('sha256').update(`${root}\na`).digest('hex').slice(0, 32);
    const second = createHash('sha256').update(`${first}\nb`).digest('hex').slice(0, 32);
    expect(hashesOf('a', 'b')).toEqual([first, second]);
  });

  it('shows none of a session to find while its record is under way, all of it after', async () => {
    const file = tempFile();
    files.push(file);
    const index = createSqliteConversationIndex({ filename: file.filename });
    const raw = new Database(file.filename, { readonly: true });
    try {
      const hashes = conversationHashes('owner', 'system', ids(HASHES_PER_STATEMENT * 5));
      await index.record('owner', 's1', hashes.slice(0, 10));
      const recording = index.record('owner', 's1', hashes);
      const claimed = (): number =>
        raw.prepare(`SELECT count(*) FROM ${PREFIXES_TABLE}`).pluck().get() as number;
      for (let turn = 0; turn < 10_000 && claimed() === 10; turn++)
        await new Promise((done) => setImmediate(done));
      expect(claimed()).toBeGreaterThan(10);
      expect(claimed()).toBeLessThan(hashes.length);
      // Some prefixes are claimed, in hash order, not the conversation's: bisection over them would be wrong.
      expect(await index.find('owner', hashes)).toBeUndefined();
      await recording;
      expect(await index.find('owner', hashes)).toMatchObject({ sessionId: 's1', length: hashes.length });
    } finally {
      raw.close();
      await index.close();
    }
  });

  it('records 4x the prefixes in at most about 4x the time', async () => {
    /** The quickest of two records of `count` prefixes, each into a database of its own. */
    const time = async (count: number): Promise<number> => {
      let best = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 2; round++) {
        const file = tempFile();
        files.push(file);
        const index = createSqliteConversationIndex({ filename: file.filename });
        try {
          const hashes = conversationHashes('owner', 'system', ids(count));
          const started = performance.now();
          await index.record('owner', 's1', hashes);
          best = Math.min(best, performance.now() - started);
        } finally {
          await index.close();
        }
      }
      return best;
    };
    await time(5_000);
    const small = await time(40_000);
    const large = await time(160_000);
    // In the conversation's order, every piece wrote all over the b-tree: 4x took 11x.
    expect(large / small).toBeLessThan(6);
  });
});
