import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import type { BlobStore } from './blob-store.ts';
import { createFsBlobStore } from './fs-blob-store.ts';
import { createFileMemorySink } from './memory-files.ts';
import { createMemorySessionStore } from './memory-session-store.ts';
import { createPostgresSessionStore } from './postgres-session-store.ts';
import { createPostgresTraceStore } from './postgres-trace-store.ts';
import { DAY_MS, DEFAULT_RETENTION_MAX_IDLE_DAYS, sweepIdleSessions } from './retention.ts';
import type { SessionStore } from './session-store.ts';
import { createSqliteMemoryIndex } from './sqlite-memory-index.ts';
import { createSqliteSessionStore } from './sqlite-session-store.ts';
import { createSqliteTraceStore } from './sqlite-trace-store.ts';
import { usePostgresTestDatabases } from './testing/postgres-test-databases.ts';
import { createMemoryTraceStore, type TraceStore } from './trace-store.ts';

const NOW = Date.UTC(2025, 6, 1, 12, 0, 0);

interface Stores {
  sessions: SessionStore;
  blobs: BlobStore;
  trace: TraceStore;
  dataDir: string;
  close(): Promise<void>;
}

/** Three sessions: `old` (40 days idle), `edge` (exactly 30 days), `fresh` (1 day). */
async function seed(stores: Stores): Promise<void> {
  const at = { old: NOW - 40 * DAY_MS, edge: NOW - 30 * DAY_MS, fresh: NOW - DAY_MS };
  for (const [id, time] of Object.entries(at)) {
    await stores.sessions.appendMessages(id, numbered([user(`hello ${id}`), assistant('hi')]), 0, time);
    await stores.blobs.put(id, 'large_tool_results', 'call_1', `output of ${id}`);
    await stores.blobs.put(id, 'conversation_history', `${id}.md`, `# ${id}`);
    await stores.trace.append({ type: 'summary-scheduled', sessionId: id, at: time, throughSeq: 1 });
  }
}

const ids = async (sessions: SessionStore): Promise<string[]> =>
  (await sessions.list()).map((s) => s.id).sort();

function describeRetention(name: string, open: (dataDir: string) => Promise<Stores>): void {
  describe(`retention: ${name}`, () => {
    let root: string;
    let stores: Stores;
    beforeEach(async () => {
      root = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-retention-'));
      stores = await open(root);
      await seed(stores);
    });
    afterEach(async () => {
      await stores.close();
      await fs.rm(root, { recursive: true, force: true });
    });

    it('lists in a dry run exactly what would go, deleting nothing', async () => {
      const report = await sweepIdleSessions({ ...stores, now: NOW, dryRun: true });
      expect(report).toEqual({
        dryRun: true,
        now: NOW,
        maxIdleDays: DEFAULT_RETENTION_MAX_IDLE_DAYS,
        cutoff: NOW - 30 * DAY_MS,
        removed: [
          {
            sessionId: 'old',
            updatedAt: NOW - 40 * DAY_MS,
            idleDays: 40,
            messages: 2,
            edits: 0,
            blobs: 2,
            traceEvents: 1,
          },
        ],
        failures: [],
      });
      expect(await ids(stores.sessions)).toEqual(['edge', 'fresh', 'old']);
      expect(await stores.blobs.list('old')).toHaveLength(2);
      expect(await stores.trace.count('old')).toBe(1);
    });

    it('removes sessions idle for more than 30 days with their blobs and trace, and nothing else', async () => {
      const report = await sweepIdleSessions({ ...stores, now: NOW });
      expect(report.removed).toEqual([
        expect.objectContaining({ sessionId: 'old', blobs: 2, traceEvents: 1 }),
      ]);
      expect(report.failures).toEqual([]);
      expect(await ids(stores.sessions)).toEqual(['edge', 'fresh']);
      expect(await stores.sessions.load('old')).toBeUndefined();
      expect(await stores.blobs.list('old')).toEqual([]);
      await expect(fs.access(path.join(stores.dataDir, 'sessions', 'old'))).rejects.toMatchObject({
        code: 'ENOENT',
      });
      expect(await stores.trace.list('old')).toEqual([]);
      expect(await stores.blobs.get('edge', 'large_tool_results/call_1')).toBe('output of edge');
      expect(await stores.trace.count('fresh')).toBe(1);
      // Idempotent: nothing more to do.
      expect((await sweepIdleSessions({ ...stores, now: NOW })).removed).toEqual([]);
    });

    it('honours maxIdleDays (0 keeps everything) and keepTrace', async () => {
      expect((await sweepIdleSessions({ ...stores, now: NOW, maxIdleDays: 0 })).removed).toEqual([]);
      expect(await ids(stores.sessions)).toEqual(['edge', 'fresh', 'old']);
      const report = await sweepIdleSessions({ ...stores, now: NOW, maxIdleDays: 0.5, keepTrace: true });
      expect(report.removed.map((entry) => [entry.sessionId, entry.traceEvents])).toEqual([
        ['old', 0],
        ['edge', 0],
        ['fresh', 0],
      ]);
      expect(await ids(stores.sessions)).toEqual([]);
      expect(await stores.trace.count('old')).toBe(1);
      await expect(sweepIdleSessions({ ...stores, now: NOW, maxIdleDays: -1 })).rejects.toMatchObject({
        code: 'invalid_retention',
      });
    });

    it('keeps memory files: they are long-term memory', async () => {
      const memory = createFileMemorySink({
        dir: stores.dataDir,
        index: createSqliteMemoryIndex({ filename: path.join(root, 'memory.db') }),
      });
      await memory.write('old', { at: NOW - 40 * DAY_MS, title: 'Trimmed turns', text: 'the old decision' });
      await sweepIdleSessions({ ...stores, now: NOW });
      expect(await ids(stores.sessions)).toEqual(['edge', 'fresh']);
      expect((await memory.search('old', 'decision')).map((entry) => entry.text)).toEqual([
        'the old decision',
      ]);
      await expect(
        fs.readFile(path.join(stores.dataDir, 'memory', '2025-05-22.md'), 'utf8'),
      ).resolves.toContain('the old decision');
      await memory.close();
    });

    it("removes an idle session's policy override with it; setting one is using the session", async () => {
      const override = { summarize: { trigger: 0.5 } };
      await stores.sessions.setPolicyOverride('old', override, NOW - 35 * DAY_MS);
      // Configured a day ago (its last message 30 days ago): not idle.
      await stores.sessions.setPolicyOverride('edge', override, NOW - DAY_MS);
      const report = await sweepIdleSessions({ ...stores, now: NOW });
      expect(report.removed.map((entry) => entry.sessionId)).toEqual(['old']);
      expect(await stores.sessions.loadPolicyOverride('old')).toBeUndefined();
      expect((await stores.sessions.loadPolicyOverride('edge'))?.override).toEqual(override);
      await stores.sessions.appendMessages('old', numbered([user('back')]), 0, NOW);
      expect(await stores.sessions.loadPolicyOverride('old')).toBeUndefined();
    });

    it('reports a session it could not remove, keeps it for the next sweep, and removes the rest', async () => {
      // `edge`'s blob directory replaced by a symlink to `fresh`'s: refused, never followed.
      const sessionsDir = path.join(stores.dataDir, 'sessions');
      await fs.rm(path.join(sessionsDir, 'edge'), { recursive: true });
      await fs.symlink('fresh', path.join(sessionsDir, 'edge'));
      const report = await sweepIdleSessions({ ...stores, now: NOW, maxIdleDays: 20 });
      expect(report.removed.map((entry) => entry.sessionId)).toEqual(['old']);
      expect(report.failures).toEqual([
        expect.objectContaining({ sessionId: 'edge', code: 'blob_path_escape' }),
      ]);
      expect(await ids(stores.sessions)).toEqual(['edge', 'fresh']);
      expect(await stores.blobs.get('fresh', 'large_tool_results/call_1')).toBe('output of fresh');
    });
  });
}

