/**
 * The resolver over a real index: the memory one the proxy uses by default, and an SQLite one, whose
 * prefixes stay with a session recorded again without them (as PostgreSQL's do, for several proxies on one
 * database), so a session may be found by a prefix it no longer holds.
 *
 * A session is recorded with the history its request sent: the reply enters with the client's next
 * request, as the client holds it. So a conversation's requests here are `[u1]`, `[u1, r1, u2]`, … .
 */
import { describe, expect, it } from 'vitest';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import {
  type ConversationIndex,
  conversationHashes,
  createMemoryConversationIndex,
} from './conversation/conversation-index.ts';
import { createSqliteConversationIndex } from './conversation/sqlite-conversation-index.ts';
import { SESSION_HEADER } from './proxy-options.ts';
import {
  MAX_CLIENT_SESSION_ID_LENGTH,
  type ResolvedSession,
  SessionRequestError,
  SessionResolver,
} from './resolve-session.ts';

const OWNER = 'owner-a';
const OTHER_OWNER = 'owner-b';
const SYSTEM = 'You are helpful.';

interface OpenedIndex {
  index: ConversationIndex;
  close(): Promise<void>;
}

const INDEXES: [string, () => OpenedIndex][] = [
  ['memory', () => ({ index: createMemoryConversationIndex(), close: async () => {} })],
  [
    'sqlite',
    () => {
      const index = createSqliteConversationIndex({ filename: ':memory:' });
      return { index, close: () => index.close() };
    },
  ],
];

/** An index whose records can be made to fail, counting them. */
function failable(inner: ConversationIndex) {
  const state = { failing: false, records: 0 };
  const index: ConversationIndex = {
    find: (owner, hashes) => inner.find(owner, hashes),
    heads: (owner, hashes) => inner.heads(owner, hashes),
    async record(owner, sessionId, hashes) {
      state.records++;
      if (state.failing) throw new Error('index unavailable');
      await inner.record(owner, sessionId, hashes);
    },
  };
  return { index, state };
}

/** A request without a session header, from OWNER unless told. */
const unnamed = (
  resolver: SessionResolver,
  ids: readonly string[],
  owner = OWNER,
): Promise<ResolvedSession> => resolver.resolve(owner, undefined, SYSTEM, ids);

/** A request answered: its session released (and so recorded with the request's history). */
async function turn(resolver: SessionResolver, ids: readonly string[]): Promise<ResolvedSession> {
  const session = await unnamed(resolver, ids);
  await session.release();
  return session;
}

/** The requests of one conversation as a client sends them: each the last, its reply, and a new message. */
function requestsOf(turns: number, label = ''): string[][] {
  const requests: string[][] = [];
  let history: string[] = [];
  for (let step = 1; step <= turns; step++) {
    history = [...history, ...(step > 1 ? [`${label}r${step - 1}`] : []), `${label}u${step}`];
    requests.push(history);
  }
  return requests;
}

