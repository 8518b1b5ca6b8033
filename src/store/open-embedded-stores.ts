import { join } from 'node:path';
import type { MemorySink } from '../core/memory-sink.ts';
import type { BlobStore } from './blob-store.ts';
import { createFsBlobStore } from './fs-blob-store.ts';
import { createFileMemorySink } from './memory-files.ts';
import type { SessionStore } from './session-store.ts';
import { createSqliteMemoryIndex } from './sqlite-memory-index.ts';
import { createSqliteSessionStore, DEFAULT_DATA_DIR, DEFAULT_SQLITE_FILE } from './sqlite-session-store.ts';
import { createSqliteTraceStore } from './sqlite-trace-store.ts';
import type { TraceStore } from './trace-store.ts';

/** Everything a ContextManager persists, opened together. */
export interface EmbeddedStores {
  dataDir: string;
  store: SessionStore;
  blobs: BlobStore;
  memory: MemorySink;
  trace: TraceStore;
  close(): Promise<void>;
}

/**
 * ctxkit's embedded defaults in one data directory (`./.ctxkit` unless given): sessions, the memory
 * search index and the trace in one SQLite file (WAL), offloaded blobs under `sessions/<id>/`, and the
 * daily memory files under `memory/`. Nothing to install or start.
 */
export async function openEmbeddedStores(options: { dataDir?: string } = {}): Promise<EmbeddedStores> {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const store = await createSqliteSessionStore({ dataDir });
  const database = join(dataDir, DEFAULT_SQLITE_FILE);
  const trace = createSqliteTraceStore({ filename: database });
  const memory = createFileMemorySink({
    dir: dataDir,
    index: createSqliteMemoryIndex({ filename: database }),
  });
  const blobs = createFsBlobStore({ dataDir });
  return {
    dataDir,
    store,
    blobs,
    memory,
    trace,
    async close() {
      await Promise.all([store.close(), trace.close(), memory.close(), blobs.close()]);
    },
  };
}
