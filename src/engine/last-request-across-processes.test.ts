/**
 * The session's last request (system prompt, tools, model, window) is part of its stored state: a manager
 * started later, or another process on the same store, measures the session's next call as the one that
 * served the last call did, and a call repeating the last request writes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../core/policy/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import type { SessionStore } from '../store/session-store.ts';
import { TABLE_PREFIX } from '../store/session-store-migrations.ts';
import { createSqliteSessionStore } from '../store/sqlite-session-store.ts';
import { assistant, user } from '../testing/build-messages.ts';
import type { PrepareRequest } from './call-context.ts';
import { createContextManager } from './context-manager.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tools = (): ToolDefinition[] => [
  {
    name: 'search_flights',
    description: 'Finds flights between two airports on a date.',
    parameters: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' }, date: { type: 'string' } },
      required: ['from', 'to', 'date'],
    },
  },
  { name: 'book', description: 'Books the flight the user chose.', injection: 'compact_direct' },
];

const request = (): PrepareRequest => ({
  system: 'You are an airline agent. Be brief, and confirm before you book anything.',
  tools: tools(),
  model: 'gpt-4o',
  contextWindow: 16_000,
  maxOutputTokens: 1_000,
});

/** The store, counting the last-request writes asked for and those that found the session. */
function countingStore(store: SessionStore) {
  const writes = { asked: 0, written: 0 };
  const counted: SessionStore = {
    ...store,
    setLastRequest: async (sessionId, value) => {
      writes.asked++;
      const written = await store.setLastRequest(sessionId, value);
      if (written) writes.written++;
      return written;
    },
  };
  return { store: counted, writes };
}

/** Managers on one SQLite file, as processes sharing it would be (each opens its own connection). */
function sharedFile(policy: Policy = DEFAULT_POLICY) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-last-request-'));
  dirs.push(dir);
  const path = join(dir, 'sessions.db');
  let now = 1_000;
  const open = async () => {
    const counted = countingStore(await createSqliteSessionStore({ path }));
    const manager = createContextManager({ store: counted.store, policy, clock: () => now++ });
    return { manager, writes: counted.writes, store: counted.store };
  };
  const raw = (work: (db: Database.Database) => void) => {
    const db = new Database(path);
    try {
      work(db);
    } finally {
      db.close();
    }
  };
  return { open, raw };
}

const conversation = [
  user('I need a flight from Lisbon to Oslo on Friday.'),
  assistant('There are two: 08:10 and 17:45. Which one?'),
  user('The evening one, please.'),
];

