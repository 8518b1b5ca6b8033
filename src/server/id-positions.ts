/**
 * Where each content id of a request's history is, looked up by what writes the prepared view back and
 * what counts it: one map per request, built once (in slices, while the request's tokens are counted)
 * rather than over the whole history by each, at once (a history of 400,000 messages took 0.15 s each
 * time, with the thread held).
 */
import { WorkSlices } from '../core/work-slices.ts';

/** Per history's ids (the array a request's wire format gave), their positions. */
const positionsOf = new WeakMap<readonly string[], ReadonlyMap<string, number>>();

/** id → its index in `ids` (the last, should one repeat): built now unless it was for these ids. */
export function idPositions(ids: readonly string[]): ReadonlyMap<string, number> {
  const known = positionsOf.get(ids);
  if (known) return known;
  const positions = new Map<string, number>();
  for (const [index, id] of ids.entries()) positions.set(id, index);
  positionsOf.set(ids, positions);
  return positions;
}

/** `idPositions`, built in slices (and kept for the calls after). */
export async function idPositionsInSlices(
  ids: readonly string[],
  slices: WorkSlices = new WorkSlices(),
): Promise<ReadonlyMap<string, number>> {
  const known = positionsOf.get(ids);
  if (known) return known;
  const positions = new Map<string, number>();
  for (let index = 0; index < ids.length; index++) {
    positions.set(ids[index] as string, index);
    if (slices.due()) await slices.next();
  }
  positionsOf.set(ids, positions);
  return positions;
}
