/**
 * The conformance suite and PostgreSQL specifics against a real server: the run's shared embedded
 * PostgreSQL (or the one `CTXKIT_TEST_POSTGRES_URL` names), a fresh database per test.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { SchemaTooNewError } from '../../core/errors/index.ts';
import { usePostgresTestDatabases } from '../../store/testing/postgres-test-databases.ts';
import { conversationIndexConformance } from './conversation-index.conformance.ts';
import { type ConversationMatch, conversationHashes } from './conversation-index.ts';
import {
  CONVERSATION_INDEX_SCHEMA_VERSION,
  CONVERSATION_MIGRATIONS_TABLE,
} from './conversation-index-migrations.ts';
import { createPostgresConversationIndex, PREFIX_INSERT_BATCH } from './postgres-conversation-index.ts';
import { PREFIXES_TABLE, SESSIONS_TABLE } from './stored-conversation-index.ts';

const databases = usePostgresTestDatabases();

conversationIndexConformance('postgres', async () => {
  const database = await databases.create();
  const index = await createPostgresConversationIndex({ url: database.url });
  return {
    index,
    close: async () => {
      await index.close();
      await database.drop();
    },
  };
});

const hashesOf = (...contentIds: string[]): string[] => conversationHashes('owner', 'system', contentIds);
const ids = (label: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `${label}-${index}`);
/** The match for a request holding `length` messages of the session whose conversation is `held` (ids). */
const matchOf = (sessionId: string, length: number, held: readonly string[]): ConversationMatch => ({
  sessionId,
  length,
  head: held.length,
  headHash: hashesOf(...held).at(-1) ?? '',
});

