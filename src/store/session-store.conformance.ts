import { describe, expect, it } from 'vitest';
import type { Edit } from '../core/edit.ts';
import { SequenceConflictError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { MAX_SESSION_ID_LENGTH } from '../core/session-id.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { HOSTILE_IDS } from './blob-store.conformance.ts';
import type { SessionStore } from './session-store.ts';
import type { SessionDatabase, SessionStoreHarness } from './testing/session-store-harness.ts';

export type { SessionDatabase, SessionStoreHarness } from './testing/session-store-harness.ts';

import { describeLastRequestConformance } from './session-store-last-request.conformance.ts';
import { SESSION_STORE_SCHEMA_VERSION } from './session-store-migrations.ts';
import { describePolicyOverrideConformance } from './session-store-policy.conformance.ts';
import { describeRecentReadConformance } from './session-store-recent.conformance.ts';
import { appendWithRetries, checkConcurrentLog } from './testing/session-store-append-with-retries.ts';
import {
  DROP_EDIT,
  everyEdit,
  richMessages,
  shift,
  storeRunner,
} from './testing/session-store-conformance-fixtures.ts';

/** A harness for a store that is its own database (the memory store): every handle is the same store. */
export function singleStoreHarness(makeStore: () => Promise<SessionStore>): SessionStoreHarness {
  return {
    async fresh() {
      const store = await makeStore();
      return { open: async () => store, persistent: false, dispose: async () => store.close() };
    },
    durable: false,
  };
}

/**
 * One suite every SessionStore must pass: register it with a harness giving fresh, empty databases (or,
 * for a store that is its own database, a factory for a fresh store).
 */
export function describeSessionStoreConformance(
  name: string,
  harnessOrFactory: SessionStoreHarness | (() => Promise<SessionStore>),
): void {
  const harness =
    typeof harnessOrFactory === 'function' ? singleStoreHarness(harnessOrFactory) : harnessOrFactory;

  const withStore = storeRunner(harness);

  describe(`SessionStore conformance: ${name}`, () => {
    const drop = DROP_EDIT;

    it('appends messages and edits and loads them back in order', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b'), user('c')]);
        await store.appendMessages('s1', messages.slice(0, 2), 0, 1);
        await store.appendMessages('s1', messages.slice(2), 2, 2);
        await store.appendEdits('s1', [drop], 0, 3);
        const loaded = await store.load('s1');
        expect(loaded?.id).toBe('s1');
        expect(loaded?.log).toEqual(messages);
        expect(loaded?.edits).toEqual([drop]);
        expect(loaded?.createdAt).toBe(1);
        expect(loaded?.updatedAt).toBe(3);
      }));

    it('says where the log and the edit list end, without reading them', () =>
      withStore(async (store) => {
        expect(await store.loadPositions('s1')).toBeUndefined();
        const messages = numbered([user('a'), assistant('b'), user('c')]);
        await store.appendMessages('s1', messages.slice(0, 2), 0, 1);
        expect(await store.loadPositions('s1')).toEqual({ messages: 2, edits: 0 });
        await store.appendMessages('s1', messages.slice(2), 2, 2);
        await store.appendEdits('s1', [drop], 0, 3);
        expect(await store.loadPositions('s1')).toEqual({ messages: 3, edits: 1 });
        expect(await store.loadPositions('s2')).toBeUndefined();
        await store.delete('s1');
        expect(await store.loadPositions('s1')).toBeUndefined();
      }));

    it('refuses an append at the wrong position with a sequence conflict, keeping what was stored', () =>
      withStore(async (store) => {
        const messages = numbered([user('a'), assistant('b')]);
        await store.appendMessages('s1', messages, 0, 1);
        const stale = store.appendMessages('s1', numbered([user('x')]), 0, 2);
        await expect(stale).rejects.toBeInstanceOf(SequenceConflictError);
        await expect(stale).rejects.toMatchObject({
          code: 'sequence_conflict',
          details: { sessionId: 's1', what: 'messages', expected: 0, actual: 2 },
        });
        await expect(store.appendEdits('s1', [drop], 1, 2)).rejects.toMatchObject({
          code: 'sequence_conflict',
          details: { what: 'edits', expected: 1, actual: 0 },
        });
        await expect(store.appendMessages('s1', shift(numbered([user('x')]), 3), 3, 2)).rejects.toMatchObject(
          {
            code: 'sequence_conflict',
          },
        );
        await expect(
          store.appendMessages('nobody', shift(numbered([user('x')]), 1), 1, 2),
        ).rejects.toMatchObject({ code: 'sequence_conflict', details: { actual: 0 } });
        expect((await store.load('s1'))?.log).toEqual(messages);
        expect(await store.load('nobody')).toBeUndefined();
      }));

    it('refuses messages whose seqs do not continue the log', () =>
      withStore(async (store) => {
        const [first] = numbered([user('a')]);
        if (!first) throw new Error('no message');
        await expect(store.appendMessages('s1', [{ ...first, seq: 4 }], 0, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        expect(await store.load('s1')).toBeUndefined();
      }));

    it('refuses what it could not read back, storing nothing: malformed messages and edits, bad ids and times', () =>
      withStore(async (store) => {
        const [first] = numbered([user('a')]);
        if (!first) throw new Error('no message');
        const noParts = { ...first, parts: undefined } as unknown as Message;
        const badPart = { ...first, parts: [{ type: 'text', text: 3 }] } as unknown as Message;
        const badEdit = { ...drop, throughSeq: 'all' } as unknown as Edit;
        await expect(store.appendMessages('s1', [noParts], 0, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(store.appendMessages('s1', [badPart], 0, 1)).rejects.toThrow(/parts\.0\.text/);
        await expect(store.appendEdits('s1', [badEdit], 0, 1)).rejects.toThrow(/edit 0 .*throughSeq/);
        await expect(store.appendMessages('', [first], 0, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(store.appendMessages('bad\u0000id', [first], 0, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(store.appendMessages('bad\ud800id', [first], 0, 1)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(store.appendMessages('s1', [first], 0, Number.NaN)).rejects.toMatchObject({
          code: 'invalid_append',
        });
        await expect(
          store.append(
            's1',
            { messages: [first], edits: [badEdit], expectedSeq: 0, expectedEditCount: 0 },
            1,
          ),
        ).rejects.toMatchObject({ code: 'invalid_append' });
        expect(await store.load('s1')).toBeUndefined();
        expect(await store.list()).toEqual([]);
        // Ids no session can have are simply not found.
        expect(await store.load('bad\u0000id')).toBeUndefined();
        expect(await store.load('')).toBeUndefined();
        await store.delete('bad\ud800id');
      }));

    it('takes any session id (hostile ones too), keeps each session apart, refuses over-long ids', () =>
      withStore(async (store) => {
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          await store.appendMessages(sessionId, numbered([user(`message ${index}`)]), 0, index + 1);
        }
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          const label = JSON.stringify(sessionId.slice(0, 40));
          const stored = await store.load(sessionId);
          expect(stored?.id, label).toBe(sessionId);
          expect(
            stored?.log.map((message) => message.parts),
            label,
          ).toEqual([[{ type: 'text', text: `message ${index}` }]]);
          expect((await store.loadRecent(sessionId))?.id, label).toBe(sessionId);
        }
        expect((await store.list()).map((listing) => listing.id).sort()).toEqual([...HOSTILE_IDS].sort());
        await expect(
          store.appendMessages('x'.repeat(MAX_SESSION_ID_LENGTH + 1), numbered([user('x')]), 0, 1),
        ).rejects.toMatchObject({ code: 'invalid_append' });
        for (const sessionId of HOSTILE_IDS) await store.delete(sessionId);
        expect(await store.list()).toEqual([]);
      }));

    it('keeps sessions apart, lists and deletes them', () =>
      withStore(async (store) => {
        await store.appendMessages('a', numbered([user('1')]), 0, 1);
        await store.appendMessages('b', numbered([user('2'), assistant('3')]), 0, 1);
        await store.appendEdits('a', [drop], 0, 2);
        const listing = (await store.list()).sort((x, y) => x.id.localeCompare(y.id));
        expect(listing).toEqual([
          { id: 'a', messages: 1, edits: 1, createdAt: 1, updatedAt: 2 },
          { id: 'b', messages: 2, edits: 0, createdAt: 1, updatedAt: 1 },
        ]);
        await store.delete('a');
        await store.delete('never-was');
        expect(await store.load('a')).toBeUndefined();
        expect((await store.list()).map((entry) => entry.id)).toEqual(['b']);
        expect((await store.load('b'))?.log).toHaveLength(2);
        // A deleted session starts again from position 0.
        await store.appendMessages('a', numbered([user('again')]), 0, 9);
        expect((await store.load('a'))?.log.map((message) => message.seq)).toEqual([0]);
        expect((await store.load('a'))?.edits).toEqual([]);
      }));

    it('is not changed by callers mutating what they appended or loaded', () =>
      withStore(async (store) => {
        const messages = numbered([user('original')]);
        await store.appendMessages('s1', messages, 0, 1);
        const part = messages[0]?.parts[0];
        if (part?.type === 'text') part.text = 'rewritten';
        const loaded = await store.load('s1');
        const loadedPart = loaded?.log[0]?.parts[0];
        if (loadedPart?.type === 'text') loadedPart.text = 'rewritten again';
        expect((await store.load('s1'))?.log[0]?.parts[0]).toEqual({ type: 'text', text: 'original' });
      }));

    it('checks the position of an empty append and writes nothing', () =>
      withStore(async (store) => {
        await store.appendMessages('s1', [], 0, 1);
        await store.appendEdits('s1', [], 0, 1);
        await store.append('s1', { expectedSeq: 0, expectedEditCount: 0 }, 1);
        expect(await store.load('s1')).toBeUndefined();
        expect(await store.list()).toEqual([]);
        await store.appendMessages('s1', numbered([user('a')]), 0, 2);
        await expect(store.appendMessages('s1', [], 0, 3)).rejects.toMatchObject({
          code: 'sequence_conflict',
        });
        await store.appendMessages('s1', [], 1, 3);
        expect((await store.load('s1'))?.updatedAt).toBe(2);
      }));

    it('writes messages and edits together, or neither when either position is stale', () =>
      withStore(async (store) => {
        const messages = numbered([
          user('a'),
          callsTo(['c1', 'read']),
          result('c1', 'x'.repeat(50)),
          user('b'),
        ]);
        const truncate: Edit = {
          id: 'e1',
          at: 2,
          layer: 'normalize',
          reason: 'tool_output_limit',
          tokensBefore: 20,
          tokensAfter: 5,
          type: 'truncate-result',
          target: 2,
          content: 'xxx…',
          originalChars: 50,
        };
        await store.append(
          's1',
          { messages: messages.slice(0, 3), edits: [truncate], expectedSeq: 0, expectedEditCount: 0 },
          2,
        );
        const rest = messages.slice(3);
        await expect(
          store.append('s1', { messages: rest, edits: [drop], expectedSeq: 3, expectedEditCount: 0 }, 3),
        ).rejects.toMatchObject({
          code: 'sequence_conflict',
          details: { what: 'edits', expected: 0, actual: 1 },
        });
        await expect(
          store.append(
            's1',
            { messages: shift(rest, 2), edits: [drop], expectedSeq: 2, expectedEditCount: 1 },
            3,
          ),
        ).rejects.toMatchObject({ code: 'sequence_conflict', details: { what: 'messages' } });
        expect((await store.load('s1'))?.log).toHaveLength(3);
        await store.append('s1', { messages: rest, edits: [drop], expectedSeq: 3, expectedEditCount: 1 }, 4);
        await store.append('s1', { edits: [{ ...drop, id: 'e2' }], expectedSeq: 4, expectedEditCount: 2 }, 5);
        const loaded = await store.load('s1');
        expect(loaded?.log).toEqual(messages);
        expect(loaded?.edits.map((edit) => edit.id)).toEqual(['e1', 'e0', 'e2']);
        expect(loaded?.updatedAt).toBe(5);
      }));

    it('round-trips every kind of part and edit exactly', () =>
      withStore(async (store) => {
        const messages = richMessages();
        const edits = everyEdit();
        await store.appendMessages('s1', messages, 0, 1);
        await store.appendEdits('s1', edits, 0, 2);
        const loaded = await store.load('s1');
        expect(loaded?.log).toStrictEqual(messages);
        expect(loaded?.edits).toStrictEqual(edits);
        // An edit list can exist before any message (a session that was only ever compacted).
        await store.appendEdits('edits-only', [drop], 0, 3);
        expect(await store.load('edits-only')).toMatchObject({ log: [], edits: [drop] });
      }));

    it('keeps the order of a long log appended in batches of every size', () =>
      withStore(async (store) => {
        const drafts = Array.from({ length: 600 }, (_, index) =>
          index % 3 === 0 ? user(`question ${index}`) : assistant(`answer ${index}`),
        );
        const messages = numbered(drafts);
        let seq = 0;
        for (const size of [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 225]) {
          const batch = messages.slice(seq, seq + size);
          await store.appendMessages('long', batch, seq, seq + 1);
          seq += batch.length;
        }
        expect(seq).toBe(600);
        const loaded = await store.load('long');
        expect(loaded?.log.map((message) => message.seq)).toEqual(messages.map((message) => message.seq));
        expect(loaded?.log).toEqual(messages);
      }));

    it('stores large messages (~1 MB each, several MB a batch) intact', () =>
      withStore(async (store) => {
        const chunk = 'line of output: ✓ done — 完成 \\ "quoted" \n';
        const big = chunk.repeat(Math.ceil(1_048_576 / chunk.length));
        const messages = numbered([
          callsTo(['c1', 'cat', JSON.stringify({ path: big.slice(0, 10_000) })]),
          result('c1', big),
          result('c1', `${big}tail`),
          assistant(big.slice(0, 500_000)),
        ]);
        await store.appendMessages('big', messages, 0, 1);
        const loaded = await store.load('big');
        expect(loaded?.log).toHaveLength(4);
        expect(JSON.stringify(loaded?.log)).toBe(JSON.stringify(messages));
      }));

    it('keeps any text exactly: every script, emoji, control characters, lone surrogates', () =>
      withStore(async (store) => {
        const texts = [
          'ascii',
          'Zürich, façade, naïve, ß',
          '漢字かなカナ한국어',
          'مرحبا بالعالم שלום',
          '👩‍👩‍👧‍👦 🏳️‍🌈 🇫🇷 👍🏽',
          'e\u0301 combining, \u200b zero width, \ufeff bom',
          'nul \u0000 bell \u0007 escape \u001b[31m red',
          'line\u2028separator\u2029paragraph',
          'lone \ud800 high, lone \udfff low, reversed \udc00\ud800',
          'quotes " \' ` backslash \\ slash / braces {} [] $1 %s',
          '',
        ];
        const session = 'sessão-😀-會話';
        const messages = numbered(
          texts.map((text, index) => (index % 2 ? assistant(text) : user(text, { kind: text }))),
        );
        await store.appendMessages(session, messages, 0, 1);
        const loaded = await store.load(session);
        expect(loaded?.id).toBe(session);
        expect(loaded?.log.map((message) => message.parts[0])).toEqual(
          texts.map((text) => ({ type: 'text', text })),
        );
        expect(loaded?.log).toStrictEqual(messages);
        expect((await store.list()).map((entry) => entry.id)).toEqual([session]);
      }));

    it('holds many sessions, each listed with its counts and loaded on its own', () =>
      withStore(async (store) => {
        const count = 150;
        for (let index = 0; index < count; index++) {
          const id = `session-${String(index).padStart(3, '0')}`;
          const messages = numbered(Array.from({ length: (index % 4) + 1 }, (_, n) => user(`${id} #${n}`)));
          await store.appendMessages(id, messages, 0, 1_000 + index);
          if (index % 5 === 0)
            await store.appendEdits(id, [{ ...drop, id: `drop-${index}` }], 0, 2_000 + index);
        }
        const listing = await store.list();
        expect(listing).toHaveLength(count);
        for (const entry of listing) {
          const index = Number(entry.id.slice('session-'.length));
          expect(entry).toEqual({
            id: entry.id,
            messages: (index % 4) + 1,
            edits: index % 5 === 0 ? 1 : 0,
            createdAt: 1_000 + index,
            updatedAt: index % 5 === 0 ? 2_000 + index : 1_000 + index,
          });
        }
        const loaded = await store.load('session-077');
        expect(loaded?.log.map((message) => message.parts[0])).toEqual(
          [0, 1].map((n) => ({ type: 'text', text: `session-077 #${n}` })),
        );
      }));

    it('lists the least recently updated first and filters idle sessions for retention', () =>
      withStore(async (store) => {
        await store.appendMessages('new', numbered([user('a')]), 0, 300);
        await store.appendMessages('old', numbered([user('a')]), 0, 100);
        await store.appendMessages('mid-b', numbered([user('a')]), 0, 200);
        await store.appendMessages('mid-a', numbered([user('a')]), 0, 200);
        await store.appendMessages('touched', numbered([user('a')]), 0, 50);
        await store.appendEdits('touched', [drop], 0, 400);
        const ids = async (filter?: Parameters<SessionStore['list']>[0]) =>
          (await store.list(filter)).map((entry) => entry.id);
        expect(await ids()).toEqual(['old', 'mid-a', 'mid-b', 'new', 'touched']);
        expect(await ids({ updatedBefore: 200 })).toEqual(['old']);
        expect(await ids({ updatedBefore: 201 })).toEqual(['old', 'mid-a', 'mid-b']);
        expect(await ids({ updatedBefore: 1_000, limit: 2 })).toEqual(['old', 'mid-a']);
        expect(await ids({ updatedBefore: 100 })).toEqual([]);
        expect(await ids({ limit: 0 })).toEqual([]);
      }));

    it('keeps edits interleaved with appends in their own order', () =>
      withStore(async (store) => {
        const messages = numbered(Array.from({ length: 30 }, (_, index) => user(`m${index}`)));
        const edits: Edit[] = [];
        let at = 1;
        for (let index = 0; index < messages.length; index++) {
          const message = messages[index];
          if (!message) continue;
          if (index % 3 === 2) {
            const edit: Edit = { ...drop, id: `e${edits.length}`, throughSeq: index - 1, at };
            await store.append(
              's1',
              { messages: [message], edits: [edit], expectedSeq: index, expectedEditCount: edits.length },
              at++,
            );
            edits.push(edit);
          } else {
            await store.appendMessages('s1', [message], index, at++);
            if (index % 4 === 0) {
              const edit: Edit = { ...drop, id: `e${edits.length}`, throughSeq: index, at };
              await store.appendEdits('s1', [edit], edits.length, at++);
              edits.push(edit);
            }
          }
        }
        const loaded = await store.load('s1');
        expect(loaded?.log).toEqual(messages);
        expect(loaded?.edits).toEqual(edits);
        expect(loaded?.updatedAt).toBe(at - 1);
      }));

    it('lets concurrent writers on two handles each win a position exactly once; losers re-read and retry', async () => {
      const db = await harness.fresh();
      const handles = [await db.open(), await db.open()];
      try {
        const writers = 4;
        const appendsPerWriter = 25;
        const outcome = await Promise.all(
          Array.from({ length: writers }, (_, writer) =>
            appendWithRetries(handles[writer % 2] as SessionStore, 'shared', writer, appendsPerWriter),
          ),
        );
        const conflicts = outcome.reduce((sum, entry) => sum + entry.conflicts, 0);
        expect(conflicts).toBeGreaterThan(0);
        // Whichever handle reads it, the log holds every acknowledged append once, where it was acknowledged.
        for (const handle of handles) {
          const log = (await handle.load('shared'))?.log ?? [];
          expect(log.length).toBeGreaterThanOrEqual(writers * appendsPerWriter);
          const problems = checkConcurrentLog(
            log.map((message) => message.id),
            log.map((message) => message.seq),
            outcome,
          );
          expect(problems).toEqual([]);
        }
      } finally {
        for (const handle of handles) await handle.close();
        await db.dispose();
      }
    });

    it('lets exactly one of two handles append an edit at a contested position', async () => {
      const db = await harness.fresh();
      const [first, second] = [await db.open(), await db.open()];
      try {
        await first.appendMessages('s1', numbered([user('a')]), 0, 1);
        const results = await Promise.allSettled([
          first.appendEdits('s1', [{ ...drop, id: 'mine' }], 0, 2),
          second.appendEdits('s1', [{ ...drop, id: 'theirs' }], 0, 2),
        ]);
        expect(results.filter((entry) => entry.status === 'fulfilled')).toHaveLength(1);
        const [rejected] = results.filter((entry) => entry.status === 'rejected');
        expect(rejected?.status === 'rejected' && rejected.reason).toMatchObject({
          code: 'sequence_conflict',
        });
        expect((await second.load('s1'))?.edits).toHaveLength(1);
      } finally {
        await first.close();
        await second.close();
        await db.dispose();
      }
    });

    if (harness.durable) {
      it('keeps everything across closing and reopening (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          expect(db.persistent, 'a durable harness gives persistent databases').toBe(true);
          const writer = await db.open();
          const messages = richMessages();
          await writer.appendMessages('kept', messages, 0, 1);
          await writer.appendEdits('kept', everyEdit(), 0, 2);
          await writer.close();
          await expect(writer.load('kept')).rejects.toMatchObject({ code: 'store_closed' });
          const reader = await db.open();
          try {
            const loaded = await reader.load('kept');
            expect(loaded?.log).toStrictEqual(messages);
            expect(loaded?.edits).toStrictEqual(everyEdit());
            await reader.appendMessages(
              'kept',
              shift(numbered([user('more')]), messages.length),
              messages.length,
              3,
            );
            expect((await reader.load('kept'))?.log).toHaveLength(messages.length + 1);
          } finally {
            await reader.close();
          }
        } finally {
          await db.dispose();
        }
      });

      it('reports a corrupt row as a typed error naming the session and seq (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          const tamper = needTamper(db);
          const store = await db.open();
          try {
            await store.appendMessages('damaged', numbered([user('a'), assistant('b'), user('c')]), 0, 1);
            await tamper.setMessageBody(
              'damaged',
              1,
              '{"id":"m1","seq":1,"role":"assistant","parts":[{"type":"te',
            );
            await expect(store.load('damaged')).rejects.toMatchObject({
              code: 'corrupt_session',
              details: { sessionId: 'damaged', table: 'messages', position: 1 },
            });
            await tamper.setMessageBody(
              'damaged',
              1,
              JSON.stringify({ id: 'm1', seq: 1, role: 'robot', parts: [], meta: {} }),
            );
            await expect(store.load('damaged')).rejects.toThrow(
              /session damaged: message seq 1 is corrupt: role/,
            );
            await tamper.setMessageBody(
              'damaged',
              1,
              JSON.stringify({ id: 'm1', seq: 7, role: 'user', parts: [], meta: {} }),
            );
            await expect(store.load('damaged')).rejects.toThrow(
              /message seq 1 is corrupt: its body says seq 7/,
            );
            await expect(store.loadRecent('damaged')).rejects.toThrow(
              /message seq 1 is corrupt: its body says seq 7/,
            );
            // A body whose id disagrees with the id kept beside it.
            await tamper.setMessageBody(
              'damaged',
              1,
              JSON.stringify({ id: 'other', seq: 1, role: 'user', parts: [], meta: {} }),
            );
            await expect(store.loadRecent('damaged')).rejects.toMatchObject({
              code: 'corrupt_session',
              details: { sessionId: 'damaged', table: 'messages', position: 1 },
            });
            // A damaged edit is named by its position, from the resume's read too.
            await store.appendEdits(
              'damaged',
              [
                { ...drop, id: 'e0' },
                { ...drop, id: 'e1' },
              ],
              0,
              2,
            );
            await tamper.setEditBody('damaged', 1, '{"id":"e1","type":');
            await expect(store.loadRecent('damaged')).rejects.toMatchObject({
              code: 'corrupt_session',
              details: { sessionId: 'damaged', table: 'edits', position: 1 },
            });
            await tamper.setEditBody('damaged', 1, JSON.stringify({ ...drop, throughSeq: 'all' }));
            await expect(store.loadRecent('damaged')).rejects.toThrow(/session damaged: edit 1 is corrupt/);
          } finally {
            await store.close();
          }
        } finally {
          await db.dispose();
        }
      });

      it('refuses a database written by a newer ctxkit with schema_too_new naming both versions (durable stores)', async () => {
        const db = await harness.fresh();
        try {
          const tamper = needTamper(db);
          const store = await db.open();
          await store.appendMessages('s1', numbered([user('a')]), 0, 1);
          await store.close();
          await tamper.setSchemaVersion(99);
          const opening = db.open();
          await expect(opening).rejects.toMatchObject({
            code: 'schema_too_new',
            details: { found: 99, supported: SESSION_STORE_SCHEMA_VERSION },
          });
          await expect(opening).rejects.toThrow(
            new RegExp(`schema version 99.*up to ${SESSION_STORE_SCHEMA_VERSION}`),
          );
        } finally {
          await db.dispose();
        }
      });
    }
  });

  describeRecentReadConformance(name, harness);
  describePolicyOverrideConformance(name, harness);
  describeLastRequestConformance(name, harness);
}

function needTamper(db: SessionDatabase): NonNullable<SessionDatabase['tamper']> {
  if (!db.tamper) throw new Error('a durable harness must say how to damage its database (tamper)');
  return db.tamper;
}
