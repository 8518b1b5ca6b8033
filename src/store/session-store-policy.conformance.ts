import { describe, expect, it } from 'vitest';
import type { PolicyOverride } from '../core/policy/policy-schema.ts';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import { shift, storeRunner } from './testing/session-store-conformance-fixtures.ts';
import type { SessionStoreHarness } from './testing/session-store-harness.ts';

/**
 * A session's policy override (`loadPolicyOverride` / `setPolicyOverride`): part of the session store
 * conformance suite, registered by `describeSessionStoreConformance` for every store.
 */
export function describePolicyOverrideConformance(name: string, harness: SessionStoreHarness): void {
  const withStore = storeRunner(harness);
  const lowTrigger: PolicyOverride = { summarize: { trigger: 0.5 }, clearing: { trigger: 0.3 } };

  describe(`SessionStore conformance: ${name}: policy override`, () => {
    it('records an override and its time, replaces it whole, and leaves the log and edits alone', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b')]);
        await store.appendMessages('s1', messages, 0, 1);
        expect(await store.loadPolicyOverride('s1')).toBeUndefined();
        await store.setPolicyOverride('s1', lowTrigger, 5);
        expect(await store.loadPolicyOverride('s1')).toEqual({ override: lowTrigger, updatedAt: 5 });
        // Setting it is a write: the session is not idle since then.
        expect(await store.list()).toEqual([{ id: 's1', messages: 2, edits: 0, createdAt: 1, updatedAt: 5 }]);
        expect(await store.list({ updatedBefore: 5 })).toEqual([]);
        const replaced: PolicyOverride = { budget: { contextWindow: 65_536 }, hooks: [] };
        await store.setPolicyOverride('s1', replaced, 7);
        expect(await store.loadPolicyOverride('s1')).toEqual({ override: replaced, updatedAt: 7 });
        expect((await store.load('s1'))?.log).toEqual(messages);
        // Appends go on from where the log was, and keep the override.
        await store.appendMessages('s1', numbered([user('a'), assistant('b'), user('c')]).slice(2), 2, 9);
        expect((await store.loadRecent('s1'))?.messageIds).toHaveLength(3);
        expect(await store.loadPolicyOverride('s1')).toEqual({ override: replaced, updatedAt: 7 });
      }));

    it('creates a session with no messages for an override; its first append is at position 0', () =>
      withStore(async (store) => {
        await store.setPolicyOverride('empty', lowTrigger, 3);
        expect(await store.list()).toEqual([
          { id: 'empty', messages: 0, edits: 0, createdAt: 3, updatedAt: 3 },
        ]);
        expect(await store.load('empty')).toEqual({
          id: 'empty',
          log: [],
          edits: [],
          createdAt: 3,
          updatedAt: 3,
        });
        expect(await store.loadRecent('empty')).toMatchObject({ messageIds: [], editCount: 0, recent: [] });
        await expect(
          store.appendMessages('empty', shift(numbered([user('x')]), 1), 1, 4),
        ).rejects.toMatchObject({
          code: 'sequence_conflict',
        });
        await store.appendMessages('empty', numbered([user('x')]), 0, 4);
        expect(await store.load('empty')).toMatchObject({ log: [{ seq: 0 }], createdAt: 3, updatedAt: 4 });
        expect((await store.loadPolicyOverride('empty'))?.override).toEqual(lowTrigger);
      }));

    it('removes an override with null; removing one where there is no session writes nothing', () =>
      withStore(async (store) => {
        await store.setPolicyOverride('nobody', null, 1);
        expect(await store.list()).toEqual([]);
        expect(await store.load('nobody')).toBeUndefined();
        await store.appendMessages('s1', numbered([user('a')]), 0, 1);
        await store.setPolicyOverride('s1', lowTrigger, 2);
        await store.setPolicyOverride('s1', null, 3);
        expect(await store.loadPolicyOverride('s1')).toBeUndefined();
        expect(await store.list()).toEqual([{ id: 's1', messages: 1, edits: 0, createdAt: 1, updatedAt: 3 }]);
        // A session made by its override alone is still there, empty, when the override goes.
        await store.setPolicyOverride('configured', lowTrigger, 4);
        await store.setPolicyOverride('configured', null, 5);
        expect(await store.loadPolicyOverride('configured')).toBeUndefined();
        expect((await store.list()).map((listing) => listing.id).sort()).toEqual(['configured', 's1']);
      }));

    it('deletes the override with the session: a session of the same id starts without one', () =>
      withStore(async (store) => {
        await store.appendMessages('s1', numbered([user('a')]), 0, 1);
        await store.setPolicyOverride('s1', lowTrigger, 2);
        await store.setPolicyOverride('only-configured', lowTrigger, 2);
        await store.delete('s1');
        await store.delete('only-configured');
        expect(await store.loadPolicyOverride('s1')).toBeUndefined();
        expect(await store.loadPolicyOverride('only-configured')).toBeUndefined();
        expect(await store.list()).toEqual([]);
        await store.appendMessages('s1', numbered([user('again')]), 0, 3);
        expect(await store.loadPolicyOverride('s1')).toBeUndefined();
      }));

    it('keeps each session its own override, unchanged by callers mutating what they set or read', () =>
      withStore(async (store) => {
        const mine: PolicyOverride = { clearing: { excludeTools: ['read'] } };
        await store.setPolicyOverride('a', mine, 1);
        await store.setPolicyOverride('b', lowTrigger, 1);
        mine.clearing?.excludeTools?.push('write');
        const read = await store.loadPolicyOverride('a');
        read?.override.clearing?.excludeTools?.push('grep');
        expect((await store.loadPolicyOverride('a'))?.override).toEqual({
          clearing: { excludeTools: ['read'] },
        });
        expect((await store.loadPolicyOverride('b'))?.override).toEqual(lowTrigger);
      }));

    it('refuses what it could not read back, storing nothing: unknown keys, bad values, bad ids and times', () =>
      withStore(async (store) => {
        const unknownKey = { summarize: { triger: 0.5 } } as unknown as PolicyOverride;
        await expect(store.setPolicyOverride('s1', unknownKey, 1)).rejects.toMatchObject({
          code: 'invalid_policy',
          key: 'summarize.triger',
        });
        await expect(store.setPolicyOverride('s1', { summarize: { trigger: 2 } }, 1)).rejects.toMatchObject({
          code: 'invalid_policy',
          key: 'summarize.trigger',
        });
        await expect(store.setPolicyOverride('', lowTrigger, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(store.setPolicyOverride('bad\u0000id', lowTrigger, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(store.setPolicyOverride('s1', lowTrigger, Number.NaN)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        expect(await store.list()).toEqual([]);
        expect(await store.loadPolicyOverride('s1')).toBeUndefined();
        // Ids no session can have are simply not found.
        expect(await store.loadPolicyOverride('bad\u0000id')).toBeUndefined();
        expect(await store.loadPolicyOverride('')).toBeUndefined();
      }));

    if (harness.durable) {
      it('keeps the override across closing and reopening (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          const writer = await db.open();
          await writer.setPolicyOverride('configured', lowTrigger, 2);
          await writer.appendMessages('s1', numbered([user('a')]), 0, 1);
          await writer.setPolicyOverride('s1', { model: 'gpt-4o', hooks: [] }, 3);
          await writer.close();
          const reader = await db.open();
          try {
            expect(await reader.loadPolicyOverride('configured')).toEqual({
              override: lowTrigger,
              updatedAt: 2,
            });
            expect(await reader.loadPolicyOverride('s1')).toEqual({
              override: { model: 'gpt-4o', hooks: [] },
              updatedAt: 3,
            });
          } finally {
            await reader.close();
          }
        } finally {
          await db.dispose();
        }
      });

      it('reports a damaged override as corrupt_session naming the session (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          const tamper = db.tamper;
          if (!tamper) throw new Error('a durable harness must say how to damage its database (tamper)');
          const store = await db.open();
          try {
            await store.setPolicyOverride('s1', lowTrigger, 1);
            for (const text of ['{not json', '{"summarize":{"triger":0.5}}', '[1]']) {
              await tamper.setPolicyOverride('s1', text);
              await expect(store.loadPolicyOverride('s1'), text).rejects.toMatchObject({
                code: 'corrupt_session',
                details: { sessionId: 's1', table: 'sessions' },
              });
            }
            await tamper.setPolicyOverride('s1', '{"summarize":{"triger":0.5}}');
            await expect(store.loadPolicyOverride('s1')).rejects.toThrow(/summarize\.triger/);
            // Setting a good one mends it.
            await store.setPolicyOverride('s1', lowTrigger, 2);
            expect((await store.loadPolicyOverride('s1'))?.override).toEqual(lowTrigger);
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