describeRetention('memory sessions, filesystem blobs, memory trace', async (root) => {
  const dataDir = path.join(root, 'data');
  return {
    sessions: createMemorySessionStore(),
    blobs: createFsBlobStore({ dataDir }),
    trace: createMemoryTraceStore(),
    dataDir,
    close: async () => {},
  };
});

describeRetention('SQLite sessions and trace, filesystem blobs', async (root) => {
  const dataDir = path.join(root, 'data');
  const sessions = await createSqliteSessionStore({ dataDir });
  const trace = createSqliteTraceStore({ filename: path.join(dataDir, 'ctxkit.db') });
  return {
    sessions,
    blobs: createFsBlobStore({ dataDir }),
    trace,
    dataDir,
    close: async () => {
      await trace.close();
      await sessions.close();
    },
  };
});

const databases = usePostgresTestDatabases();
describeRetention('PostgreSQL sessions and trace, filesystem blobs', async (root) => {
  const database = await databases.create();
  const sessions = await createPostgresSessionStore({ url: database.url });
  const trace = await createPostgresTraceStore({ url: database.url });
  return {
    sessions,
    blobs: createFsBlobStore({ dataDir: path.join(root, 'data') }),
    trace,
    dataDir: path.join(root, 'data'),
    close: async () => {
      await trace.close();
      await sessions.close();
      await database.drop();
    },
  };
});

describe('retention with any session store', () => {
  it('applies the idle cutoff itself when the store ignores the filter', async () => {
    const inner = createMemorySessionStore();
    const sessions: SessionStore = { ...inner, list: () => inner.list() };
    await inner.appendMessages('old', numbered([user('a')]), 0, NOW - 31 * DAY_MS);
    await inner.appendMessages('new', numbered([user('b')]), 0, NOW);
    const report = await sweepIdleSessions({ sessions, now: NOW });
    expect(report.removed.map((entry) => entry.sessionId)).toEqual(['old']);
    expect((await inner.list()).map((listing) => listing.id)).toEqual(['new']);
  });

  it('removes sessions whose ids cannot name blobs without asking the blob store', async () => {
    const sessions = createMemorySessionStore();
    await sessions.appendMessages('user@example.com/chat 1', numbered([user('a')]), 0, NOW - 90 * DAY_MS);
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-retention-'));
    try {
      const report = await sweepIdleSessions({
        sessions,
        blobs: createFsBlobStore({ dataDir: root }),
        now: NOW,
      });
      expect(report.removed).toEqual([
        expect.objectContaining({ sessionId: 'user@example.com/chat 1', blobs: 0 }),
      ]);
      expect(report.failures).toEqual([]);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
