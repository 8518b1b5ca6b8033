/** `ctxkit/stores`: session, blob, memory, trace and skill stores (memory, SQLite, PostgreSQL, files) and retention. */

export * from '../store/blob-store.ts';
export * from '../store/fs-blob-store.ts';
export * from '../store/fs-skill-source.ts';
export * from '../store/memory-blob-store.ts';
export {
  createFileMemorySink,
  type FileMemorySink,
  type FileMemorySinkOptions,
  MEMORY_READ_MAX_BYTES,
  memoryFilePath,
} from '../store/memory-files.ts';
export * from '../store/memory-memory-sink.ts';
export * from '../store/memory-session-store.ts';
export * from '../store/memory-skill-source.ts';
export * from '../store/open-embedded-stores.ts';
export * from '../store/postgres-session-store.ts';
export * from '../store/retention.ts';
export * from '../store/retention-schedule.ts';
export * from '../store/session-store.ts';
export * from '../store/sqlite-session-store.ts';
export * from '../store/trace-store.ts';
