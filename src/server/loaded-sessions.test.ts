import { describe, expect, it } from 'vitest';
import { LoadedSessions } from './loaded-sessions.ts';

describe('LoadedSessions', () => {
  /** A manager whose sessions hold the messages given; records what was unloaded. */
  const manager = (held: Record<string, number>) => {
    const unloaded: string[] = [];
    return {
      unloaded,
      unload: (sessionId: string) => {
        unloaded.push(sessionId);
        delete held[sessionId];
      },
      loadedMessages: (sessionId: string) => held[sessionId] ?? 0,
    };
  };

  it('unloads the least recently used idle sessions past a count of sessions', () => {
    const fake = manager({});
    const loaded = new LoadedSessions(fake, 2, () => {}, 1_000, null);
    for (const id of ['a', 'b', 'c']) {
      loaded.enter(id);
      loaded.leave(id);
    }
    expect(fake.unloaded).toEqual(['a']);
    expect(loaded.size).toBe(2);
  });

  it('unloads idle sessions past the messages they hold together, a session that large alone once idle', () => {
    const fake = manager({ small: 100, other: 200, huge: 400_000 });
    const releases: string[] = [];
    const loaded = new LoadedSessions(fake, 256, () => {}, 100_000, {
      request: () => releases.push('asked'),
    });
    loaded.enter('small');
    loaded.leave('small');
    loaded.enter('other');
    loaded.leave('other');
    loaded.enter('huge');
    // In flight: kept, whatever it holds.
    loaded.enter('small');
    loaded.leave('small');
    expect(fake.unloaded).toEqual([]);
    expect(releases).toEqual([]);
    loaded.leave('huge');
    expect(fake.unloaded).toEqual(['huge']);
    expect(loaded.size).toBe(2);
    // Its memory is asked back.
    expect(releases).toEqual(['asked']);
  });
});
