/**
 * A blob store that writes to one store and still reads what an older one holds: `ctxkit serve` on
 * PostgreSQL keeps offloaded content in the database (every instance reads it), and blobs an earlier
 * version wrote to `--data` stay readable through their pointers. What is found in `primary` wins;
 * deletes reach both, so retention and a session's deletion remove the older copies too.
 */
import { BlobNotFoundError } from '../core/errors/index.ts';
import type { BlobStore } from './blob-store.ts';

export function createFallbackBlobStore(primary: BlobStore, older: BlobStore): BlobStore {
  return {
    put: (sessionId, kind, id, content) => primary.put(sessionId, kind, id, content),

    async get(sessionId, ref, expectedSha256) {
      try {
        return await primary.get(sessionId, ref, expectedSha256);
      } catch (error) {
        if (!BlobNotFoundError.isInstance(error)) throw error;
        return older.get(sessionId, ref, expectedSha256);
      }
    },

    async stat(sessionId, ref) {
      return (await primary.stat(sessionId, ref)) ?? older.stat(sessionId, ref);
    },

    async list(sessionId, kind) {
      const [newer, old] = await Promise.all([primary.list(sessionId, kind), older.list(sessionId, kind)]);
      const refs = new Set(newer.map((blob) => blob.ref));
      return [...newer, ...old.filter((blob) => !refs.has(blob.ref))].sort((a, b) =>
        a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0,
      );
    },

    async delete(sessionId, ref) {
      const [fromPrimary, fromOlder] = await Promise.all([
        primary.delete(sessionId, ref),
        older.delete(sessionId, ref),
      ]);
      return fromPrimary || fromOlder;
    },

    async deleteSession(sessionId) {
      const [fromPrimary, fromOlder] = await Promise.all([
        primary.deleteSession(sessionId),
        older.deleteSession(sessionId),
      ]);
      // A transcript rewritten since the upgrade counts twice: its older copy was removed too.
      return fromPrimary + fromOlder;
    },

    async close() {
      await Promise.all([primary.close(), older.close()]);
    },
  };
}
