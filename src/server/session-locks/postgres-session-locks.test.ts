/**
 * The session-lock conformance suite on a real PostgreSQL, and what only a server shows: a lock held by a
 * process that dies (its connection terminated) is free again for the others.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { usePostgresTestDatabases } from '../../store/postgres-test-databases.ts';
import { createPostgresSessionLocks, SESSION_LOCK_CLASS } from './postgres-session-locks.ts';
import { describeSessionLocksConformance } from './session-locks.conformance.ts';

const databases = usePostgresTestDatabases();

describeSessionLocksConformance('postgres', async () => {
  const database = await databases.create();
  return { open: async () => createPostgresSessionLocks({ url: database.url }), cleanup: database.drop };
});

describe('PostgreSQL session locks', () => {
  it('frees the lock of a holder whose connection dies, as when its process is killed', async () => {
    const database = await databases.create();
    const dying = createPostgresSessionLocks({ url: database.url });
    const survivor = createPostgresSessionLocks({ url: database.url });
    const admin = postgres(database.url, { onnotice: () => {}, max: 1 });
    try {
      await dying.claim('owner:orphaned');
      expect(await survivor.claim('owner:orphaned')).toBeUndefined();
      const holders = await admin`
        select distinct pid from pg_locks
        where locktype = 'advisory' and classid = ${SESSION_LOCK_CLASS}::oid and granted`;
      expect(holders).toHaveLength(1);
      await admin`select pg_terminate_backend(${holders[0]?.pid as number})`;
      const release = await survivor.claim('owner:orphaned');
      expect(release).toBeDefined();
      await release?.();
    } finally {
      await Promise.all([dying.close().catch(() => undefined), survivor.close(), admin.end({ timeout: 5 })]);
      await database.drop();
    }
  });

  it('holds at most maxHeld sessions at once; more holders wait for a connection, not fail', async () => {
    const database = await databases.create();
    const locks = createPostgresSessionLocks({ url: database.url, maxHeld: 2 });
    try {
      const [a, b] = [await locks.acquire('owner:a'), await locks.acquire('owner:b')];
      let third = false;
      const waiting = locks.acquire('owner:c').then((release) => {
        third = true;
        return release;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(third).toBe(false);
      await a();
      await (await waiting)();
      expect(third).toBe(true);
      await b();
    } finally {
      await locks.close();
      await database.drop();
    }
  });
});
