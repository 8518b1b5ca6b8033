import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { loadCorpusSession } from '../testing/corpus.ts';
import { asInput } from '../testing/replay-session.ts';
import { createPostgresTraceStore } from './postgres-trace-store.ts';
import { createSqliteTraceStore } from './sqlite-trace-store.ts';
import { usePostgresTestDatabases } from './testing/postgres-test-databases.ts';
import { TRACE_EVENT_TYPES } from './trace-event-schema.ts';
import { describeTraceStoreConformance, sampleEvents } from './trace-store.conformance.ts';
import { createMemoryTraceStore, createTraceRecorder } from './trace-store.ts';

describeTraceStoreConformance('memory', async () => ({ store: createMemoryTraceStore() }));

describeTraceStoreConformance('SQLite', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-trace-'));
  const filename = path.join(dir, 'ctxkit.db');
  return {
    store: createSqliteTraceStore({ filename }),
    reopen: async () => createSqliteTraceStore({ filename }),
    tamper: async (sessionId, json) => {
      const db = new Database(filename);
      db.prepare(
        'UPDATE ctxkit_trace_events SET event = ? WHERE seq = (SELECT min(seq) FROM ctxkit_trace_events WHERE session_id = ?)',
      ).run(json, sessionId);
      db.close();
    },
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
});

const databases = usePostgresTestDatabases();
describeTraceStoreConformance('PostgreSQL', async () => {
  const database = await databases.create();
  return {
    store: await createPostgresTraceStore({ url: database.url }),
    reopen: () => createPostgresTraceStore({ url: database.url }),
    tamper: async (sessionId, json) => {
      const sql = postgres(database.url, { max: 1 });
      await sql`update ctxkit_trace_events set event = ${json}
        where seq = (select min(seq) from ctxkit_trace_events where session_id = ${sessionId})`;
      await sql.end();
    },
    cleanup: () => database.drop(),
  };
});

describe('trace', () => {
  it('names every event type the engine emits', () => {
    expect(new Set(TRACE_EVENT_TYPES)).toEqual(new Set(sampleEvents('s').map((event) => event.type)));
  });

  it("records a manager's events in its own table, apart from the session, never in what the model sees", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-trace-manager-'));
    try {
      const trace = createSqliteTraceStore({ filename: path.join(dir, 'ctxkit.db') });
      const recorder = createTraceRecorder(trace);
      let now = 1_750_000_000_000;
      const manager = createContextManager({
        policy: { ...PRESETS.default, model: 'gpt-4o' } as Policy,
        clock: () => (now += 1_000),
      });
      manager.on(recorder.listener);
      const transcript = loadCorpusSession('tau-bench__gpt-4o-airline_task33_trial0.jsonl');
      await manager.append('s', transcript.messages.map(asInput));
      await manager.compact('s');
      await recorder.flush();
      const types = (await trace.list('s')).map((event) => event.type);
      expect(types).toContain('compaction-started');
      expect(types).toContain('compaction-finished');
      const { system, messages } = await manager.prepare('s', { system: 'You are helpful.' });
      const prepared = JSON.stringify({ system, messages });
      expect(prepared).not.toContain('compaction-finished');
      const db = new Database(path.join(dir, 'ctxkit.db'), { readonly: true });
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
      db.close();
      expect(tables).toEqual([{ name: 'ctxkit_trace_events' }, { name: 'sqlite_sequence' }]);
      await trace.close();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('writes the events emitted together in one append, in order, and keeps order across writes', async () => {
    const trace = createMemoryTraceStore();
    const writes: number[] = [];
    const appendMany = trace.appendMany.bind(trace);
    trace.appendMany = async (events) => {
      writes.push(events.length);
      await appendMany(events);
    };
    const recorder = createTraceRecorder(trace);
    const events = sampleEvents('s');
    expect(events.length).toBeGreaterThan(3);
    for (const event of events.slice(0, 3)) recorder.listener(event);
    await Promise.resolve();
    for (const event of events.slice(3)) recorder.listener(event);
    await recorder.flush();
    expect(writes[0]).toBe(3);
    expect(writes.reduce((sum, count) => sum + count, 0)).toBe(events.length);
    expect(await trace.list('s')).toEqual(events);
  });

  it('keeps the events written together with one the store refuses', async () => {
    const trace = createMemoryTraceStore();
    const failed: string[] = [];
    const recorder = createTraceRecorder(trace, { onError: (_error, event) => failed.push(event.type) });
    const [first, second] = sampleEvents('s');
    const broken = { ...first, at: Number.NaN } as never;
    recorder.listener(first as never);
    recorder.listener(broken);
    recorder.listener(second as never);
    await recorder.flush();
    expect(await trace.list('s')).toEqual([first, second]);
    expect(failed).toEqual([(first as { type: string }).type]);
  });

  it('tells onError of every event a failed write held', async () => {
    const trace = createMemoryTraceStore();
    const failed: string[] = [];
    const recorder = createTraceRecorder(trace, { onError: (_error, event) => failed.push(event.type) });
    await trace.close();
    const events = sampleEvents('s').slice(0, 3);
    for (const event of events) recorder.listener(event);
    await recorder.flush();
    expect(failed).toEqual(events.map((event) => event.type));
  });

  it('reports a failed append from flush, without throwing into the emitter', async () => {
    const trace = createMemoryTraceStore();
    const recorder = createTraceRecorder(trace);
    await trace.close();
    expect(() => recorder.listener(sampleEvents('s')[0] as never)).not.toThrow();
    await expect(recorder.flush()).rejects.toMatchObject({ code: 'store_closed' });
    await expect(recorder.flush()).resolves.toBeUndefined();
  });
});
