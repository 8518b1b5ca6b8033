import { describe, expect, it } from 'vitest';
import type { Edit } from '../core/edit.ts';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import { DROP_EDIT, shift, storeRunner } from './testing/session-store-conformance-fixtures.ts';
import type { SessionStoreHarness } from './testing/session-store-harness.ts';

/**
 * What a resume reads (`loadRecent`): part of the session store conformance suite, registered by
 * `describeSessionStoreConformance` for every store.
 */
export function describeRecentReadConformance(name: string, harness: SessionStoreHarness): void {
  const withStore = storeRunner(harness);
  const drop = DROP_EDIT;

  describe(`SessionStore conformance: ${name}: loadRecent`, () => {
    it('loadRecent: every id and edit, and the bodies from one past the newest cut on', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b'), user('c'), assistant('d'), user('e')]);
        const contentIds = messages.map((message) => `c-${message.id}`);
        await store.append('s1', { messages, contentIds, expectedSeq: 0, expectedEditCount: 0 }, 1);
        const uncut = await store.loadRecent('s1');
        expect(uncut).toEqual({
          id: 's1',
          edits: [],
          editCount: 0,
          messageIds: messages.map((message) => message.id),
          contentIds,
          logStart: 0,
          recent: messages,
          recentTokens: messages.map(() => null),
          createdAt: 1,
          updatedAt: 1,
        });
        // Two cuts, the newer one not the later: the view starts after the furthest.
        const cuts: Edit[] = [
          { ...drop, id: 'e1', throughSeq: 2 },
          { ...drop, id: 'e2', throughSeq: 1 },
        ];
        // Edits of messages behind the cut change nothing a resume shows: it leaves them unread.
        const truncate = (id: string, target: number): Edit => ({
          id,
          at: 2,
          layer: 'truncate-old',
          reason: 'old_result_limit',
          tokensBefore: 10,
          tokensAfter: 5,
          type: 'truncate-result',
          target,
          content: 'short',
          originalChars: 100,
        });
        const reaching = truncate('t4', 4);
        await store.appendEdits('s1', [truncate('t1', 1), cuts[0] as Edit, reaching, cuts[1] as Edit], 0, 2);
        const cut = await store.loadRecent('s1');
        expect(cut?.logStart).toBe(3);
        expect(cut?.recent).toEqual(messages.slice(3));
        expect(cut?.edits).toEqual([cuts[0], reaching, cuts[1]]);
        expect(cut?.editCount).toBe(4);
        expect(cut?.messageIds).toEqual(messages.map((message) => message.id));
        expect(cut?.updatedAt).toBe(2);
        // What it holds is exactly what a full load holds from there on.
        const full = await store.load('s1');
        expect(full?.log.slice(cut?.logStart)).toEqual(cut?.recent);
        expect(full?.edits).toHaveLength(4);
        // A cut through the last message still leaves the last message at hand.
        await store.appendEdits('s1', [{ ...drop, id: 'e3', throughSeq: 4 }], 4, 3);
        const all = await store.loadRecent('s1');
        expect(all?.logStart).toBe(4);
        expect(all?.recent).toEqual(messages.slice(4));
        expect(await store.loadRecent('nobody')).toBeUndefined();
        expect(await store.loadRecent('')).toBeUndefined();
      }));

    it('loadRecent: content ids are null where the writer gave none, and a write with the wrong number is refused', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b'), user('c')]);
        await store.appendMessages('s1', messages.slice(0, 1), 0, 1);
        await store.append(
          's1',
          { messages: messages.slice(1, 2), contentIds: ['c1'], expectedSeq: 1, expectedEditCount: 0 },
          2,
        );
        const refused = store.append(
          's1',
          { messages: messages.slice(2), contentIds: ['c2', 'c3'], expectedSeq: 2, expectedEditCount: 0 },
          3,
        );
        await expect(refused).rejects.toMatchObject({ code: 'invalid_append' });
        await expect(refused).rejects.toThrow(/contentIds has 2 entries for 1 messages/);
        await expect(
          store.append(
            's1',
            { messages: messages.slice(2), contentIds: [''], expectedSeq: 2, expectedEditCount: 0 },
            3,
          ),
        ).rejects.toThrow(/contentIds\[0\]/);
        const recent = await store.loadRecent('s1');
        expect(recent?.contentIds).toEqual([null, 'c1']);
        expect(recent?.recent).toEqual(messages.slice(0, 2));
      }));

    it('loadRecent: token counts kept with the messages come back with the recent ones; a malformed one is refused', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b'), user('c')]);
        const breakdown = {
          text: 3,
          reasoning: 0,
          toolCalls: 0,
          toolResults: 0,
          media: 0,
          overhead: 4,
          total: 7,
        };
        const tokens = [{ key: 'o200k_base|4|1000', breakdown }, null, { key: 'k', breakdown }];
        await store.append('s1', { messages, tokens, expectedSeq: 0, expectedEditCount: 0 }, 1);
        expect((await store.loadRecent('s1'))?.recentTokens).toEqual(tokens);
        await store.appendEdits('s1', [{ ...drop, throughSeq: 1 }], 0, 2);
        expect((await store.loadRecent('s1'))?.recentTokens).toEqual(tokens.slice(2));
        const [next] = shift(numbered([user('d')]), 3);
        if (!next) throw new Error('no message');
        const malformed = { key: 'k', breakdown: { ...breakdown, total: -1 } };
        await expect(
          store.append(
            's1',
            { messages: [next], tokens: [malformed], expectedSeq: 3, expectedEditCount: 1 },
            3,
          ),
        ).rejects.toThrow(/tokens\[0\] is not a token count/);
        await expect(
          store.append('s1', { messages: [next], tokens: [], expectedSeq: 3, expectedEditCount: 1 }, 3),
        ).rejects.toThrow(/tokens has 0 entries for 1 messages/);
        expect((await store.load('s1'))?.log).toEqual(messages);
      }));
  });
}