describe('the last request, kept with the session', () => {
  it('gives a manager started later the same stats as the one that prepared the call', async () => {
    const file = sharedFile();
    const first = await file.open();
    await first.manager.append('s', conversation);
    await first.manager.prepare('s', request());
    const before = await first.manager.stats('s');
    expect(before.tokens.system).toBeGreaterThan(0);
    expect(before.tokens.tools).toBeGreaterThan(0);
    expect(before).toMatchObject({ contextWindow: 16_000, maxOutputTokens: 1_000 });

    const second = await file.open();
    expect(await second.manager.stats('s')).toEqual(before);
    // And the first, restarted, too.
    first.manager.unload('s');
    expect(await first.manager.stats('s')).toEqual(before);
  });

  it('keeps a window only the request gave: no unknown_model in another manager', async () => {
    const file = sharedFile();
    const first = await file.open();
    // The policy names no model and no window: a session that never had a request has none.
    await first.manager.append('none', conversation);
    await expect(first.manager.stats('none')).rejects.toMatchObject({ code: 'unknown_model' });

    await first.manager.append('s', conversation);
    await first.manager.prepare('s', { contextWindow: 12_000 });
    const before = await first.manager.stats('s');
    expect(before.contextWindow).toBe(12_000);
    const second = await file.open();
    expect(await second.manager.stats('s')).toEqual(before);
    // What the second manager prepares measures the same call.
    const prepared = await second.manager.prepare('s');
    expect(prepared.stats.contextWindow).toBe(12_000);
  });

  it('writes only when the request changed: a call repeating it costs no write', async () => {
    const file = sharedFile();
    const first = await file.open();
    await first.manager.append('s', conversation);
    await first.manager.prepare('s', request());
    expect(first.writes).toEqual({ asked: 1, written: 1 });
    // The same request, built anew each call (as a proxy parsing each body would), and calls without one.
    for (let call = 0; call < 4; call++) await first.manager.prepare('s', request());
    await first.manager.stats('s');
    await first.manager.prepare('s');
    await first.manager.afterTurn('s');
    await first.manager.append('s', [assistant('Booked.')]);
    await first.manager.prepare('s', { model: 'gpt-4o' });
    expect(first.writes).toEqual({ asked: 1, written: 1 });
    // A new system prompt is one write; what stats is asked about is not a request the session made.
    await first.manager.prepare('s', { system: 'You are a hotel agent.' });
    await first.manager.prepare('s', { system: 'You are a hotel agent.' });
    expect(first.writes).toEqual({ asked: 2, written: 2 });
    await first.manager.stats('s', { contextWindow: 20_000 });
    expect(first.writes).toEqual({ asked: 2, written: 2 });
    await first.manager.prepare('s', { contextWindow: 20_000 });
    expect(first.writes).toEqual({ asked: 3, written: 3 });

    // A manager that read it from the store writes nothing for the same request either.
    const second = await file.open();
    await second.manager.prepare('s', {
      ...request(),
      system: 'You are a hotel agent.',
      contextWindow: 20_000,
    });
    await second.manager.stats('s');
    expect(second.writes).toEqual({ asked: 0, written: 0 });
    expect(await second.store.loadLastRequest('s')).toEqual({
      ...request(),
      system: 'You are a hotel agent.',
      contextWindow: 20_000,
    });
  });

  it('is not activity: recording it leaves the session as idle as it was', async () => {
    const file = sharedFile();
    const first = await file.open();
    await first.manager.append('s', conversation);
    const [listed] = await first.store.list();
    await first.manager.prepare('s', request());
    await first.manager.prepare('s', { system: 'changed' });
    expect(first.writes.written).toBe(2);
    expect(await first.store.list()).toEqual([listed]);
  });

  it('records it once the session has a row: a prepare before the first message writes nothing', async () => {
    const file = sharedFile();
    const first = await file.open();
    await first.manager.prepare('s', request());
    expect(first.writes).toEqual({ asked: 1, written: 0 });
    expect(await first.store.list()).toEqual([]);
    await first.manager.append('s', conversation);
    await first.manager.prepare('s', request());
    expect(first.writes).toEqual({ asked: 2, written: 1 });
    expect(await first.store.loadLastRequest('s')).toEqual(request());
  });

  it('takes a damaged stored last request as none, and writes over it with the next one', async () => {
    const file = sharedFile();
    const first = await file.open();
    await first.manager.append('s', conversation);
    await first.manager.prepare('s', request());
    file.raw((db) =>
      db.prepare(`UPDATE ${TABLE_PREFIX}sessions SET last_request = ? WHERE id = ?`).run('{not json', 's'),
    );
    const second = await file.open();
    await expect(second.store.loadLastRequest('s')).rejects.toMatchObject({ code: 'corrupt_session' });
    // The session still loads; with no request, its window is unknown as it was before any.
    await expect(second.manager.stats('s')).rejects.toMatchObject({ code: 'unknown_model' });
    await second.manager.prepare('s', request());
    expect(second.writes.written).toBe(1);
    expect(await second.store.loadLastRequest('s')).toEqual(request());
    // Written back as the first manager last wrote it: nothing there for it to read again.
    expect(await first.manager.refresh('s')).toBe(false);
  });
});

describe('refresh and the last request', () => {
  it('reads the session again when another process recorded a new last request, and only then', async () => {
    const file = sharedFile();
    const [a, b] = await Promise.all([file.open(), file.open()]);
    await a.manager.append('s', conversation);
    await a.manager.prepare('s', request());
    await b.manager.stats('s');
    expect(await a.manager.refresh('s')).toBe(false);
    expect(await b.manager.refresh('s')).toBe(false);

    await b.manager.prepare('s', { system: 'You are a hotel agent.', tools: [] });
    expect(await a.manager.refresh('s')).toBe(true);
    const seen = await a.manager.stats('s');
    expect(seen).toEqual(await b.manager.stats('s'));
    expect(seen.tokens.tools).toBe(0);
    expect(await a.manager.refresh('s')).toBe(false);
    // Its own new request never makes it stale.
    await a.manager.prepare('s', { contextWindow: 24_000 });
    expect(await a.manager.refresh('s')).toBe(false);
    expect(await b.manager.refresh('s')).toBe(true);
    expect((await b.manager.stats('s')).contextWindow).toBe(24_000);
  });
});
