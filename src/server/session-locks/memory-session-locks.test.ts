import { describe, expect, it } from 'vitest';
import { describeSessionLocksConformance } from './session-locks.conformance.ts';
import { createMemorySessionLocks } from './session-locks.ts';

describeSessionLocksConformance('memory', async () => ({ open: async () => createMemorySessionLocks() }));

describe('memory session locks', () => {
  it('grants waiters of one session in arrival order', async () => {
    const locks = createMemorySessionLocks();
    const order: number[] = [];
    const first = await locks.acquire('s');
    const waiters = [1, 2, 3].map((n) =>
      locks.acquire('s').then(async (release) => {
        order.push(n);
        await release();
      }),
    );
    await first();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  it('holds nothing once every holder released (a claim succeeds)', async () => {
    const locks = createMemorySessionLocks();
    await Promise.all([1, 2].map(async () => (await locks.acquire('s'))()));
    const release = await locks.claim('s');
    expect(release).toBeDefined();
    await release?.();
  });
});
