/**
 * The session-lock conformance suite on a real PostgreSQL, and what only a server shows: a lock held by a
 * process that dies (its connection terminated) is free again for the others.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { usePostgresTestDatabases } from '../../store/testing/postgres-test-databases.ts';
import { createPostgresSessionLocks, SESSION_LOCK_CLASS } from './postgres-session-locks.ts';
import { describeSessionLocksConformance } from './session-locks.conformance.ts';

const databases = usePostgresTestDatabases();

describeSessionLocksConformance('postgres', async () => {
  const database = await databases.create();
  return { open: async () => createPostgresSessionLocks({ url: database.url }), cleanup: database.drop };
});

describe('PostgreSQL session locks', () => {
  it('frees the lock of a holder whose connection dies, says it was lost, and survives its release', async () => {
    const database = await databases.create();
    const lost: string[] = [];
    const dying = createPostgresSessionLocks({
      url: database.url,
      onLost: (sessionId) => lost.push(sessionId),
    });
    const survivor = createPostgresSessionLocks({ url: database.url });
    const admin = postgres(database.url, { onnotice: () => {}, max: 1 });
    try {
      const release = await dying.claim('owner:orphaned');
      expect(await survivor.claim('owner:orphaned')).toBeUndefined();
      const holders = await admin`
        select distinct pid from pg_locks
        where locktype = 'advisory' and classid = ${SESSION_LOCK_CLASS}::oid and granted`;
      expect(holders).toHaveLength(1);
      const pid = holders[0]?.pid as number;
      await admin`select pg_terminate_backend(${pid})`;
      // The signal is sent at once; the backend ends, and lets go of its locks, a moment later.
      await expect
        .poll(
          async () =>
            (await admin`select 1 from pg_locks where pid = ${pid} and locktype = 'advisory'`).length,
        )
        .toBe(0);
      const taken = await survivor.claim('owner:orphaned');
      expect(taken).toBeDefined();
      await expect.poll(() => lost).toEqual(['owner:orphaned']);
      // The dead holder's release sends nothing on its closed connection (postgres.js would crash).
      await release?.();
      await taken?.();
      // The pool that lost a connection still takes locks.
      const again = await dying.acquire('owner:orphaned');
      await again();
    } finally {
      await Promise.all([dying.close().catch(() => undefined), survivor.close(), admin.end({ timeout: 5 })]);
      await database.drop();
    }
  });

  it('keeps one connection per busy session: its waiters queue here, other sessions still get in', async () => {
    const database = await databases.create();
    const locks = createPostgresSessionLocks({ url: database.url, maxHeld: 2 });
    try {
      const busy = await locks.acquire('owner:busy');
      const order: number[] = [];
      const waiters = [1, 2, 3].map((n) =>
        locks.acquire('owner:busy').then(async (release) => {
          order.push(n);
          await release();
        }),
      );
      // Three waiters on one session, two connections: another session is not starved.
      const other = await locks.acquire('owner:other');
      await other();
      await busy();
      await Promise.all(waiters);
      expect(order).toEqual([1, 2, 3]);
    } finally {
      await locks.close();
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
