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
 */
export const RUN_BLOCK_REPEATS = 4096;
export const RUN_BLOCK_TRIES = 256;

interface Block {
  bytes: string;
  tokens: number;
  trace: MergeTrace;
}

function mergeBlock(unit: string, repeats: number, ranks: RankTable): Block {
  const bytes = unit.repeat(repeats);
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
