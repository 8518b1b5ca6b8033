import { expect, it } from 'vitest';
import { WorkSlices } from '../core/work-slices.ts';
import { idPositions, idPositionsInSlices } from './id-positions.ts';

it('gives where each id is, the last of a repeated one, built once per history', async () => {
  const ids = ['a', 'b', 'c', 'b'];
  let now = 0;
  const built = await idPositionsInSlices(ids, new WorkSlices(1, () => now++));
  expect([...built]).toEqual([
    ['a', 0],
    ['b', 3],
    ['c', 2],
  ]);
  // The same map for the same history, however it is asked for.
  expect(idPositions(ids)).toBe(built);
  expect(await idPositionsInSlices(ids)).toBe(built);
  const other = ['a', 'b', 'c', 'b'];
  expect(idPositions(other)).not.toBe(built);
  expect([...idPositions(other)]).toEqual([...built]);
});
