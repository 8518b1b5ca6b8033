import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens as gptO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { buildRankTable, utf8ByteString } from './bpe-rank-table.ts';
import { countAroundRun, countRepeatedRun, RUN_BLOCK_REPEATS } from './count-repeated-run.ts';
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

describe('a run with text before or after it, counted by blocks (countAroundRun)', () => {
  const PLAIN = { disallowedSpecial: new Set<string>() };
  const splitter = new RegExp(
    O200K_TOKEN_SPLIT_REGEX.source,
    `${O200K_TOKEN_SPLIT_REGEX.flags.replace('g', '')}g`,
  );
  const aroundRun = (head: string, unit: string, repeats: number, tail: string) =>
    countAroundRun(utf8ByteString(head), utf8ByteString(unit), repeats, utf8ByteString(tail), ranks);

  // Each text is one pre-tokenized piece (checked), so gpt-tokenizer's count is the count of the merge.
  // Two blocks (8,192 to 12,287 repeats): the head's block meets the tail's; three and more: an interior
  // block between them.
  const cases: [string, string, number, string][] = [
    ['', 'A', 8_192, ''],
    ['', 'A', 8_192, 'Q'],
    ['Q', 'A', 8_193, ''],
    ['Q', 'A', 12_288 + 5, 'Q'],
    ['xyz', 'a', 9_000, 'b'],
    ['', '-', 12_300, '='],
    [' ', '-', 8_200, ''],
    ['X', '的', 8_192, 'x'],
    ['', '🎉', 8_195, '!'],
    ['?', '=', 16_500, ''],
  ];

  it('gives gpt-tokenizer’s count of the whole piece', () => {
    for (const [head, unit, repeats, tail] of cases) {
      const text = head + unit.repeat(repeats) + tail;
      const name = `${JSON.stringify(head)} + ${JSON.stringify(unit)} × ${repeats} + ${JSON.stringify(tail)}`;
      expect(text.match(splitter), name).toEqual([text]);
      const blocks = aroundRun(head, unit, repeats, tail);
      expect(blocks, name).toBeDefined();
      expect(blocks, name).toBe(gptO200k(text, PLAIN));
    }
  });

  it('declines a run shorter than two blocks', () => {
    expect(aroundRun('Q', 'A', 2 * RUN_BLOCK_REPEATS - 1, 'Q')).toBeUndefined();
  });
});
