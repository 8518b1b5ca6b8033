/**
 * What every SessionLocks must do, run against each backend. `open` gives a new handle on the same
 * backend; for a shared backend two handles stand for two processes and must exclude each other too.
 */
import { describe, expect, it } from 'vitest';
import type { SessionLocks } from './session-locks.ts';

export interface SessionLocksHarness {
  open(): Promise<SessionLocks>;
  cleanup?(): Promise<void>;
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeSessionLocksConformance(
  name: string,
  makeHarness: () => Promise<SessionLocksHarness>,
): void {
  describe(`SessionLocks conformance: ${name}`, () => {
    const withLocks =
      (test: (locks: SessionLocks, harness: SessionLocksHarness) => Promise<void>) => async () => {
        const harness = await makeHarness();
        const locks = await harness.open();
        try {
          await test(locks, harness);
        } finally {
          await locks.close();
          await harness.cleanup?.();
        }
      };

    it(
      'makes a second holder of a session wait until the first releases',
      withLocks(async (locks) => {
        const first = await locks.acquire('owner:s1');
        let second = false;
        const waiting = locks.acquire('owner:s1').then((release) => {
          second = true;
          return release;
        });
        await tick(100);
        expect(second).toBe(false);
        await first();
        const release = await waiting;
        expect(second).toBe(true);
        await release();
      }),
    );

    it(
      'refuses a second claim at once, while other sessions stay free; a released claim is free again',
      withLocks(async (locks) => {
        const claimed = await locks.claim('owner:s1');
        expect(claimed).toBeDefined();
        expect(await locks.claim('owner:s1')).toBeUndefined();
        const other = await locks.claim('owner:s2');
        expect(other).toBeDefined();
        await other?.();
        await claimed?.();
        await claimed?.();
        const again = await locks.claim('owner:s1');
        expect(again).toBeDefined();
        await again?.();
      }),
    );

    it(
      'makes a claim wait for a plain hold (a REST call) rather than refuse it, and a hold wait for a claim',
      withLocks(async (locks) => {
        const held = await locks.acquire('owner:s1');
        let claimed = false;
        const claiming = locks.claim('owner:s1').then((release) => {
          claimed = true;
          return release;
        });
        await tick(100);
        expect(claimed).toBe(false);
        await held();
        const claim = await claiming;
        expect(claim).toBeDefined();
        let acquired = false;
        const acquiring = locks.acquire('owner:s1').then((release) => {
          acquired = true;
          return release;
        });
        await tick(100);
        expect(acquired).toBe(false);
        await claim?.();
        await (await acquiring)();
      }),
    );

    it(
      'never lets two of many concurrent holders of one session in at once',
      withLocks(async (locks) => {
        let inside = 0;
        let most = 0;
        let done = 0;
        await Promise.all(
          Array.from({ length: 12 }, async () => {
            const release = await locks.acquire('owner:busy');
            inside++;
            most = Math.max(most, inside);
            await tick(5);
            inside--;
            done++;
            await release();
          }),
        );
        expect(done).toBe(12);
        expect(most).toBe(1);
      }),
    );

    it(
      'takes hostile session ids as names (any bytes, the longest id)',
      withLocks(async (locks) => {
        for (const id of ["a'; drop table x; --", '\u0000\uD800', '🎉'.repeat(50), 'x'.repeat(512)]) {
          const release = await locks.claim(id);
          expect(release).toBeDefined();
          expect(await locks.claim(id)).toBeUndefined();
          await release?.();
        }
      }),
    );

    it('shares holds between handles exactly when it says it is shared', async () => {
      const harness = await makeHarness();
      const [one, two] = [await harness.open(), await harness.open()];
      try {
        const held = await one.claim('owner:fleet');
        const tried = await two.claim('owner:fleet');
        if (one.shared) expect(tried).toBeUndefined();
        else expect(tried).toBeDefined();
        await tried?.();
        let granted = false;
        const waiting = two.acquire('owner:fleet').then((release) => {
          granted = true;
          return release;
        });
        await tick(100);
        expect(granted).toBe(!one.shared);
        await held?.();
        await (await waiting)();
      } finally {
        await Promise.all([one.close(), two.close()]);
        await harness.cleanup?.();
      }
    });
  });
}
