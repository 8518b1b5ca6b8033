import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRelease, memoryReducingCollection } from './release-memory.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('MemoryRelease', () => {
  it('collects once the proxy has been idle a moment, at most once an interval', () => {
    vi.useFakeTimers();
    let busy = false;
    const collected: number[] = [];
    const release = new MemoryRelease({
      busy: () => busy,
      collect: () => collected.push(Date.now()),
      delayMs: 1_000,
      intervalMs: 60_000,
    });
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
    // A call in flight when it is due: nothing, until asked again.
    busy = true;
    release.request();
    vi.advanceTimersByTime(120_000);
    expect(collected).toHaveLength(2);
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
