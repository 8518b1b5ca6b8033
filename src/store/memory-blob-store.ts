import { BlobIntegrityError, BlobNotFoundError } from '../core/errors/index.ts';
import { digestText, type TextDigest } from '../core/extendable-text-digest.ts';
import { sha256OfText } from '../core/sha256-of-text.ts';
import type { BlobInfo, BlobKind, BlobStore } from './blob-store.ts';
import { blobRef, parseBlobRef, validateBlobKind, validateBlobName } from './blob-store-ids.ts';

export interface MemoryBlobRecord {
  info: BlobInfo;
  content: string;
}

/** Session id → ref → record. */
export type MemoryBlobRecords = Map<string, Map<string, MemoryBlobRecord>>;

export interface MemoryBlobStoreOptions {
  /** Backing maps, to share blobs between store instances in one process (and to inspect them). */
  records?: MemoryBlobRecords;
}

/** A BlobStore in memory: every test and the library's default run without a disk. */
export function createMemoryBlobStore(options: MemoryBlobStoreOptions = {}): BlobStore {
  const sessions: MemoryBlobRecords = options.records ?? new Map();
  // A blob put again as its old content plus more (a transcript after each summary) is hashed by its new end.
  const digests = new WeakMap<MemoryBlobRecord, TextDigest>();

  const find = (sessionId: string, ref: string): MemoryBlobRecord | undefined => {
    validateBlobName('sessionId', sessionId);
    parseBlobRef(ref);
    return sessions.get(sessionId)?.get(ref);
  };

  return {
    async put(sessionId, kind, id, content) {
      validateBlobName('sessionId', sessionId);
      validateBlobKind(kind);
      const ref = blobRef(kind, id);
      let blobs = sessions.get(sessionId);
      const old = blobs?.get(ref);
      const oldDigest = old ? digests.get(old) : undefined;
      // Only while the record still holds what was digested (the records can be written from outside).
      const base = oldDigest?.text === old?.content ? oldDigest : undefined;
      let digest: TextDigest | undefined;
      const digestOf = (): TextDigest => {
        if (!digest) {
          digest = digestText(content, base);
          if (digest.state) digests.set(record, digest);
        }
        return digest;
      };
      const record: MemoryBlobRecord = { info: lazyBlobInfo(ref, kind, id, digestOf), content };
      if (!blobs) {
        blobs = new Map();
        sessions.set(sessionId, blobs);
      }
      blobs.set(ref, record);
      return lazyBlobInfo(ref, kind, id, digestOf);
    },

    async get(sessionId, ref, expectedSha256) {
      const record = find(sessionId, ref);
      if (!record) throw new BlobNotFoundError(sessionId, ref);
      const actual = sha256OfText(record.content);
      if (actual !== record.info.sha256)
        throw new BlobIntegrityError(sessionId, ref, record.info.sha256, actual);
      if (expectedSha256 !== undefined && actual !== expectedSha256) {
        throw new BlobIntegrityError(sessionId, ref, expectedSha256, actual);
      }
      return record.content;
    },

    async stat(sessionId, ref) {
      const record = find(sessionId, ref);
      return record ? { ...record.info } : undefined;
    },

    async list(sessionId, kind?: BlobKind) {
      validateBlobName('sessionId', sessionId);
      if (kind !== undefined) validateBlobKind(kind);
      const blobs = [...(sessions.get(sessionId)?.values() ?? [])]
        .filter((record) => kind === undefined || record.info.kind === kind)
        .map((record) => ({ ...record.info }));
      return blobs.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
    },

    async delete(sessionId, ref) {
      if (!find(sessionId, ref)) return false;
      const blobs = sessions.get(sessionId);
      blobs?.delete(ref);
      if (blobs?.size === 0) sessions.delete(sessionId);
      return true;
    },

    async deleteSession(sessionId) {
      validateBlobName('sessionId', sessionId);
      const count = sessions.get(sessionId)?.size ?? 0;
      sessions.delete(sessionId);
      return count;
    },

    async close() {},
  };
}

/**
 * A blob's metadata whose sha256 and size are worked out from the content as it was put, the first time
 * either is read: a transcript offloaded again at every summary, and never read, is never hashed. Each
 * field can be written over, as on a plain object.
 */
function lazyBlobInfo(ref: string, kind: BlobKind, id: string, digestOf: () => TextDigest): BlobInfo {
  let sha256: string | undefined;
  let bytes: number | undefined;
  return {
    ref,
    kind,
    id,
    get sha256(): string {
      sha256 ??= digestOf().sha256;
      return sha256;
    },
    set sha256(value: string) {
      sha256 = value;
    },
    get bytes(): number {
      bytes ??= digestOf().bytes;
      return bytes;
    },
    set bytes(value: number) {
      bytes = value;
    },
  };
}
