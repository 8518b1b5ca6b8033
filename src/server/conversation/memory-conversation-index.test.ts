import { describe, expect, it } from 'vitest';
import { conversationIndexConformance } from './conversation-index.conformance.ts';
import {
  type ConversationMatch,
  conversationHashes,
  createMemoryConversationIndex,
} from './conversation-index.ts';

conversationIndexConformance('memory', async () => ({
  index: createMemoryConversationIndex(),
  close: async () => {},
}));

const hashesOf = (...contentIds: string[]): string[] => conversationHashes('owner', 'system', contentIds);
/** The match for a request holding `length` messages of the session whose conversation is `held` (ids). */
const matchOf = (sessionId: string, length: number, held: readonly string[]): ConversationMatch => ({
  sessionId,
  length,
  head: held.length,
  headHash: hashesOf(...held).at(-1) ?? '',
});

describe('createMemoryConversationIndex', () => {
  it('forgets the sessions recorded longest ago once it holds more than maxPrefixes', async () => {
    const index = createMemoryConversationIndex({ maxPrefixes: 6 });
    await index.record('owner', 'old', hashesOf('a', 'b', 'c'));
    await index.record('owner', 'new', hashesOf('x', 'y', 'z'));
    await index.record('owner', 'newest', hashesOf('p'));
    expect(await index.find('owner', hashesOf('a', 'b', 'c'))).toBeUndefined();
    expect(await index.find('owner', hashesOf('x', 'y', 'z'))).toEqual(matchOf('new', 3, ['x', 'y', 'z']));
    expect(await index.find('owner', hashesOf('p'))).toEqual(matchOf('newest', 1, ['p']));
    // Its head goes with it: a request holding its conversation starts a session of its own.
    expect(await index.heads('owner', hashesOf('a', 'b', 'c', 'd'))).toEqual([]);
    expect(await index.heads('owner', hashesOf('x', 'y', 'z', 'w'))).toMatchObject([{ sessionId: 'new' }]);
  });

  it('counts recording again as recent: a session continued lately outlives one recorded after it', async () => {
    const index = createMemoryConversationIndex({ maxPrefixes: 6 });
    await index.record('owner', 'old', hashesOf('a', 'b'));
    await index.record('owner', 'new', hashesOf('x', 'y'));
    await index.record('owner', 'old', hashesOf('a', 'b', 'c'));
    await index.record('owner', 'newest', hashesOf('p', 'q'));
    expect(await index.find('owner', hashesOf('x', 'y'))).toBeUndefined();
    expect(await index.find('owner', hashesOf('a', 'b', 'c'))).toEqual(matchOf('old', 3, ['a', 'b', 'c']));
  });

  it('still finds a fork after the session whose trunk it shares is evicted', async () => {
    const index = createMemoryConversationIndex({ maxPrefixes: 8 });
    await index.record('owner', 'trunk', hashesOf('a', 'b', 'c', 'd'));
    await index.record('owner', 'fork', hashesOf('a', 'b', 'c', 'x'));
    await index.record('owner', 'later', hashesOf('v'));
    // The trunk's conversation is now only a fork from the fork's, at the prefix they share.
    expect(await index.find('owner', hashesOf('a', 'b', 'c', 'd'))).toEqual(
      matchOf('fork', 3, ['a', 'b', 'c', 'x']),
    );
    expect(await index.find('owner', hashesOf('a', 'b', 'c', 'x', 'next'))).toEqual(
      matchOf('fork', 4, ['a', 'b', 'c', 'x']),
    );
  });

  it('hands a shared prefix on, when its owner is evicted, to the session that came to hold it next', async () => {
    const index = createMemoryConversationIndex({ maxPrefixes: 9 });
    await index.record('owner', 'trunk', hashesOf('a', 'b', 'c'));
    await index.record('owner', 'first-fork', hashesOf('a', 'b', 'x'));
    await index.record('owner', 'second-fork', hashesOf('a', 'y'));
    await index.record('owner', 'later', hashesOf('v', 'w'));
    expect(await index.find('owner', hashesOf('a', 'b'))).toEqual(matchOf('first-fork', 2, ['a', 'b', 'x']));
    expect(await index.find('owner', hashesOf('a'))).toEqual(matchOf('first-fork', 1, ['a', 'b', 'x']));
    await index.record('owner', 'later', hashesOf('v', 'w', 'z', 'z1', 'z2'));
    expect(await index.find('owner', hashesOf('a', 'b'))).toEqual(matchOf('second-fork', 1, ['a', 'y']));
    expect(await index.find('owner', hashesOf('a', 'y', 'next'))).toEqual(
      matchOf('second-fork', 2, ['a', 'y']),
    );
  });

  it('drops the prefixes a session recorded again no longer holds; one holding them next owns them', async () => {
    const index = createMemoryConversationIndex();
    await index.record('owner', 's1', hashesOf('a', 'b', 'c', 'd'));
    await index.record('owner', 'copy', hashesOf('a', 'b', 'c', 'd'));
    await index.record('owner', 's1', hashesOf('a', 'b'));
    expect(await index.find('owner', hashesOf('a', 'b', 'c', 'd'))).toEqual(
      matchOf('copy', 4, ['a', 'b', 'c', 'd']),
    );
    expect(await index.find('owner', hashesOf('a', 'b'))).toEqual(matchOf('s1', 2, ['a', 'b']));
    // s1 keeps its place as the first holder of what it kept, and queues last for what it takes again.
    await index.record('owner', 's1', hashesOf('a', 'b', 'c', 'e'));
    expect(await index.find('owner', hashesOf('a', 'b', 'c'))).toEqual(
      matchOf('copy', 3, ['a', 'b', 'c', 'd']),
    );
    expect(await index.find('owner', hashesOf('a', 'b', 'c', 'e'))).toEqual(
      matchOf('s1', 4, ['a', 'b', 'c', 'e']),
    );
    // A prefix no one holds is not known: the request is new.
    await index.record('owner', 'copy', hashesOf('z'));
    await index.record('owner', 's1', hashesOf('y'));
    expect(await index.find('owner', hashesOf('a'))).toBeUndefined();
    expect(await index.heads('owner', hashesOf('a', 'b', 'c', 'e'))).toEqual([]);
  });

  it('counts a session with an empty conversation toward maxPrefixes, so empty records stay bounded', async () => {
    const index = createMemoryConversationIndex({ maxPrefixes: 3 });
    await index.record('owner', 's1', hashesOf('a'));
    for (let session = 0; session < 3; session++) await index.record('owner', `empty-${session}`, []);
    expect(await index.find('owner', hashesOf('a'))).toBeUndefined();
  });

  it('keeps the newest sessions that fit through many forks and re-records, each found by its own', async () => {
    const maxPrefixes = 200;
    const index = createMemoryConversationIndex({ maxPrefixes });
    const trunk = Array.from({ length: 10 }, (_, message) => `t${message}`);
    const live = new Map<string, string[]>();
    for (let round = 0; round < 300; round++) {
      const sessionId = `s${round % 37}`;
      const conversation = [...trunk.slice(0, round % 10), `r${round}`, `q${round}`];
      await index.record('owner', sessionId, hashesOf(...conversation));
      live.delete(sessionId);
      live.set(sessionId, conversation);
    }
    // The oldest is forgotten (its last messages are its alone)…
    const [oldest, forgotten] = [...live][0] ?? [];
    expect((await index.find('owner', hashesOf(...(forgotten ?? []))))?.sessionId).not.toBe(oldest);
    // …and the newest that fit are kept, whole; each is found past the trunk it shares.
    const kept = [...live].slice(-Math.floor(maxPrefixes / 12));
    for (const [sessionId, conversation] of kept) {
      expect(await index.find('owner', hashesOf(...conversation, 'next')), sessionId).toEqual(
        matchOf(sessionId, conversation.length, conversation),
      );
    }
  });
});
