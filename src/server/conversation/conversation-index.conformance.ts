import { describe, expect, it } from 'vitest';
import {
  type ConversationHead,
  type ConversationIndex,
  type ConversationMatch,
  conversationHashes,
} from './conversation-index.ts';

export interface OpenedConversationIndex {
  index: ConversationIndex;
  /** Closes the index and removes what the test made (files, databases). */
  close(): Promise<void>;
}

const OWNER = 'owner-a';
const OTHER_OWNER = 'owner-b';
const SYSTEM = 'You are helpful.';
/** The conversation size at which a `find` with a round trip per message would show. */
const LARGE = 5_000;
/** Generous for bisection (a dozen probes a find), far too short for a probe per message on a server. */
const LARGE_FINDS = 50;
const LARGE_FINDS_BUDGET_MS = 2_500;

/** Message content ids `label-0` … `label-(count - 1)`. */
const ids = (label: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `${label}-${index}`);
const hashesOf = (contentIds: readonly string[], owner = OWNER): string[] =>
  conversationHashes(owner, SYSTEM, contentIds);

/** `find`'s answer for a request holding `length` messages of the session whose conversation is `held`. */
const matchOf = (sessionId: string, length: number, held: readonly string[]): ConversationMatch => ({
  sessionId,
  length,
  head: held.length,
  headHash: held.at(-1) ?? '',
});

/** Whether `heads` offers `sessionId` to a request with `hashes` (it holds all that session has). */
async function continues(index: ConversationIndex, hashes: readonly string[], sessionId: string) {
  return (await index.heads(OWNER, hashes)).some((head) => head.sessionId === sessionId);
}

/** `heads`' answer without the order of recording, sorted by session id (the order is unspecified). */
async function headsOf(
  index: ConversationIndex,
  hashes: readonly string[],
  owner = OWNER,
): Promise<Omit<ConversationHead, 'recordedAt'>[]> {
  const heads = await index.heads(owner, hashes);
  for (const head of heads) expect(Number.isSafeInteger(head.recordedAt), 'recordedAt').toBe(true);
  return heads
    .map(({ sessionId, head, headHash }) => ({ sessionId, head, headHash }))
    .sort((left, right) => (left.sessionId < right.sessionId ? -1 : 1));
}

/** The head of the session whose conversation is `held`, as `headsOf` gives it. */
const headOf = (sessionId: string, held: readonly string[]) => ({
  sessionId,
  head: held.length,
  headHash: held.at(-1) ?? '',
});

/**
 * One suite every ConversationIndex must pass. `open` gives a fresh, empty index each time; its `close`
 * is called after the test, pass or fail.
 */
