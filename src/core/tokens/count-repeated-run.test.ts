import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { buildRankTable, utf8ByteString } from './bpe-rank-table.ts';
import { countRepeatedRun, RUN_BLOCK_REPEATS } from './count-repeated-run.ts';
import { countByHeap } from './merge-byte-pairs.ts';

const ranks = buildRankTable(o200kRanks);

describe('runs of one code point counted by blocks', () => {
  // The heap merge of the whole run is gpt-tokenizer's count (count-bpe-tokens.test.ts); blocks must agree.
  it('gives the whole run’s count for every character tried, at lengths around the block size', () => {
    for (const unit of ['-', '=', 'A', 'x', ' ', '0', '.', '的', '🎉', '\u0301', 'é']) {
      const bytes = utf8ByteString(unit);
      for (const repeats of [
        2 * RUN_BLOCK_REPEATS,
        2 * RUN_BLOCK_REPEATS + 1,
        3 * RUN_BLOCK_REPEATS + 77,
        5 * RUN_BLOCK_REPEATS - 1,
      ]) {
        const blocks = countRepeatedRun(bytes, repeats, ranks);
        const whole = countByHeap(bytes.repeat(repeats), ranks);
        if (blocks !== undefined) expect(blocks, `${JSON.stringify(unit)} × ${repeats}`).toBe(whole);
      }
    }
  });

  it('proves a cut for separator, padding and base64-of-zeros runs', () => {
    for (const unit of ['-', '=', 'A', ' '])
      expect(countRepeatedRun(unit, 10 * RUN_BLOCK_REPEATS + 5, ranks)).toBeDefined();
  });

  it('declines runs shorter than two blocks', () => {
    expect(countRepeatedRun('-', RUN_BLOCK_REPEATS, ranks)).toBeUndefined();
  });
});
