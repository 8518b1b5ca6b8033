import { describe, expect, it } from 'vitest';
import { onceAsync } from './once-async.ts';

describe('onceAsync', () => {
  it('runs create once and shares its promise, also between calls made before it settles', async () => {
    let runs = 0;
    const get = onceAsync(async () => ({ run: ++runs }));
    const [first, second] = await Promise.all([get(), get()]);
    expect(await get()).toBe(first);
    expect(second).toBe(first);
    expect(runs).toBe(1);
  });

  it('forgets a failure: the next call runs create again', async () => {
    let runs = 0;
    const get = onceAsync(async () => {
      runs++;
      if (runs === 1) throw new Error('first time');
      return runs;
    });
    await expect(get()).rejects.toThrow('first time');
    await expect(get()).resolves.toBe(2);
    await expect(get()).resolves.toBe(2);
    expect(runs).toBe(2);
  });
});