export function conversationIndexConformance(
  name: string,
  open: () => Promise<OpenedConversationIndex>,
): void {
  const withIndex = (test: (index: ConversationIndex) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await test(opened.index);
    } finally {
      await opened.close();
    }
  };

  describe(`ConversationIndex conformance: ${name}`, () => {
    it(
      'finds nothing in an empty index, and nothing for an empty conversation',
      withIndex(async (index) => {
        expect(await index.find(OWNER, [])).toBeUndefined();
        expect(await index.find(OWNER, hashesOf(ids('m', 3)))).toBeUndefined();
        await index.record(OWNER, 'empty', []);
        expect(await index.find(OWNER, [])).toBeUndefined();
        expect(await index.find(OWNER, hashesOf(ids('m', 1)))).toBeUndefined();
        await index.record(OWNER, 's1', hashesOf(ids('m', 3)));
        expect(await index.find(OWNER, [])).toBeUndefined();
      }),
    );

    it(
      'finds a recorded conversation by every prefix of it, and by longer and diverging ones, with its head',
      withIndex(async (index) => {
        const messages = ids('m', 7);
        const hashes = hashesOf(messages);
        await index.record(OWNER, 's1', hashes);
        for (let length = 1; length <= hashes.length; length++) {
          expect(await index.find(OWNER, hashes.slice(0, length)), `prefix ${length}`).toEqual(
            matchOf('s1', length, hashes),
          );
        }
        const continued = hashesOf([...messages, 'reply', 'question']);
        expect(await index.find(OWNER, continued)).toEqual(matchOf('s1', 7, hashes));
        const edited = hashesOf([...messages.slice(0, 3), 'edited', ...messages.slice(4)]);
        expect(await index.find(OWNER, edited)).toEqual(matchOf('s1', 3, hashes));
        expect(await index.find(OWNER, hashesOf(['other', ...messages.slice(1)]))).toBeUndefined();
        // Another system prompt makes another conversation of the same messages.
        expect(await index.find(OWNER, conversationHashes(OWNER, 'other system', messages))).toBeUndefined();
      }),
    );

    it(
      'leaves a shared prefix with the session that recorded it first; a fork finds itself past the fork',
      withIndex(async (index) => {
        const trunk = ids('m', 5);
        const fork = [...trunk.slice(0, 3), 'fork-3', 'fork-4', 'fork-5'];
        await index.record(OWNER, 'first', hashesOf(trunk));
        await index.record(OWNER, 'fork', hashesOf(fork));
        for (let length = 1; length <= 3; length++) {
          expect(await index.find(OWNER, hashesOf(trunk.slice(0, length))), `shared ${length}`).toEqual(
            matchOf('first', length, hashesOf(trunk)),
          );
        }
        expect(await index.find(OWNER, hashesOf(trunk))).toEqual(matchOf('first', 5, hashesOf(trunk)));
        for (let length = 4; length <= 6; length++) {
          expect(await index.find(OWNER, hashesOf(fork.slice(0, length))), `fork ${length}`).toEqual(
            matchOf('fork', length, hashesOf(fork)),
          );
        }
        expect(await index.find(OWNER, hashesOf([...fork, 'next']))).toEqual(
          matchOf('fork', 6, hashesOf(fork)),
        );
        // The same conversation recorded by a second session is still the first's.
        await index.record(OWNER, 'copy', hashesOf(trunk));
        expect(await index.find(OWNER, hashesOf(trunk))).toEqual(matchOf('first', 5, hashesOf(trunk)));
        // Recording the first again does not take the fork's prefixes.
        await index.record(OWNER, 'first', hashesOf([...trunk, 'm-5']));
        expect(await index.find(OWNER, hashesOf(fork))).toEqual(matchOf('fork', 6, hashesOf(fork)));
      }),
    );

    it(
      'keeps owners apart: the same hashes and session ids under another owner are another index',
      withIndex(async (index) => {
        const hashes = hashesOf(ids('m', 4));
        await index.record(OWNER, 's1', hashes);
        expect(await index.find(OTHER_OWNER, hashes)).toBeUndefined();
        expect(await index.find(OTHER_OWNER, hashes.slice(0, 1))).toBeUndefined();
        await index.record(OTHER_OWNER, 's1', hashes.slice(0, 2));
        await index.record(OTHER_OWNER, 's2', hashes);
        expect(await index.find(OWNER, hashes)).toEqual(matchOf('s1', 4, hashes));
        expect(await index.find(OTHER_OWNER, hashes.slice(0, 2))).toEqual(
          matchOf('s1', 2, hashes.slice(0, 2)),
        );
        expect(await index.find(OTHER_OWNER, hashes)).toEqual(matchOf('s2', 4, hashes));
        await index.record(OWNER, 's2', hashesOf(ids('x', 1)));
        expect(await index.find(OTHER_OWNER, hashes.slice(0, 3))).toEqual(matchOf('s2', 3, hashes));
      }),
    );

    it(
      'moves the head when a session is recorded again with its conversation continued',
      withIndex(async (index) => {
        const messages = ids('m', 6);
        await index.record(OWNER, 's1', hashesOf(messages.slice(0, 2)));
        expect(await continues(index, hashesOf(messages.slice(0, 3)), 's1')).toBe(true);
        const four = hashesOf(messages.slice(0, 4));
        await index.record(OWNER, 's1', four);
        expect(await index.find(OWNER, hashesOf(messages.slice(0, 2)))).toEqual(matchOf('s1', 2, four));
        expect(await continues(index, hashesOf(messages.slice(0, 3)), 's1')).toBe(false);
        expect(await index.find(OWNER, hashesOf(messages))).toEqual(matchOf('s1', 4, four));
        expect(await continues(index, hashesOf(messages), 's1')).toBe(true);
        await index.record(OWNER, 's1', hashesOf(messages));
        expect(await index.find(OWNER, hashesOf(messages))).toEqual(matchOf('s1', 6, hashesOf(messages)));
      }),
    );

    it(
      'sets the head to the new length when a session is recorded again shorter (edited)',
      withIndex(async (index) => {
        const messages = ids('m', 6);
        await index.record(OWNER, 's1', hashesOf(messages));
        const edited = [...messages.slice(0, 2), 'edited'];
        await index.record(OWNER, 's1', hashesOf(edited));
        expect(await index.find(OWNER, hashesOf(edited))).toEqual(matchOf('s1', 3, hashesOf(edited)));
        expect(await index.find(OWNER, hashesOf(messages.slice(0, 2)))).toEqual(
          matchOf('s1', 2, hashesOf(edited)),
        );
        expect(await continues(index, hashesOf([...edited, 'next']), 's1')).toBe(true);
        // The conversation it no longer has is not taken for a continuation of it.
        expect(await continues(index, hashesOf(messages), 's1')).toBe(false);
        expect(await continues(index, hashesOf([...messages, 'next']), 's1')).toBe(false);
        const first = hashesOf(messages.slice(0, 1));
        await index.record(OWNER, 's1', first);
        expect(await index.find(OWNER, first)).toEqual(matchOf('s1', 1, first));
        // The edited conversation does hold all of the one message it has now. An index may still find
        // it by the prefixes it held before (the stored ones do), and then it is no continuation, or
        // not: either is safe, a continuation or a new session starting from the client's history.
        expect(await index.find(OWNER, hashesOf(edited))).toMatchObject({
          sessionId: 's1',
          head: 1,
          headHash: first[0],
        });
      }),
    );

    it(
      'does not take a request for a continuation of a session recorded since with another conversation',
      withIndex(async (index) => {
        // Two proxy instances on one database each continued s1: the second record replaced the first.
        const had = ['a', 'b', 'c', 'd'];
        const has = ['a', 'b', 'x', 'y'];
        await index.record(OWNER, 's1', hashesOf(had));
        await index.record(OWNER, 's1', hashesOf(has));
        // A request continuing the conversation s1 had is as long as s1's head, but not s1's conversation.
        const request = hashesOf([...had, 'next']);
        const match = await index.find(OWNER, request);
        expect(match).toMatchObject({ sessionId: 's1', head: 4, headHash: hashesOf(has)[3] });
        expect(match?.headHash).not.toBe(request[3]);
        expect(await continues(index, request, 's1')).toBe(false);
        // The conversation s1 has is continued, and so is the fork the request made (past the prefixes
        // an index may still find s1 by).
        const current = hashesOf([...has, 'next']);
        expect(await index.find(OWNER, current)).toEqual(matchOf('s1', 4, hashesOf(has)));
        expect(await continues(index, current, 's1')).toBe(true);
        const fork = hashesOf([...had, 'next', 'reply']);
        await index.record(OWNER, 'fork', fork);
        expect(await index.find(OWNER, hashesOf([...had, 'next', 'reply', 'more']))).toEqual(
          matchOf('fork', 6, fork),
        );
      }),
    );

    it(
      'finds no heads in an empty index, for no hashes, or for a session with no conversation',
      withIndex(async (index) => {
        expect(await index.heads(OWNER, [])).toEqual([]);
        expect(await index.heads(OWNER, hashesOf(ids('m', 3)))).toEqual([]);
        await index.record(OWNER, 'empty', []);
        expect(await index.heads(OWNER, [])).toEqual([]);
        expect(await index.heads(OWNER, hashesOf(ids('m', 3)))).toEqual([]);
        await index.record(OWNER, 's1', hashesOf(ids('m', 3)));
        expect(await index.heads(OWNER, [])).toEqual([]);
      }),
    );

    it(
      "finds a session by its head hash among a request's hashes, and not by a prefix short of its head",
      withIndex(async (index) => {
        const messages = ids('m', 6);
        const hashes = hashesOf(messages);
        const held = hashes.slice(0, 3);
        await index.record(OWNER, 's1', held);
        await index.record(OWNER, 'other', hashesOf(ids('x', 4)));
        // A continuation (the reply, a question), a retry (the same request), the head among strangers.
        expect(await headsOf(index, hashes)).toEqual([headOf('s1', held)]);
        expect(await headsOf(index, held)).toEqual([headOf('s1', held)]);
        expect(await headsOf(index, [...hashesOf(ids('y', 50)), held[2] as string])).toEqual([
          headOf('s1', held),
        ]);
        // Short of its head, or diverging at or before it, a request does not hold its conversation.
        expect(await headsOf(index, held.slice(0, 2))).toEqual([]);
        const edited = hashesOf([...messages.slice(0, 2), 'edited', ...messages.slice(3)]);
        expect(await headsOf(index, edited)).toEqual([]);
        expect(await headsOf(index, conversationHashes(OWNER, 'other system', messages))).toEqual([]);
        // A hash sent twice finds its session once.
        expect(await headsOf(index, [...hashes, ...hashes])).toEqual([headOf('s1', held)]);
      }),
    );

    it(
      'finds a session recorded again only by its new head, whether continued, edited or replaced',
      withIndex(async (index) => {
        const messages = ids('m', 6);
        const hashes = hashesOf(messages);
        await index.record(OWNER, 's1', hashes.slice(0, 3));
        await index.record(OWNER, 's1', hashes.slice(0, 5));
        expect(await headsOf(index, hashes)).toEqual([headOf('s1', hashes.slice(0, 5))]);
        expect(await headsOf(index, hashes.slice(0, 4))).toEqual([]);
        expect(await headsOf(index, hashes.slice(0, 3))).toEqual([]);
        const edited = hashesOf([...messages.slice(0, 2), 'edited']);
        await index.record(OWNER, 's1', edited);
        expect(await headsOf(index, hashes)).toEqual([]);
        expect(await headsOf(index, hashesOf([...messages.slice(0, 2), 'edited', 'next']))).toEqual([
          headOf('s1', edited),
        ]);
        const replaced = hashesOf(ids('z', 2));
        await index.record(OWNER, 's1', replaced);
        expect(await headsOf(index, edited)).toEqual([]);
        expect(await headsOf(index, replaced)).toEqual([headOf('s1', replaced)]);
      }),
    );

    it(
      "keeps owners' heads apart: the same hashes and session ids under another owner are another index",
      withIndex(async (index) => {
        const hashes = hashesOf(ids('m', 4));
        await index.record(OWNER, 's1', hashes);
        expect(await index.heads(OTHER_OWNER, hashes)).toEqual([]);
        await index.record(OTHER_OWNER, 's1', hashes.slice(0, 2));
        await index.record(OTHER_OWNER, 's2', hashes);
        const theirs = [headOf('s1', hashes.slice(0, 2)), headOf('s2', hashes)];
        expect(await headsOf(index, hashes, OTHER_OWNER)).toEqual(theirs);
        expect(await headsOf(index, hashes)).toEqual([headOf('s1', hashes)]);
        await index.record(OWNER, 's2', hashes.slice(0, 1));
        expect(await headsOf(index, hashes)).toEqual([
          headOf('s1', hashes),
          headOf('s2', hashes.slice(0, 1)),
        ]);
        expect(await headsOf(index, hashes, OTHER_OWNER)).toEqual(theirs);
      }),
    );

    it(
      'returns every session with a matching head, recordedAt ordering their records: the last is greatest',
      withIndex(async (index) => {
        const messages = ids('m', 3);
        const hashes = hashesOf(messages);
        const request = hashesOf([...messages, 'reply', 'next']);
        const byRecording = async () =>
          (await index.heads(OWNER, request))
            .sort((left, right) => left.recordedAt - right.recordedAt)
            .map((head) => head.sessionId);
        // Recorded back to back, as fast as the index takes them: some within one clock tick, surely.
        for (const sessionId of ['first', 'second', 'third']) await index.record(OWNER, sessionId, hashes);
        expect(await headsOf(index, request)).toEqual(
          ['first', 'second', 'third'].map((sessionId) => headOf(sessionId, hashes)),
        );
        const recordedAts = (await index.heads(OWNER, request)).map((head) => head.recordedAt);
        expect(new Set(recordedAts).size).toBe(3);
        expect(await byRecording()).toEqual(['first', 'second', 'third']);
        // Recorded again with the same conversation (a retry), the first is now the last recorded.
        await index.record(OWNER, 'first', hashes);
        expect(await byRecording()).toEqual(['second', 'third', 'first']);
        // A session recorded later with a shorter conversation the request also holds comes after all.
        await index.record(OWNER, 'shorter', hashes.slice(0, 1));
        expect(await byRecording()).toEqual(['second', 'third', 'first', 'shorter']);
        // Records in between of other conversations, or other owners', leave the order as it is.
        await index.record(OTHER_OWNER, 'elsewhere', hashesOf(ids('x', 2), OTHER_OWNER));
        await index.record(OWNER, 'unrelated', hashesOf(ids('y', 2)));
        await index.record(OWNER, 'second', hashes);
        expect(await byRecording()).toEqual(['third', 'first', 'shorter', 'second']);
      }),
    );

    it(
      `finds heads among ${LARGE.toLocaleString('en')} hashes in one call, as many sessions as hold them`,
      withIndex(async (index) => {
        const messages = ids('m', LARGE);
        const hashes = hashesOf(messages);
        const lengths = Array.from({ length: 10 }, (_, step) => ((step + 1) * LARGE) / 10);
        for (const length of lengths)
          await index.record(OWNER, `at-${String(length).padStart(5, '0')}`, hashes.slice(0, length));
        await index.record(OWNER, 'fork', hashesOf([...messages.slice(0, LARGE / 2), 'fork']));
        const request = hashesOf([...messages, 'reply']);
        const started = performance.now();
        for (let call = 0; call < LARGE_FINDS; call++) {
          expect(await index.heads(OWNER, request)).toHaveLength(lengths.length);
        }
        expect(performance.now() - started).toBeLessThan(LARGE_FINDS_BUDGET_MS);
        const half = hashes.slice(0, LARGE / 2 + 1);
        expect(await headsOf(index, half)).toEqual(
          lengths
            .filter((length) => length <= half.length)
            .map((length) => headOf(`at-${String(length).padStart(5, '0')}`, hashes.slice(0, length))),
        );
      }),
    );

    it(
      'is not changed by callers mutating the arrays they passed',
      withIndex(async (index) => {
        const hashes = hashesOf(ids('m', 3));
        const expected = [...hashes];
        await index.record(OWNER, 's1', hashes);
        hashes.push('later');
        hashes[0] = 'rewritten';
        expect(await index.find(OWNER, expected)).toEqual(matchOf('s1', 3, expected));
      }),
    );

    it(
      `stays fast with ${LARGE.toLocaleString('en')}-message conversations (bisection, not a probe per message)`,
      withIndex(async (index) => {
        const messages = ids('m', LARGE);
        const hashes = hashesOf(messages);
        await index.record(OWNER, 'long', hashes.slice(0, LARGE - 2));
        await index.record(OWNER, 'long', hashes);
        const fork = hashesOf([...messages.slice(0, LARGE / 2), 'fork']);
        await index.record(OWNER, 'fork', fork);
        const started = performance.now();
        for (let find = 0; find < LARGE_FINDS; find++) {
          const length = Math.max(1, Math.floor((LARGE * (find + 1)) / LARGE_FINDS));
          expect(await index.find(OWNER, hashes.slice(0, length))).toEqual(matchOf('long', length, hashes));
        }
        expect(await index.find(OWNER, hashesOf([...messages, 'reply']))).toEqual(
          matchOf('long', LARGE, hashes),
        );
        expect(await index.find(OWNER, fork)).toEqual(matchOf('fork', LARGE / 2 + 1, fork));
        expect(performance.now() - started).toBeLessThan(LARGE_FINDS_BUDGET_MS);
      }),
    );

    it(
      'takes hashes, owners and session ids as opaque strings: quotes, backslashes, SQL, case, spaces',
      withIndex(async (index) => {
        const hostile = [
          "'",
          "''",
          '"',
          '\\',
          "\\'",
          "x'; DROP TABLE ctxkit_conversation_prefixes; --",
          'x"); DELETE FROM ctxkit_conversation_sessions; --',
          '%',
          '_',
          '*',
          '$1',
          '?',
          ':name',
          'ABC',
          'abc',
          'abc ',
          ' abc',
          'caf\u00e9',
          'cafe\u0301',
          '日本語',
          '🎉',
          'new\nline\ttab\r',
          '',
          // Long, yet within what a PostgreSQL b-tree key may hold (about 2.7 kB).
          'x'.repeat(1_000),
        ];
        // Each as a one-message conversation of its own session, under an owner and id just as hostile.
        for (const [position, hash] of hostile.entries()) {
          await index.record(`${hash}'owner`, `${hash}"session-${position}`, [hash]);
        }
        for (const [position, hash] of hostile.entries()) {
          expect(await index.find(`${hash}'owner`, [hash]), JSON.stringify(hash.slice(0, 40))).toEqual(
            matchOf(`${hash}"session-${position}`, 1, [hash]),
          );
        }
        // And all of them as one conversation: every prefix found, near misses not.
        await index.record(OWNER, "o'brien\\", hostile);
        for (let length = 1; length <= hostile.length; length++) {
          expect(await index.find(OWNER, hostile.slice(0, length)), `prefix ${length}`).toEqual(
            matchOf("o'brien\\", length, hostile),
          );
        }
        for (const [position, hash] of hostile.entries()) {
          expect(await headsOf(index, [hash], `${hash}'owner`), JSON.stringify(hash.slice(0, 40))).toEqual([
            headOf(`${hash}"session-${position}`, [hash]),
          ]);
        }
        expect(await headsOf(index, hostile)).toEqual([headOf("o'brien\\", hostile)]);
        expect(await index.heads(OWNER, ['ABC ', '\\\\', '%%', "''", `${'x'.repeat(1_000)} `])).toEqual([]);
        expect(await index.find(OWNER, ['ABC '])).toBeUndefined();
        expect(await index.find(OWNER, ['\\\\'])).toBeUndefined();
        expect(await index.find(OWNER, ['%%'])).toBeUndefined();
        expect(await index.find(`'owner`, ["'"])).toBeUndefined();
      }),
    );

    it(
      'settles concurrent records of forks from one trunk: each fork finds itself, the trunk has one owner',
      withIndex(async (index) => {
        const trunk = ids('trunk', 20);
        const forks = Array.from({ length: 12 }, (_, fork) => hashesOf([...trunk, ...ids(`fork${fork}`, 3)]));
        await Promise.all(forks.map((hashes, fork) => index.record(OWNER, `fork${fork}`, hashes)));
        for (const [fork, hashes] of forks.entries()) {
          expect(await index.find(OWNER, hashes), `fork ${fork}`).toEqual(matchOf(`fork${fork}`, 23, hashes));
          expect(await headsOf(index, hashes), `fork ${fork}`).toEqual([headOf(`fork${fork}`, hashes)]);
        }
        // Records at once still take distinct places in the order.
        const recordedAts = (await index.heads(OWNER, forks.flat())).map((head) => head.recordedAt);
        expect(new Set(recordedAts).size).toBe(forks.length);
        const owner = (await index.find(OWNER, hashesOf(trunk)))?.sessionId;
        expect(forks.map((_, fork) => `fork${fork}`)).toContain(owner);
        for (let length = 1; length <= trunk.length; length++) {
          expect((await index.find(OWNER, hashesOf(trunk.slice(0, length))))?.sessionId).toBe(owner);
        }
      }),
    );
  });
}
