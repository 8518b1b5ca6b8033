import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextLevel } from './context-level.ts';

const seed002 = { warnAt: 0.7, dangerAt: 0.9 };

describe('contextLevel', () => {
  it('is ok below warnAt, warn from warnAt, danger from dangerAt', () => {
    expect(contextLevel(0, seed002)).toBe('ok');
    expect(contextLevel(0.699, seed002)).toBe('ok');
    expect(contextLevel(0.7, seed002)).toBe('warn');
    expect(contextLevel(0.899, seed002)).toBe('warn');
    expect(contextLevel(0.9, seed002)).toBe('danger');
    expect(contextLevel(1.4, seed002)).toBe('danger');
  });

  it('an infinite pressure is danger, a pressure that is not a number is ok', () => {
    expect(contextLevel(Number.POSITIVE_INFINITY, seed002)).toBe('danger');
    expect(contextLevel(Number.NaN, seed002)).toBe('ok');
  });

  it('with warnAt = dangerAt there is no warn band', () => {
    expect(contextLevel(0.79, { warnAt: 0.8, dangerAt: 0.8 })).toBe('ok');
    expect(contextLevel(0.8, { warnAt: 0.8, dangerAt: 0.8 })).toBe('danger');
  });

  it('property: the level never falls as the pressure rises', () => {
    const rank = { ok: 0, warn: 1, danger: 2 } as const;
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b, x, y) => {
          const display = { warnAt: Math.min(x, y), dangerAt: Math.max(x, y) };
          const [low, high] = a <= b ? [a, b] : [b, a];
          expect(rank[contextLevel(low, display)]).toBeLessThanOrEqual(rank[contextLevel(high, display)]);
        },
      ),
    );
  });
});
