import { mergeRank, NO_RANK, type RankTable } from './bpe-rank-table.ts';
import { countByHeap, type MergeTrace, newMergeTrace } from './merge-byte-pairs.ts';

/**
 * Exact token count of one code point repeated many times (separator lines, padding, base64 of zeros,
 * runs of spaces) in memory that does not grow with the run: the run is cut into equal blocks, each
 * block is merged once, and the count is the sum, after proving that no merge ever crosses a cut.
 *
 * Why the sum is exact when no merge crosses a cut: merging picks the lowest-ranked adjacent pair, the
 * leftmost on ties. If the pair across a cut is never picked, each side's pairs are ranked and ordered
 * among themselves exactly as if the side were alone, so each block ends as it would alone.
 *
 * How a cut is proven: run the left block and the right block alone, recording each step's rank and
 * how the part touching the cut changes (`MergeTrace`). Together they step in the order the whole run
 * would (lower rank first; the left block first on ties, its pairs being further left). Before each
 * step, the pair across the cut (left block's last part + right block's first part) is ranked: if it is
 * a token ranked below the left block's next step and not above the right block's, the whole run would
 * merge across the cut there, and the cut is refused. After both blocks finish it must not be a token
 * at all. The first merge across any cut would have to happen at one of the checked moments (before
 * it every block evolved alone), so if every cut passes, none ever merges across.
 *
 * All full blocks are the same string, so one check covers every cut between them; the last block takes
 * the remainder (so it is at least a full block long) and has a check of its own. Block lengths are
 * tried from `RUN_BLOCK_REPEATS` up, a repeat at a time, until a length passes; if none of the
 * `RUN_BLOCK_TRIES` does, the caller falls back to merging the whole run.
 *
 * Nothing in that proof needs the two sides of a cut to be runs, or equal. It uses only that each side,
 * merged alone, steps in its own rank order; that every pair of the left side lies left of the pair
 * across the cut and every pair of the right side right of it (so ties go left side, cut pair, right
 * side, as the whole run breaks them); and that until the first merge across some cut every block has
 * evolved alone. All three hold for any adjacent byte strings, each merged alone with its trace. So a run
 * inside a longer text (`countAroundRun`) is cut the same way, its first block carrying the text before
 * it and its last block the text after it: those two are merged whole (through the heap, in memory that
 * grows with them), and the cut between each of them and the run's interior blocks is safe exactly when
 * `cutNeverMerges` passes on it, as any other cut is.
 */
export const RUN_BLOCK_REPEATS = 4096;
export const RUN_BLOCK_TRIES = 256;
/** Block lengths tried for a run inside a text: each try merges the text around the run again. */
export const RUN_EDGE_TRIES = 8;

interface Block {
  bytes: string;
  tokens: number;
  trace: MergeTrace;
}

function mergeBlock(unit: string, repeats: number, ranks: RankTable): Block {
  return mergeTraced(unit.repeat(repeats), ranks);
}

function mergeTraced(bytes: string, ranks: RankTable): Block {
  const trace = newMergeTrace(bytes.length);
  return { bytes, trace, tokens: countByHeap(bytes, ranks, trace) };
}

/** Whether a merge of the whole text can ever join `left`'s last part to `right`'s first (see above). */
export function cutNeverMerges(left: Block, right: Block, ranks: RankTable): boolean {
  let leftStep = 0;
  let rightStep = 0;
  let lastStart = left.bytes.length - 1;
  let firstEnd = 1;
  for (;;) {
    const leftNext = leftStep < left.trace.steps ? (left.trace.ranks[leftStep] as number) : NO_RANK;
    const rightNext = rightStep < right.trace.steps ? (right.trace.ranks[rightStep] as number) : NO_RANK;
    const across = mergeRank(ranks, left.bytes.slice(lastStart) + right.bytes.slice(0, firstEnd)) ?? NO_RANK;
    if (across !== NO_RANK && across < leftNext && across <= rightNext) return false;
    if (leftNext === NO_RANK && rightNext === NO_RANK) return true;
    if (leftNext <= rightNext) {
      lastStart = left.trace.lastStart[leftStep] as number;
      leftStep++;
    } else {
      firstEnd = right.trace.firstEnd[rightStep] as number;
      rightStep++;
    }
  }
}

/**
 * Tokens of `unit` (the byte string of one code point) repeated `repeats` times, or `undefined` when
 * the run is too short to need blocks or no block length could be proven.
 */
export function countRepeatedRun(unit: string, repeats: number, ranks: RankTable): number | undefined {
  for (let tries = 0; tries < RUN_BLOCK_TRIES; tries++) {
    const blockRepeats = RUN_BLOCK_REPEATS + tries;
    const blocks = Math.floor(repeats / blockRepeats);
    if (blocks < 2) return undefined;
    const rest = repeats - blocks * blockRepeats;
    const full = mergeBlock(unit, blockRepeats, ranks);
    const last = rest === 0 ? full : mergeBlock(unit, blockRepeats + rest, ranks);
    if (!cutNeverMerges(full, full, ranks)) continue;
    if (last !== full && !cutNeverMerges(full, last, ranks)) continue;
    return (blocks - 1) * full.tokens + last.tokens;
  }
  return undefined;
}

/**
 * Tokens of `head + unit × repeats + tail` (byte strings, `unit` one code point), or `undefined` when
 * the run is shorter than two blocks or no cut could be proven. The run is cut into blocks as above; its
 * first block is merged together with `head`, its last (the remainder too) with `tail`, and the cuts
 * between those two and the interior blocks (or between the two, when there is no interior block) are
 * checked as every cut is: the proof holds for any two sides.
 */
export function countAroundRun(
  head: string,
  unit: string,
  repeats: number,
  tail: string,
  ranks: RankTable,
): number | undefined {
  let edgeTries = 0;
  for (let tries = 0; tries < RUN_BLOCK_TRIES; tries++) {
    const blockRepeats = RUN_BLOCK_REPEATS + tries;
    const blocks = Math.floor(repeats / blockRepeats);
    if (blocks < 2) return undefined;
    const rest = repeats - blocks * blockRepeats;
    const interior = blocks - 2;
    const full = interior > 0 ? mergeBlock(unit, blockRepeats, ranks) : undefined;
    if (full && interior > 1 && !cutNeverMerges(full, full, ranks)) continue;
    if (edgeTries++ === RUN_EDGE_TRIES) return undefined;
    const first = mergeTraced(head + unit.repeat(blockRepeats), ranks);
    const last = mergeTraced(unit.repeat(blockRepeats + rest) + tail, ranks);
    if (
      full
        ? !cutNeverMerges(first, full, ranks) || !cutNeverMerges(full, last, ranks)
        : !cutNeverMerges(first, last, ranks)
    )
      continue;
    return first.tokens + interior * (full?.tokens ?? 0) + last.tokens;
  }
  return undefined;
}
