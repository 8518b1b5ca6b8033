import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_LENGTH } from '../core/session-id.ts';
import type { BlobStore } from './blob-store.ts';
import {
  blobRef,
  conversationHistoryId,
  MAX_BLOB_ID_LENGTH,
  MAX_BLOB_NAME_LENGTH,
} from './blob-store-ids.ts';

export interface BlobStoreHarness {
  store: BlobStore;
  /** Overwrites a stored blob's content behind the store's back (its recorded sha256 kept), if the backend allows. */
  tamper?: (sessionId: string, ref: string, content: string) => Promise<void>;
  /** Called after each test, e.g. to remove a temporary directory. */
  cleanup?: () => Promise<void>;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Ids no store accepts: empty, NUL, a lone surrogate, longer than the maximum. */
export const UNSAFE_BLOB_NAMES = ['', 'a\0b', '\0', 'x\uD800y', 'x'.repeat(MAX_BLOB_ID_LENGTH + 1)];

/** Session ids no store accepts (the blob ids above, and anything longer than a session id may be). */
export const UNSAFE_SESSION_IDS = [...UNSAFE_BLOB_NAMES.slice(0, -1), 'x'.repeat(MAX_SESSION_ID_LENGTH + 1)];

/**
 * Ids that every store must accept and keep apart: each is a name, never a path, whatever it holds.
 * Pairs that a case-insensitive or normalizing filesystem would merge, path syntax that would climb
 * out, hidden and reserved names, non-ASCII, and the longest id allowed.
 */
export const HOSTILE_IDS = [
  'tenant:42',
  'alice@example.com',
  'a/b c',
  'Alice',
  'alice',
  'ALICE',
  'caf\u00e9',
  'cafe\u0301',
  '日本語のセッション',
  '🎉',
  '.',
  '..',
  '../x',
  '../../etc/passwd',
  '..\\x',
  '/etc/passwd',
  'C:\\x',
  'a\\b',
  '.hidden',
  '.session.json',
  '.blobs',
  '.tmp',
  'con',
  'white space',
  'new\nline',
  'line\u2028separator\u2029paragraph',
  ' ',
  '~',
  'x~0123456789abcdef0123456789abcdef',
  'x'.repeat(MAX_BLOB_NAME_LENGTH + 1),
  'X'.repeat(MAX_BLOB_NAME_LENGTH),
  'y'.repeat(MAX_SESSION_ID_LENGTH),
];

/** One suite every BlobStore must pass: register it with a factory for a fresh, empty store. */
export function describeBlobStoreConformance(
  name: string,
  makeHarness: () => Promise<BlobStoreHarness>,
): void {
  describe(`BlobStore conformance: ${name}`, () => {
    const withStore = (test: (harness: BlobStoreHarness) => Promise<void>) => async () => {
      const harness = await makeHarness();
      try {
        await test(harness);
      } finally {
        await harness.store.close();
        await harness.cleanup?.();
      }
    };

    it(
      'stores a large tool result and reads it back with its ref, sha256 and UTF-8 size',
      withStore(async ({ store }) => {
        const content = 'héllo 日本語 🎉\n'.repeat(1000);
        const info = await store.put('s1', 'large_tool_results', 'call_1', content);
        expect(info).toEqual({
          ref: 'large_tool_results/call_1',
          kind: 'large_tool_results',
          id: 'call_1',
          sha256: sha256(content),
          bytes: Buffer.byteLength(content, 'utf8'),
        });
        expect(info.ref).toBe(blobRef('large_tool_results', 'call_1'));
        expect(await store.get('s1', info.ref)).toBe(content);
        expect(await store.get('s1', info.ref, info.sha256)).toBe(content);
        expect(await store.stat('s1', info.ref)).toEqual(info);
      }),
    );

    it(
      "stores a session's offloaded transcript as conversation_history/<session>.md",
      withStore(async ({ store }) => {
        const info = await store.put(
          's1',
          'conversation_history',
          conversationHistoryId('s1'),
          '# history\n',
        );
        expect(info.ref).toBe('conversation_history/s1.md');
        expect(await store.get('s1', 'conversation_history/s1.md')).toBe('# history\n');
      }),
    );

    it(
      'keeps empty and megabyte-sized content exactly',
      withStore(async ({ store }) => {
        const big = 'x'.repeat(1 << 20);
        await store.put('s1', 'large_tool_results', 'empty', '');
        await store.put('s1', 'large_tool_results', 'big', big);
        expect(await store.get('s1', 'large_tool_results/empty')).toBe('');
        expect((await store.stat('s1', 'large_tool_results/empty'))?.sha256).toBe(sha256(''));
        expect(await store.get('s1', 'large_tool_results/big')).toBe(big);
      }),
    );

    it(
      'replaces a blob put again under the same id',
      withStore(async ({ store }) => {
        await store.put('s1', 'conversation_history', 's1.md', 'first');
        const second = await store.put('s1', 'conversation_history', 's1.md', 'first and second');
        expect(second.sha256).toBe(sha256('first and second'));
        expect(await store.get('s1', second.ref)).toBe('first and second');
        expect(await store.list('s1')).toHaveLength(1);
      }),
    );

    it(
      "lists a session's blobs by ref, optionally of one kind, and nothing of other sessions",
      withStore(async ({ store }) => {
        await store.put('s1', 'large_tool_results', 'b', 'B');
        await store.put('s1', 'large_tool_results', 'a', 'A');
        await store.put('s1', 'conversation_history', 's1.md', 'H');
        await store.put('s2', 'large_tool_results', 'c', 'C');
        expect((await store.list('s1')).map((info) => info.ref)).toEqual([
          'conversation_history/s1.md',
          'large_tool_results/a',
          'large_tool_results/b',
        ]);
        expect((await store.list('s1', 'large_tool_results')).map((info) => info.id)).toEqual(['a', 'b']);
        expect(await store.list('s3')).toEqual([]);
      }),
    );

    it(
      "refuses to read another session's blob, as not found",
      withStore(async ({ store }) => {
        const info = await store.put('owner', 'large_tool_results', 'secret', 'owner only');
        await expect(store.get('intruder', info.ref)).rejects.toMatchObject({ code: 'blob_not_found' });
        expect(await store.stat('intruder', info.ref)).toBeUndefined();
        expect(await store.delete('intruder', info.ref)).toBe(false);
        expect(await store.deleteSession('intruder')).toBe(0);
        expect(await store.get('owner', info.ref)).toBe('owner only');
      }),
    );

    it(
      'refuses refs that name anything but <kind>/<id> in the asking session',
      withStore(async ({ store }) => {
        await store.put('s1', 'large_tool_results', 'x', 'X');
        for (const ref of [
          '',
          'x',
          '../s1/large_tool_results/x',
          's1/large_tool_results/x',
          '/large_tool_results/x',
          'large_tool_results/',
          'large_tool_results\\x',
          'unknown/x',
          'large_tool_results/x\0',
          `large_tool_results/${'x'.repeat(MAX_BLOB_ID_LENGTH + 1)}`,
        ]) {
          await expect(store.get('s1', ref), ref).rejects.toMatchObject({
            code: 'invalid_blob_id',
            field: 'ref',
          });
          await expect(store.delete('s1', ref), ref).rejects.toMatchObject({ code: 'invalid_blob_id' });
        }
      }),
    );

    it(
      'refuses ids no store can keep (empty, NUL, lone surrogate, too long) and unknown kinds, writing nothing',
      withStore(async ({ store }) => {
        for (const unsafe of UNSAFE_BLOB_NAMES) {
          await expect(
            store.put('s1', 'large_tool_results', unsafe, 'x'),
            JSON.stringify(unsafe),
          ).rejects.toMatchObject({
            code: 'invalid_blob_id',
            field: 'id',
          });
        }
        for (const unsafe of UNSAFE_SESSION_IDS) {
          await expect(
            store.put(unsafe, 'large_tool_results', 'ok', 'x'),
            JSON.stringify(unsafe),
          ).rejects.toMatchObject({
            code: 'invalid_blob_id',
            field: 'sessionId',
          });
          await expect(store.get(unsafe, 'large_tool_results/ok')).rejects.toMatchObject({
            code: 'invalid_blob_id',
          });
          await expect(store.list(unsafe)).rejects.toMatchObject({ code: 'invalid_blob_id' });
          await expect(store.deleteSession(unsafe)).rejects.toMatchObject({ code: 'invalid_blob_id' });
        }
        await expect(store.put('s1', '../escape' as 'large_tool_results', 'ok', 'x')).rejects.toMatchObject({
          code: 'invalid_blob_id',
          field: 'kind',
        });
        expect(await store.list('s1')).toEqual([]);
      }),
    );

    it(
      'accepts any session id, keeps each session apart, and reads each back exactly',
      withStore(async ({ store }) => {
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          await store.put(sessionId, 'large_tool_results', sessionId, `result of ${index}`);
          await store.put(sessionId, 'conversation_history', conversationHistoryId(sessionId), `# ${index}`);
        }
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          const label = JSON.stringify(sessionId.slice(0, 40));
          expect(await store.get(sessionId, `large_tool_results/${sessionId}`), label).toBe(
            `result of ${index}`,
          );
          expect(await store.get(sessionId, `conversation_history/${sessionId}.md`), label).toBe(
            `# ${index}`,
          );
          expect(
            (await store.list(sessionId)).map((info) => info.ref),
            label,
          ).toEqual([`conversation_history/${sessionId}.md`, `large_tool_results/${sessionId}`]);
        }
        // No session sees another's blob, even one whose id differs only in case or normal form.
        await expect(store.get('alice', 'large_tool_results/Alice')).rejects.toMatchObject({
          code: 'blob_not_found',
        });
        await expect(store.get('cafe\u0301', 'large_tool_results/caf\u00e9')).rejects.toMatchObject({
          code: 'blob_not_found',
        });
        for (const sessionId of HOSTILE_IDS) expect(await store.deleteSession(sessionId)).toBe(2);
        for (const sessionId of HOSTILE_IDS) expect(await store.list(sessionId)).toEqual([]);
      }),
    );

    it(
      'accepts any blob id in one session, each under its own ref',
      withStore(async ({ store }) => {
        // Blob ids are the engine's and unique per session; ids differing only in case are left out here,
        // since a case-insensitive filesystem store refuses the second of such a pair (never mixes them).
        const ids = HOSTILE_IDS.filter(
          (id, index) => HOSTILE_IDS.findIndex((other) => other.toLowerCase() === id.toLowerCase()) === index,
        );
        for (const id of ids) await store.put('tenant:42', 'large_tool_results', id, `content of ${id}`);
        for (const id of ids) {
          expect(await store.get('tenant:42', blobRef('large_tool_results', id))).toBe(`content of ${id}`);
        }
        const refs = (await store.list('tenant:42')).map((info) => info.ref);
        expect(refs).toEqual(ids.map((id) => `large_tool_results/${id}`).sort());
        expect(await store.delete('tenant:42', 'large_tool_results/../x')).toBe(true);
        expect(await store.stat('tenant:42', 'large_tool_results/../x')).toBeUndefined();
        expect(await store.deleteSession('tenant:42')).toBe(ids.length - 1);
      }),
    );

    it(
      'accepts plain names with dots, dashes and underscores',
      withStore(async ({ store }) => {
        const info = await store.put('sess-1_a.b', 'large_tool_results', 'toolu_01AB-c.d', 'ok');
        expect(await store.get('sess-1_a.b', info.ref)).toBe('ok');
        const longest = 'x'.repeat(200);
        expect((await store.put(longest, 'large_tool_results', longest, 'ok')).id).toBe(longest);
      }),
    );

    it(
      'reports a missing blob as not found',
      withStore(async ({ store }) => {
        await expect(store.get('s1', 'large_tool_results/none')).rejects.toMatchObject({
          code: 'blob_not_found',
        });
        expect(await store.stat('s1', 'large_tool_results/none')).toBeUndefined();
        expect(await store.delete('s1', 'large_tool_results/none')).toBe(false);
      }),
    );

    it(
      'refuses content that does not match the checksum the caller expects',
      withStore(async ({ store }) => {
        const info = await store.put('s1', 'large_tool_results', 'x', 'X');
        await expect(store.get('s1', info.ref, sha256('something else'))).rejects.toMatchObject({
          code: 'blob_integrity',
        });
      }),
    );

    it('refuses content changed behind its back', async () => {
      const harness = await makeHarness();
      try {
        if (!harness.tamper) return;
        const info = await harness.store.put('s1', 'large_tool_results', 'x', 'original');
        await harness.tamper('s1', info.ref, 'tampered');
        await expect(harness.store.get('s1', info.ref)).rejects.toMatchObject({ code: 'blob_integrity' });
      } finally {
        await harness.store.close();
        await harness.cleanup?.();
      }
    });

    it(
      'deletes one blob, or a whole session, leaving other sessions alone',
      withStore(async ({ store }) => {
        await store.put('s1', 'large_tool_results', 'a', 'A');
        await store.put('s1', 'large_tool_results', 'b', 'B');
        await store.put('s1', 'conversation_history', 's1.md', 'H');
        await store.put('s2', 'large_tool_results', 'a', 'other');
        expect(await store.delete('s1', 'large_tool_results/a')).toBe(true);
        await expect(store.get('s1', 'large_tool_results/a')).rejects.toMatchObject({
          code: 'blob_not_found',
        });
        expect(await store.deleteSession('s1')).toBe(2);
        expect(await store.list('s1')).toEqual([]);
        expect(await store.get('s2', 'large_tool_results/a')).toBe('other');
      }),
    );

    it(
      'returns metadata callers can mutate without changing the store',
      withStore(async ({ store }) => {
        const info = await store.put('s1', 'large_tool_results', 'x', 'X');
        info.sha256 = 'forged';
        const [listed] = await store.list('s1');
        if (listed) listed.bytes = -1;
        expect(await store.stat('s1', 'large_tool_results/x')).toMatchObject({
          sha256: sha256('X'),
          bytes: 1,
        });
        expect(await store.get('s1', 'large_tool_results/x')).toBe('X');
      }),
    );
  });
}
