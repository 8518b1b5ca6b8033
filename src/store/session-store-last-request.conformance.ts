import { describe, expect, it } from 'vitest';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import type { StoredLastRequest } from './session-store.ts';
import { DROP_EDIT, storeRunner } from './testing/session-store-conformance-fixtures.ts';
import type { SessionStoreHarness } from './testing/session-store-harness.ts';

/**
 * The shape of a session's last request (`loadLastRequest` / `setLastRequest`): part of the session
 * store conformance suite, registered by `describeSessionStoreConformance` for every store.
 */
export function describeLastRequestConformance(name: string, harness: SessionStoreHarness): void {
  const withStore = storeRunner(harness);
  const request: StoredLastRequest = {
    system: 'You are an airline agent.',
    tools: [
      {
        name: 'book',
        description: 'Books a flight',
        parameters: { type: 'object', properties: { flight: { type: 'string' } }, required: ['flight'] },
      },
      { name: 'search', injection: 'discovery' },
    ],
    model: 'gpt-4o',
    contextWindow: 32_000,
    maxOutputTokens: 2_000,
  };

  describe(`SessionStore conformance: ${name}: last request`, () => {
    it('records the last request, replaces it whole, and is not activity (updatedAt stays)', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b')]);
        await store.appendMessages('s1', messages, 0, 1);
        expect(await store.loadLastRequest('s1')).toBeUndefined();
        expect(await store.setLastRequest('s1', request)).toBe(true);
        expect(await store.loadLastRequest('s1')).toEqual(request);
        // Not a write retention counts: the session is as idle as it was.
        expect(await store.list()).toEqual([{ id: 's1', messages: 2, edits: 0, createdAt: 1, updatedAt: 1 }]);
        expect(await store.list({ updatedBefore: 2 })).toHaveLength(1);
        expect(await store.loadRecent('s1')).toMatchObject({ updatedAt: 1 });
        const replaced: StoredLastRequest = { model: 'claude-sonnet-4', contextWindow: 200_000 };
        expect(await store.setLastRequest('s1', replaced)).toBe(true);
        expect(await store.loadLastRequest('s1')).toEqual(replaced);
        expect((await store.load('s1'))?.log).toEqual(messages);
        // Appends and edits go on from where they were, and keep it.
        await store.append('s1', { edits: [DROP_EDIT], expectedSeq: 2, expectedEditCount: 0 }, 3);
        await store.appendMessages('s1', numbered([user('a'), assistant('b'), user('c')]).slice(2), 2, 4);
        expect(await store.loadRecent('s1')).toMatchObject({ editCount: 1, updatedAt: 4 });
        expect(await store.loadLastRequest('s1')).toEqual(replaced);
        // An empty request is a request (one that says nothing), not none.
        expect(await store.setLastRequest('s1', {})).toBe(true);
        expect(await store.loadLastRequest('s1')).toEqual({});
      }));

    it('writes nothing for a session with no row, and answers false', () =>
      withStore(async (store) => {
        expect(await store.setLastRequest('nobody', request)).toBe(false);
        expect(await store.setLastRequest('nobody', null)).toBe(false);
        expect(await store.list()).toEqual([]);
        expect(await store.load('nobody')).toBeUndefined();
        expect(await store.loadRecent('nobody')).toBeUndefined();
        expect(await store.loadLastRequest('nobody')).toBeUndefined();
        // A session made by its policy override alone has a row: it can hold one.
        await store.setPolicyOverride('configured', { summarize: { trigger: 0.5 } }, 2);
        expect(await store.setLastRequest('configured', request)).toBe(true);
        expect(await store.loadLastRequest('configured')).toEqual(request);
        expect(await store.list()).toEqual([
          { id: 'configured', messages: 0, edits: 0, createdAt: 2, updatedAt: 2 },
        ]);
        expect((await store.loadPolicyOverride('configured'))?.override).toEqual({
          summarize: { trigger: 0.5 },
        });
      }));

    it('removes it with null, leaving the session and its time alone', () =>
      withStore(async (store) => {
        await store.appendMessages('s1', numbered([user('a')]), 0, 1);
        await store.setLastRequest('s1', request);
        expect(await store.setLastRequest('s1', null)).toBe(true);
        expect(await store.loadLastRequest('s1')).toBeUndefined();
        expect(await store.list()).toEqual([{ id: 's1', messages: 1, edits: 0, createdAt: 1, updatedAt: 1 }]);
      }));

    it('keeps the known fields only, in one order: equal requests read back as equal text', () =>
      withStore(async (store) => {
        await store.appendMessages('s1', numbered([user('a')]), 0, 1);
        const untidy = {
          maxOutputTokens: 2_000,
          tools: [
            {
              parameters: {
                type: 'object',
                properties: { flight: { type: 'string' } },
                required: ['flight'],
              },
              description: 'Books a flight',
              strict: true,
              name: 'book',
            },
            { injection: 'discovery', name: 'search', description: undefined },
          ],
          temperature: 0.2,
          contextWindow: 32_000,
          model: 'gpt-4o',
          system: 'You are an airline agent.',
          messages: [{ role: 'user', content: 'not kept' }],
        } as unknown as StoredLastRequest;
        expect(await store.setLastRequest('s1', untidy)).toBe(true);
        const read = await store.loadLastRequest('s1');
        expect(read).toEqual(request);
        expect(JSON.stringify(read)).toBe(JSON.stringify(request));
        // What was read, written again, reads back the same.
        await store.setLastRequest('s1', read ?? {});
        expect(JSON.stringify(await store.loadLastRequest('s1'))).toBe(JSON.stringify(request));
      }));

    it('deletes it with the session: a session of the same id starts without one', () =>
      withStore(async (store) => {
        await store.appendMessages('s1', numbered([user('a')]), 0, 1);
        await store.setLastRequest('s1', request);
        await store.delete('s1');
        expect(await store.loadLastRequest('s1')).toBeUndefined();
        await store.appendMessages('s1', numbered([user('again')]), 0, 2);
        expect(await store.loadLastRequest('s1')).toBeUndefined();
      }));

    it('keeps each session its own, unchanged by callers mutating what they set or read', () =>
      withStore(async (store) => {
        await store.appendMessages('a', numbered([user('a')]), 0, 1);
        await store.appendMessages('b', numbered([user('b')]), 0, 1);
        const mine: StoredLastRequest = { system: 'mine', tools: [{ name: 'read' }] };
        await store.setLastRequest('a', mine);
        await store.setLastRequest('b', { model: 'gpt-4o' });
        mine.tools?.push({ name: 'write' });
        const read = await store.loadLastRequest('a');
        read?.tools?.push({ name: 'grep' });
        expect(await store.loadLastRequest('a')).toEqual({ system: 'mine', tools: [{ name: 'read' }] });
        expect(await store.loadLastRequest('b')).toEqual({ model: 'gpt-4o' });
      }));

    it('refuses what it could not read back, storing nothing: bad fields, bad ids', () =>
      withStore(async (store) => {
        await store.appendMessages('s1', numbered([user('a')]), 0, 1);
        await store.setLastRequest('s1', request);
        const bad: unknown[] = [
          { system: 7 },
          { tools: 'book' },
          { tools: [{ description: 'no name' }] },
          { tools: [{ name: '' }] },
          { tools: [{ name: 'x', parameters: [] }] },
          { tools: [{ name: 'x', injection: 'sometimes' }] },
          { model: '' },
          { contextWindow: 0 },
          { contextWindow: 1.5 },
          { maxOutputTokens: -1 },
          { contextWindow: Number.POSITIVE_INFINITY },
          { tools: [{ name: 'x', parameters: { big: 1n } }] },
          [],
          'request',
        ];
        for (const value of bad) {
          await expect(
            store.setLastRequest('s1', value as StoredLastRequest),
            JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v)),
          ).rejects.toMatchObject({ code: 'invalid_append', details: { sessionId: 's1' } });
        }
        await expect(store.setLastRequest('s1', { contextWindow: 0 })).rejects.toThrow(/contextWindow/);
        expect(await store.loadLastRequest('s1')).toEqual(request);
        await expect(store.setLastRequest('', request)).rejects.toMatchObject({ code: 'invalid_append' });
        await expect(store.setLastRequest('bad\u0000id', request)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        // Ids no session can have are simply not found.
        expect(await store.loadLastRequest('bad\u0000id')).toBeUndefined();
        expect(await store.loadLastRequest('')).toBeUndefined();
      }));

    if (harness.durable) {
      it('keeps it across closing and reopening, for every handle (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          const writer = await db.open();
          const other = await db.open();
          try {
            await writer.appendMessages('s1', numbered([user('a')]), 0, 1);
            await writer.setLastRequest('s1', request);
            expect(await other.loadLastRequest('s1')).toEqual(request);
          } finally {
            await writer.close();
            await other.close();
          }
          const reader = await db.open();
          try {
            expect(await reader.loadLastRequest('s1')).toEqual(request);
          } finally {
            await reader.close();
          }
        } finally {
          await db.dispose();
        }
      });

      it('reports a damaged last request as corrupt_session naming the session (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          const tamper = db.tamper;
          if (!tamper) throw new Error('a durable harness must say how to damage its database (tamper)');
          const store = await db.open();
          try {
            await store.appendMessages('s1', numbered([user('a')]), 0, 1);
            await store.setLastRequest('s1', request);
            for (const text of [
              '{not json',
              '[1]',
              '"text"',
              '{"tools":[{"name":""}]}',
              '{"contextWindow":"x"}',
            ]) {
              await tamper.setLastRequest('s1', text);
              await expect(store.loadLastRequest('s1'), text).rejects.toMatchObject({
                code: 'corrupt_session',
                details: { sessionId: 's1', table: 'sessions' },
              });
            }
            await tamper.setLastRequest('s1', '{"contextWindow":-5}');
            await expect(store.loadLastRequest('s1')).rejects.toThrow(/last_request.*contextWindow/);
            // The rest of the session reads as ever; setting a good one mends it.
            expect((await store.load('s1'))?.log).toHaveLength(1);
            expect(await store.setLastRequest('s1', { model: 'gpt-4o' })).toBe(true);
            expect(await store.loadLastRequest('s1')).toEqual({ model: 'gpt-4o' });
          } finally {
            await store.close();
          }
        } finally {
          await db.dispose();
        }
      });
    }
  });
}
