import { describe, expect, it } from 'vitest';
import { describeBlobStoreConformance } from './blob-store.conformance.ts';
import { createFallbackBlobStore } from './fallback-blob-store.ts';
import { createMemoryBlobStore, type MemoryBlobRecords } from './memory-blob-store.ts';

describeBlobStoreConformance('fallback (memory over memory)', async () => {
  const records: MemoryBlobRecords = new Map();
  return {
    store: createFallbackBlobStore(createMemoryBlobStore({ records }), createMemoryBlobStore()),
    tamper: async (sessionId, ref, content) => {
      const record = records.get(sessionId)?.get(ref);
      if (!record) throw new Error(`no blob ${ref} to tamper with`);
      record.content = content;
    },
  };
});

describe('fallback blob store', () => {
  it('reads, lists and deletes what only the older store holds (blobs written before an upgrade)', async () => {
    const older = createMemoryBlobStore();
    const kept = await older.put('s1', 'large_tool_results', 'before', 'written before');
    const store = createFallbackBlobStore(createMemoryBlobStore(), older);
    const written = await store.put('s1', 'large_tool_results', 'after', 'written after');
    expect(await store.get('s1', kept.ref, kept.sha256)).toBe('written before');
    expect(await store.stat('s1', kept.ref)).toEqual(kept);
    expect((await store.list('s1')).map((blob) => blob.ref)).toEqual([written.ref, kept.ref].sort());
    expect(await older.stat('s1', written.ref)).toBeUndefined();
    expect(await store.deleteSession('s1')).toBe(2);
    await expect(store.get('s1', kept.ref)).rejects.toMatchObject({ code: 'blob_not_found' });
  });
});
