import { afterEach, describe, expect, it, vi } from 'vitest';
import { LoadedSessions } from './loaded-sessions.ts';
import { MemoryRelease, memoryReducingCollection } from './release-memory.ts';

/** V8's flags as they are set, the flags set for real. */
const flagsSet = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (importOriginal) => {
  const v8 = await importOriginal<typeof import('node:v8')>();
  return {
    ...v8,
    setFlagsFromString: (flags: string) => {
      flagsSet.push(flags);
      v8.setFlagsFromString(flags);
    },
  };
});

afterEach(() => {
  vi.useRealTimers();
});

/** A release that records when it collects: due 1 s after a request, at most once a minute. */
function releaseCollecting(busy: () => boolean): { release: MemoryRelease; collected: number[] } {
  const collected: number[] = [];
  const release = new MemoryRelease({
    busy,
    collect: () => collected.push(Date.now()),
    delayMs: 1_000,
    intervalMs: 60_000,
  });
  return { release, collected };
}

describe('MemoryRelease', () => {
  it('collects once the proxy has been idle a moment, at most once an interval', () => {
    vi.useFakeTimers();
    const { release, collected } = releaseCollecting(() => false);
    release.request();
    release.request();
    vi.advanceTimersByTime(999);
    expect(collected).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(collected).toHaveLength(1);
    // Asked again at once: after the interval, not before.
    release.request();
    vi.advanceTimersByTime(30_000);
    expect(collected).toHaveLength(1);
    vi.advanceTimersByTime(30_000);
    expect(collected).toHaveLength(2);
  });

  it('waits for a moment without a call in flight when one is in flight as it falls due', () => {
    vi.useFakeTimers();
    let busy = true;
    const { release, collected } = releaseCollecting(() => busy);
    release.request();
    vi.advanceTimersByTime(10_000);
    expect(collected).toHaveLength(0);
    // Nothing asks again (no other huge request ends): it looks again itself, until the calls pause.
    busy = false;
    vi.advanceTimersByTime(1_000);
    expect(collected).toHaveLength(1);
    vi.advanceTimersByTime(120_000);
    expect(collected).toHaveLength(1);
  });

  it("sets V8's flag at the first request, not when a proxy's sessions are built", () => {
    vi.useFakeTimers();
    const before = flagsSet.length;
    const setSince = () => flagsSet.slice(before);
    const unloaded: string[] = [];
    const loaded = new LoadedSessions({ unload: (id) => unloaded.push(id) });
    const release = new MemoryRelease({ busy: () => false });
    expect(setSince()).toEqual([]);
    loaded.enter('a');
    loaded.leave('a');
    expect(setSince()).toEqual([]);
    release.request();
    expect(setSince()).toEqual(['--expose-gc']);
    release.request();
    expect(setSince()).toEqual(['--expose-gc']);
  });

  it('does nothing without a collection', () => {
    const release = new MemoryRelease({ busy: () => false, collect: undefined });
    expect(() => release.request()).not.toThrow();
  });

  it("gives back the pool of pages a grown heap left (V8's collection)", () => {
    const collect = memoryReducingCollection();
    expect(collect).toBeTypeOf('function');
    // Grown and dropped: resident until collected so.
    let garbage: unknown[] | undefined = Array.from({ length: 2_000_000 }, (_, index) => ({ index }));
    expect(garbage.length).toBe(2_000_000);
    garbage = undefined;
    const before = process.memoryUsage().rss;
    collect?.();
    expect(process.memoryUsage().rss).toBeLessThan(before);
  });
});
