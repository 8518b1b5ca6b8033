import { describe, expect, it } from 'vitest';
import { medianPerCall, turnOrder } from './system-process-protocol.ts';

describe('timed passes', () => {
  it("takes each call's median over the passes on its own", () => {
    const passes = [
      [1, 9, 5],
      [3, 2, 5],
      [2, 4, 50],
    ];
    expect(medianPerCall(passes)).toEqual([2, 4, 5]);
    expect(medianPerCall([[7, 8]])).toEqual([7, 8]);
    expect(medianPerCall([])).toEqual([]);
  });

  it('gives every system every place in the order over as many rounds as there are systems', () => {
    const rounds = [0, 1, 2].map((round) => turnOrder(3, round));
    expect(rounds).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ]);
    for (let place = 0; place < 3; place++)
      expect(new Set(rounds.map((order) => order[place]))).toEqual(new Set([0, 1, 2]));
  });
});