describe('createPostgresConversationIndex', () => {
  it('shares what it records between instances on one database (several proxies), and after a restart', async () => {
    const database = await databases.create();
    try {
      const [first, second] = await Promise.all([
        createPostgresConversationIndex({ url: database.url }),
        createPostgresConversationIndex({ url: database.url }),
      ]);
      await first.record('owner', 's1', hashesOf('a', 'b', 'c'));
      expect(await second.find('owner', hashesOf('a', 'b', 'c', 'd'))).toEqual(
        matchOf('s1', 3, ['a', 'b', 'c']),
      );
      await second.record('owner', 's2', hashesOf('a', 'x'));
      await second.record('owner', 's1', hashesOf('a', 'b', 'c', 'd'));
      expect(await first.find('owner', hashesOf('a', 'x'))).toEqual(matchOf('s2', 2, ['a', 'x']));
      expect(await first.find('owner', hashesOf('a', 'b', 'c'))).toEqual(
        matchOf('s1', 3, ['a', 'b', 'c', 'd']),
      );
      await Promise.all([first.close(), second.close()]);
      const restarted = await createPostgresConversationIndex({ url: database.url });
      try {
        expect(await restarted.find('owner', hashesOf('a', 'b', 'c', 'd'))).toEqual(
          matchOf('s1', 4, ['a', 'b', 'c', 'd']),
        );
      } finally {
        await restarted.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('gives a shared prefix to one of several instances recording forks at once; each finds its own fork', async () => {
    const database = await databases.create();
    try {
      const instances = await Promise.all(
        Array.from({ length: 4 }, () => createPostgresConversationIndex({ url: database.url })),
      );
      const trunk = ids('trunk', 2 * PREFIX_INSERT_BATCH + 10);
      const forks = Array.from({ length: 8 }, (_, fork) => hashesOf(...trunk, `fork-${fork}`));
      await Promise.all(
        forks.map((hashes, fork) => instances[fork % instances.length]?.record('owner', `s${fork}`, hashes)),
      );
      for (const [fork, hashes] of forks.entries()) {
        expect(await instances[(fork + 1) % instances.length]?.find('owner', hashes)).toEqual(
          matchOf(`s${fork}`, trunk.length + 1, [...trunk, `fork-${fork}`]),
        );
      }
      const sql = postgres(database.url, { max: 1, onnotice: () => {} });
      try {
        const owners = await sql`select distinct session_id from ${sql(PREFIXES_TABLE)}
          where hash = any(${hashesOf(...trunk)}::text[])`;
        expect(owners).toHaveLength(1);
      } finally {
        await sql.end();
      }
      await Promise.all(instances.map((index) => index.close()));
    } finally {
      await database.drop();
    }
  });

  it('records in batches and finds by bisection: statements per call grow with the log of its length', async () => {
    const database = await databases.create();
    let statements = 0;
    const sql = postgres(database.url, { max: 2, onnotice: () => {}, debug: () => statements++ });
    try {
      const index = await createPostgresConversationIndex({ sql });
      const hashes = hashesOf(...ids('m', 5_000));
      statements = 0;
      await index.record('owner', 's1', hashes);
      // begin, one insert a batch, the head, commit
      expect(statements).toBeLessThanOrEqual(Math.ceil(hashes.length / PREFIX_INSERT_BATCH) + 3);
      statements = 0;
      expect(await index.find('owner', hashesOf(...ids('m', 5_000), 'next'))).toEqual(
        matchOf('s1', 5_000, ids('m', 5_000)),
      );
      expect(statements).toBeLessThanOrEqual(Math.ceil(Math.log2(hashes.length + 2)) + 1);
      // Heads among all of a request's hashes: one statement.
      statements = 0;
      expect(await index.heads('owner', hashesOf(...ids('m', 5_000), 'next'))).toMatchObject([
        { sessionId: 's1', head: 5_000, headHash: hashes.at(-1) },
      ]);
      expect(statements).toBe(1);
      await index.close();
      // A client the caller passed stays open.
      expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    } finally {
      await sql.end();
      await database.drop();
    }
  });

  it('records all of a conversation or none of it: a head that cannot be written takes its prefixes back', async () => {
    const database = await databases.create();
    const index = await createPostgresConversationIndex({ url: database.url });
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      await index.record('owner', 's1', hashesOf('a'));
      await sql.unsafe(`
        CREATE FUNCTION refuse_head() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
        CREATE TRIGGER refuse_head BEFORE UPDATE ON ${SESSIONS_TABLE}
          FOR EACH ROW EXECUTE FUNCTION refuse_head();`);
      await expect(index.record('owner', 's1', hashesOf('a', 'b', 'c'))).rejects.toThrow(/disk full/);
      expect(await index.find('owner', hashesOf('a', 'b', 'c'))).toEqual(matchOf('s1', 1, ['a']));
      const [row] = await sql`select count(*)::int as n from ${sql(PREFIXES_TABLE)}`;
      expect(row?.n).toBe(1);
    } finally {
      await sql.end();
      await index.close();
      await database.drop();
    }
  });

  it('migrates a database from before head hashes: its sessions are found, not continued, until recorded again', async () => {
    const database = await databases.create();
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      // The tables as the index created them before it kept versions or head hashes.
      await sql.unsafe(`
        CREATE TABLE ${PREFIXES_TABLE} (owner TEXT COLLATE "C" NOT NULL, hash TEXT COLLATE "C" NOT NULL,
          session_id TEXT COLLATE "C" NOT NULL, PRIMARY KEY (owner, hash));
        CREATE TABLE ${SESSIONS_TABLE} (owner TEXT COLLATE "C" NOT NULL, session_id TEXT COLLATE "C" NOT NULL,
          head INTEGER NOT NULL, recorded_at BIGINT NOT NULL, PRIMARY KEY (owner, session_id));`);
      await sql`insert into ${sql(PREFIXES_TABLE)} select 'owner', hash, 's1'
        from unnest(${hashesOf('a', 'b')}::text[]) as hash`;
      await sql`insert into ${sql(SESSIONS_TABLE)} values ('owner', 's1', 2, 0)`;
      const indexes = await Promise.all(
        Array.from({ length: 3 }, () => createPostgresConversationIndex({ url: database.url })),
      );
      try {
        const request = hashesOf('a', 'b', 'c');
        const match = await indexes[0]?.find('owner', request);
        expect(match).toEqual({ sessionId: 's1', length: 2, head: 2, headHash: '' });
        // Its head hash is unknown: the request starts a session of its own rather than guess.
        expect(await indexes[0]?.heads('owner', request)).toEqual([]);
        await indexes[1]?.record('owner', 's1', hashesOf('a', 'b', 'c', 'd'));
        expect(await indexes[2]?.find('owner', hashesOf('a', 'b', 'c', 'd', 'e'))).toEqual(
          matchOf('s1', 4, ['a', 'b', 'c', 'd']),
        );
      } finally {
        await Promise.all(indexes.map((index) => index.close()));
      }
      // Instances opening at once applied each migration once.
      const versions = await sql`select version from ${sql(CONVERSATION_MIGRATIONS_TABLE)} order by version`;
      expect(versions.map((row) => row.version)).toEqual([1, 2, 3]);
    } finally {
      await sql.end();
      await database.drop();
    }
  });

  it('migrates a database with head hashes: its sessions keep the order they were recorded in', async () => {
    const database = await databases.create();
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const conversation = hashesOf('a', 'b');
    try {
      // The tables at version 2, with sessions recorded in another order than their rows'.
      await sql.unsafe(`
        CREATE TABLE ${CONVERSATION_MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
          applied_at DOUBLE PRECISION NOT NULL);
        INSERT INTO ${CONVERSATION_MIGRATIONS_TABLE} VALUES (1, 'prefixes and heads', 0), (2, 'head hashes', 0);
        CREATE TABLE ${PREFIXES_TABLE} (owner TEXT COLLATE "C" NOT NULL, hash TEXT COLLATE "C" NOT NULL,
          session_id TEXT COLLATE "C" NOT NULL, PRIMARY KEY (owner, hash));
        CREATE TABLE ${SESSIONS_TABLE} (owner TEXT COLLATE "C" NOT NULL, session_id TEXT COLLATE "C" NOT NULL,
          head INTEGER NOT NULL, recorded_at BIGINT NOT NULL,
          head_hash TEXT COLLATE "C" NOT NULL DEFAULT '', PRIMARY KEY (owner, session_id));`);
      await sql`insert into ${sql(PREFIXES_TABLE)} select 'owner', hash, 'a-late'
        from unnest(${conversation}::text[]) as hash`;
      await sql`insert into ${sql(SESSIONS_TABLE)} values
        ('owner', 'a-late', 2, 3000, ${conversation[1] ?? ''}),
        ('owner', 'b-early', 2, 1000, ${conversation[1] ?? ''}),
        ('owner', 'c-middle', 2, 2000, ${conversation[1] ?? ''})`;
      const index = await createPostgresConversationIndex({ url: database.url });
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
      // The lookup can use the (owner, head_hash) index (a table this small is scanned unless told not to).
      const plan = await sql.begin(async (tx) => {
        await tx`set local enable_seqscan = off`;
        return tx`explain select session_id from ${sql(SESSIONS_TABLE)}
          where owner = 'owner' and head_hash = any(${conversation}::text[])`.values();
      });
      expect(plan.flat().join('\n')).toContain(`${SESSIONS_TABLE}_head`);
    } finally {
      await sql.end();
      await database.drop();
    }
  });

  it('refuses a database a newer ctxkit migrated', async () => {
    const database = await databases.create();
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      await (await createPostgresConversationIndex({ sql })).close();
      await sql`insert into ${sql(CONVERSATION_MIGRATIONS_TABLE)}
        values (${CONVERSATION_INDEX_SCHEMA_VERSION + 1}, 'from the future', 0)`;
      await expect(createPostgresConversationIndex({ sql })).rejects.toThrow(SchemaTooNewError);
    } finally {
      await sql.end();
      await database.drop();
    }
  });
});