describe.each(INDEXES)('SessionResolver over the %s index', (_name, open) => {
  const withIndex = (test: (index: ConversationIndex) => Promise<void>) => async () => {
    const opened = open();
    try {
      await test(opened.index);
    } finally {
      await opened.close();
    }
  };

  it(
    'finds the same sessions when told the ids of the request before (the hashes they share are not made again)',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const first = ['u1', 'r1', 'u2'];
      const session = await resolver.resolve(OWNER, undefined, SYSTEM, first);
      await session.release();
      const next = [...first, 'r2', 'u3'];
      const continued = await resolver.resolve(OWNER, undefined, SYSTEM, next, first);
      await continued.release();
      expect(continued).toMatchObject({ origin: 'continued', publicId: session.publicId });
      // Edited in the middle: a fork, as without the earlier ids.
      const edited = ['u1', 'edited', 'u2', 'r2', 'u3', 'r3', 'u4'];
      const fork = await resolver.resolve(OWNER, undefined, SYSTEM, edited, next);
      await fork.release();
      expect(fork).toMatchObject({ origin: 'forked' });
      // Another system prompt, the same ids: its own chain, not the earlier one's.
      const other = await resolver.resolve(OWNER, undefined, 'Another prompt.', [...next, 'r3'], next);
      await other.release();
      expect(other.origin).toBe('new');
      // And the fork continues from its own ids.
      const afterFork = await resolver.resolve(OWNER, undefined, SYSTEM, [...edited, 'r4', 'u5'], edited);
      await afterFork.release();
      expect(afterFork).toMatchObject({ origin: 'continued', publicId: fork.publicId });
    }),
  );

  it(
    'starts a new session for an unknown conversation, and continues it when it comes back with the reply',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const first = await turn(resolver, ['u1']);
      expect(first.origin).toBe('new');
      expect(first.publicId).toMatch(/^conv_[0-9a-f]{24}$/);
      expect(first.sessionId).toBe(`${OWNER}:${first.publicId}`);
      expect(first.forkedFrom).toBeUndefined();
      const second = await turn(resolver, ['u1', 'r1', 'u2']);
      expect(second).toMatchObject({
        origin: 'continued',
        publicId: first.publicId,
        sessionId: first.sessionId,
      });
      expect(second.forkedFrom).toBeUndefined();
      // A tool loop: the reply called a tool, and the request brings its result, no user message.
      expect(await turn(resolver, ['u1', 'r1', 'u2', 'r2', 'tool-result'])).toMatchObject({
        origin: 'continued',
        publicId: first.publicId,
      });
      // The same messages under another system prompt are another conversation.
      const otherSystem = await resolver.resolve(OWNER, undefined, 'Another prompt.', ['u1', 'r1', 'u2']);
      expect(otherSystem.origin).toBe('new');
    }),
  );

  it(
    'continues the session of a retried request (the same history again): nothing of the first to undo',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const first = await turn(resolver, ['u1']);
      expect(await turn(resolver, ['u1'])).toMatchObject({ origin: 'continued', publicId: first.publicId });
      for (let attempt = 0; attempt < 3; attempt++) {
        expect(await turn(resolver, ['u1', 'r1', 'u2']), `attempt ${attempt}`).toMatchObject({
          origin: 'continued',
          publicId: first.publicId,
        });
      }
      // The conversation goes on in it, with the reply of whichever attempt the client kept.
      expect(await turn(resolver, ['u1', 'r1', 'u2', 'r2-retried', 'u3'])).toMatchObject({
        origin: 'continued',
        publicId: first.publicId,
      });
    }),
  );

  it(
    'continues a session of its own on every call of a conversation sent again, the last call included',
    withIndex(async (index) => {
      // A task re-run against a deterministic model: the same requests, the same replies, three times.
      const resolver = new SessionResolver(index);
      const requests = requestsOf(5);
      const runs: ResolvedSession[][] = [];
      for (let run = 0; run < 3; run++) {
        const sessions: ResolvedSession[] = [];
        for (const ids of requests) sessions.push(await turn(resolver, ids));
        runs.push(sessions);
      }
      const [first, ...again] = runs.map((sessions) => ({
        id: sessions[0]?.publicId,
        ids: sessions.map((session) => session.publicId),
        origins: sessions.map((session) => session.origin),
        forkedFrom: sessions[0]?.forkedFrom,
      }));
      expect(first?.origins).toEqual(['new', 'continued', 'continued', 'continued', 'continued']);
      expect(first?.ids).toEqual(requests.map(() => first?.id));
      for (const [run, result] of again.entries()) {
        // Its first request holds a prefix sent before, short of every session's conversation: a fork…
        expect(result.origins, `run ${run + 2}`).toEqual([
          'forked',
          'continued',
          'continued',
          'continued',
          'continued',
        ]);
        expect(result.forkedFrom).toBe(first?.id);
        // …whose session the run continues to its end, though an earlier run's session holds its last
        // request whole.
        expect(result.ids, `run ${run + 2}`).toEqual(requests.map(() => result.id));
      }
      const ids = [first?.id, ...again.map((result) => result.id)];
      expect(new Set(ids).size).toBe(3);
      // Each run's session holds its conversation as its last request sent it.
      const last = conversationHashes(OWNER, SYSTEM, requests.at(-1) ?? []);
      const heads = await index.heads(OWNER, last);
      expect(heads.map((head) => head.sessionId).sort()).toEqual([...ids].sort());
      for (const head of heads) expect(head).toMatchObject({ head: last.length, headHash: last.at(-1) });
    }),
  );

  it(
    'forks a conversation edited at an earlier point into a new session, leaving the old one as it was',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const trunk = await turn(resolver, ['u1']);
      await turn(resolver, ['u1', 'r1', 'u2']);
      const fork = await turn(resolver, ['u1', 'r1', 'edited']);
      expect(fork.origin).toBe('forked');
      expect(fork.forkedFrom).toBe(trunk.publicId);
      expect(fork.publicId).not.toBe(trunk.publicId);
      // The trunk still holds its conversation, and nothing else.
      const trunkHashes = conversationHashes(OWNER, SYSTEM, ['u1', 'r1', 'u2']);
      expect(await index.heads(OWNER, trunkHashes)).toMatchObject([
        { sessionId: trunk.publicId, head: 3, headHash: trunkHashes[2] },
      ]);
      expect(await turn(resolver, ['u1', 'r1', 'edited', 'r-edited', 'u3'])).toMatchObject({
        origin: 'continued',
        publicId: fork.publicId,
      });
      expect(await turn(resolver, ['u1', 'r1', 'u2', 'r2', 'u3'])).toMatchObject({
        origin: 'continued',
        publicId: trunk.publicId,
      });
      // Cut back to a point both passed, short of each one's conversation: a fork again.
      const cut = await turn(resolver, ['u1', 'r1', 'other']);
      expect(cut.origin).toBe('forked');
      expect([trunk.publicId, fork.publicId]).not.toContain(cut.publicId);
    }),
  );

  it(
    'forks a second request on a conversation already being answered, and continues each once released',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const trunk = await turn(resolver, ['u1']);
      const answering = await unnamed(resolver, ['u1', 'r1', 'u2']);
      expect(answering).toMatchObject({ origin: 'continued', publicId: trunk.publicId });
      const meanwhile = await unnamed(resolver, ['u1', 'r1', 'u2']);
      expect(meanwhile.origin).toBe('forked');
      expect(meanwhile.forkedFrom).toBe(trunk.publicId);
      await answering.release();
      await meanwhile.release();
      // Both hold the conversation now: the one recorded last is continued, and the other after it
      // while that one is in flight.
      const next = await unnamed(resolver, ['u1', 'r1', 'u2', 'r2', 'u3']);
      expect(next).toMatchObject({ origin: 'continued', publicId: meanwhile.publicId });
      expect(await unnamed(resolver, ['u1', 'r1', 'u2', 'r2-other', 'u3'])).toMatchObject({
        origin: 'continued',
        publicId: trunk.publicId,
      });
    }),
  );

  it(
    'gives two identical new requests at once two sessions; the next request continues the one recorded last',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const [one, two] = await Promise.all([unnamed(resolver, ['u1']), unnamed(resolver, ['u1'])]);
      expect(one.origin).toBe('new');
      expect(two.origin).toBe('new');
      expect(one.publicId).not.toBe(two.publicId);
      await two.release();
      await one.release();
      expect(await unnamed(resolver, ['u1', 'r1', 'u2'])).toMatchObject({
        origin: 'continued',
        publicId: one.publicId,
      });
    }),
  );

  it(
    'does not continue a session recorded since with another conversation (two proxies on one index)',
    withIndex(async (index) => {
      // Each instance guards only its own requests in flight, so both continue the session at once.
      const one = new SessionResolver(index);
      const two = new SessionResolver(index);
      const session = await turn(one, ['u1']);
      const onOne = await unnamed(one, ['u1', 'r1', 'u2']);
      const onTwo = await unnamed(two, ['u1', 'r1', 'x2']);
      expect(onOne).toMatchObject({ origin: 'continued', publicId: session.publicId });
      expect(onTwo).toMatchObject({ origin: 'continued', publicId: session.publicId });
      await onOne.release();
      await onTwo.release();
      // The session holds the conversation recorded last; a request going on from the other one does not
      // hold it (though the SQLite index still finds the session by the prefixes it had): a fork.
      const others = [
        await unnamed(one, ['u1', 'r1', 'u2', 'r2', 'u3']),
        await unnamed(two, ['u1', 'r1', 'u2', 'r2', 'u3']),
      ];
      for (const other of others) {
        expect(other.origin).toBe('forked');
        expect(other.forkedFrom).toBe(session.publicId);
      }
      await Promise.all(others.map((other) => other.release()));
      expect(await unnamed(one, ['u1', 'r1', 'x2', 'y2', 'x3'])).toMatchObject({
        origin: 'continued',
        publicId: session.publicId,
      });
    }),
  );

  it(
    "keeps owners apart: another owner's identical conversation or header id is another session",
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const mine = await turn(resolver, ['u1']);
      const theirs = await unnamed(resolver, ['u1', 'r1', 'u2'], OTHER_OWNER);
      expect(theirs.origin).toBe('new');
      expect(theirs.forkedFrom).toBeUndefined();
      expect(theirs.publicId).not.toBe(mine.publicId);
      expect(theirs.sessionId).toBe(`${OTHER_OWNER}:${theirs.publicId}`);
      await theirs.release();
      expect(await unnamed(resolver, ['u1', 'r1', 'u2'])).toMatchObject({
        origin: 'continued',
        publicId: mine.publicId,
      });
      // Even a session id sent in the header is reachable only by the owner that sends it.
      const [a, b] = await Promise.all([
        resolver.resolve(OWNER, 'shared', SYSTEM, []),
        resolver.resolve(OTHER_OWNER, 'shared', SYSTEM, []),
      ]);
      expect(a?.sessionId).toBe(`${OWNER}:shared`);
      expect(b?.sessionId).toBe(`${OTHER_OWNER}:shared`);
    }),
  );

  it(
    'gives a client the session its header names, as often as it asks, without recording it',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      for (const id of ['my-session', 'tenant:42', 'a/b c', 'x'.repeat(MAX_CLIENT_SESSION_ID_LENGTH)]) {
        const named = await resolver.resolve(OWNER, id, SYSTEM, ['u1']);
        expect(named).toMatchObject({ origin: 'named', publicId: id, sessionId: `${OWNER}:${id}` });
        expect(named.forkedFrom).toBeUndefined();
        // A second request on a named session waits until the first is released: its sync would
        // otherwise land between the first one's sync and prepare.
        let second: Awaited<ReturnType<SessionResolver['resolve']>> | undefined;
        const waiting = resolver.resolve(OWNER, id, SYSTEM, ['u2']).then((resolved) => {
          second = resolved;
          return resolved;
        });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(second).toBeUndefined();
        await named.release();
        expect(await waiting).toMatchObject({ origin: 'named', publicId: id });
        await second?.release();
      }
      expect((await unnamed(resolver, ['u1', 'r1', 'u2'])).origin).toBe('new');
    }),
  );

  it(
    'refuses a header id that is empty, too long, or holds control characters, NUL or a lone surrogate',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      for (const id of [
        '',
        'x'.repeat(MAX_CLIENT_SESSION_ID_LENGTH + 1),
        'a\nb',
        'a\u0000b',
        'a\u007fb',
        '日本語',
        'c1\u009b31m',
        'a\ud800',
      ]) {
        const resolving = resolver.resolve(OWNER, id, SYSTEM, ['u1']);
        await expect(resolving, JSON.stringify(id)).rejects.toThrow(SessionRequestError);
        await expect(resolving, JSON.stringify(id)).rejects.toThrow(SESSION_HEADER);
      }
    }),
  );

  it(
    'recognizes a conversation of 200,000 messages, other work going on meanwhile',
    withIndex(async (index) => {
      const resolver = new SessionResolver(index);
      const ids = Array.from({ length: 200_000 }, (_, at) => `m${at}`);
      const turns = new EventLoopTurns();
      const first = await turn(resolver, ids);
      const second = await turn(resolver, [...ids, 'r', 'u']);
      turns.stop();
      expect(second).toMatchObject({ origin: 'continued', publicId: first.publicId });
      // Hashed, looked up and recorded at once, the two requests gave nothing else a turn.
      expect(turns.count).toBeGreaterThanOrEqual(10);
    }),
  );

  it(
    'frees a session when recording it fails, and records a release once',
    withIndex(async (inner) => {
      const { index, state } = failable(inner);
      const resolver = new SessionResolver(index);
      const session = await turn(resolver, ['u1']);
      await session.release();
      expect(state.records).toBe(1);
      const answering = await unnamed(resolver, ['u1', 'r1', 'u2']);
      state.failing = true;
      await expect(answering.release()).rejects.toThrow('index unavailable');
      state.failing = false;
      // Not recorded, yet no longer in flight: the same request continues the session again.
      expect(await unnamed(resolver, ['u1', 'r1', 'u2'])).toMatchObject({
        origin: 'continued',
        publicId: session.publicId,
      });
    }),
  );
});
