import { describe, expect, it } from 'vitest';
import { forEachInSlices, mapInSlices, WorkSlices, yieldToEventLoop } from './work-slices.ts';

describe('WorkSlices', () => {
  it('is due once its slice has run, and starts a new one after the turn', async () => {
    let now = 0;
    const slices = new WorkSlices(10, () => now);
    expect(slices.due()).toBe(false);
    now = 10;
    expect(slices.due()).toBe(true);
    await slices.next();
    expect(slices.due()).toBe(false);
  });

  it('lets waiting I/O run between slices, which an await alone does not', async () => {
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await Promise.resolve();
    expect(ran).toBe(false);
    await yieldToEventLoop();
    expect(ran).toBe(true);
  });

  it('maps and visits every item in order, giving the event loop turns on the way', async () => {
    let now = 0;
    let turns = 0;
    const timer = setInterval(() => {
      turns++;
    }, 0);
    try {
      // Every item takes a whole slice: a turn after each.
      const slices = new WorkSlices(1, () => now++);
      const items = Array.from({ length: 50 }, (_, index) => index);
      const doubled = await mapInSlices(items, (item) => item * 2, slices);
      expect(doubled).toEqual(items.map((item) => item * 2));
      const seen: number[] = [];
      await forEachInSlices(items, (item) => seen.push(item), slices);
      expect(seen).toEqual(items);
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
