/**
 * The blob-store conformance suite against a real PostgreSQL (the run's shared embedded server, or one
 * this file starts), a fresh database per test, and what PostgreSQL adds: blobs shared by two stores on
 * one database (two `ctxkit serve` instances), and content PostgreSQL text could not hold.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_LENGTH } from '../core/session-id.ts';
import { describeBlobStoreConformance } from './blob-store.conformance.ts';
import { MAX_BLOB_ID_LENGTH } from './blob-store-ids.ts';
import { BLOBS_TABLE, createPostgresBlobStore } from './postgres-blob-store.ts';
import { usePostgresTestDatabases } from './testing/postgres-test-databases.ts';

const databases = usePostgresTestDatabases();

describeBlobStoreConformance('postgres', async () => {
  const database = await databases.create();
  const store = await createPostgresBlobStore({ url: database.url });
  const admin = postgres(database.url, { onnotice: () => {}, max: 1 });
  return {
    store,
    tamper: async (sessionId, ref, content) => {
      const rows = await admin`
        update ${admin(BLOBS_TABLE)} set content = ${Buffer.from(content, 'utf8')}
        where session_id = ${sessionId} and ref = ${ref} returning 1`;
      if (rows.length === 0) throw new Error(`no blob ${ref} to tamper with`);
    },
    cleanup: async () => {
      await store.close();
      await admin.end({ timeout: 5 });
      await database.drop();
    },
  };
});

describe('PostgreSQL blob store', () => {
  it('keeps the longest ids of many-byte characters (past what one index entry holds)', async () => {
    const database = await databases.create();
    const store = await createPostgresBlobStore({ url: database.url });
    try {
      const sessionId = '会'.repeat(MAX_SESSION_ID_LENGTH);
      const id = '話'.repeat(MAX_BLOB_ID_LENGTH);
      const info = await store.put(sessionId, 'large_tool_results', id, 'whole');
      expect(await store.get(sessionId, info.ref)).toBe('whole');
      expect((await store.list(sessionId)).map((blob) => blob.ref)).toEqual([info.ref]);
      expect(await store.deleteSession(sessionId)).toBe(1);
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('shares blobs between two stores on one database, and keeps NUL and non-ASCII content whole', async () => {
    const database = await databases.create();
    const [first, second] = await Promise.all([
      createPostgresBlobStore({ url: database.url }),
      createPostgresBlobStore({ url: database.url }),
    ]);
    try {
      const content = `row\u0000one\n日本語 🎉 ${'x'.repeat(100_000)}`;
      const info = await first.put('owner:s1', 'large_tool_results', 'call_1', content);
      expect(info.bytes).toBe(Buffer.byteLength(content, 'utf8'));
      expect(await second.get('owner:s1', info.ref, info.sha256)).toBe(content);
      expect(await second.list('owner:s2')).toEqual([]);
      await expect(second.get('owner:s2', info.ref)).rejects.toMatchObject({ code: 'blob_not_found' });
      expect(await second.deleteSession('owner:s1')).toBe(1);
      expect(await first.stat('owner:s1', info.ref)).toBeUndefined();
    } finally {
      await Promise.all([first.close(), second.close()]);
      await database.drop();
    }
  });
});
