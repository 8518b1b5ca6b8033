import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { InvalidTokenCounterError } from '../errors/index.ts';
import { buildRankTable, type RawRankTable } from './bpe-rank-table.ts';
import { createBpeTokenCounter } from './count-bpe-tokens.ts';
import type { TokenCounter } from './token-counter.ts';

/** o200k: GPT-4o, GPT-4.1, GPT-5, o-series. cl100k: GPT-4, GPT-3.5. */
export type ExactEncoding = 'o200k' | 'cl100k';

export const EXACT_ENCODINGS: readonly ExactEncoding[] = ['o200k', 'cl100k'];

/**
 * gpt-tokenizer's rank tables and pre-tokenizer regexes, counted by `count-bpe-tokens.ts` rather than by
 * its `countTokens`, whose merge loop is quadratic in a piece (a 200,000-character line of `-` took 25 s,
 * a 50 MB one did not finish). The counts are gpt-tokenizer's (`count-bpe-tokens.test.ts`), with special
 * tokens counted as the plain text they are to a provider when they appear in a tool's output, a log or
 * a prompt about tokenizers: never as one token, never an error.
 */
const ENCODINGS: Record<ExactEncoding, { ranks: RawRankTable; splitRegex: RegExp }> = {
  o200k: { ranks: o200kRanks, splitRegex: O200K_TOKEN_SPLIT_REGEX },
  cl100k: { ranks: cl100kRanks, splitRegex: CL100K_TOKEN_SPLIT_REGEX },
};

/** One counting function per encoding for the process; its rank table is built on the first count. */
const countersByEncoding = new Map<ExactEncoding, (text: string) => number>();

export function exactCountFunction(encoding: ExactEncoding): (text: string) => number {
  let count = countersByEncoding.get(encoding);
  if (!count) {
    const spec = ENCODINGS[encoding];
    let inner: ((text: string) => number) | undefined;
    count = (text) => {
      inner ??= createBpeTokenCounter({ splitRegex: spec.splitRegex, ranks: buildRankTable(spec.ranks) });
      return inner(text);
    };
    countersByEncoding.set(encoding, count);
  }
  return count;
}

/**
 * A long text is often counted twice in a row by different steps (a tool result measured for spilling,
 * then as part of its message; a result measured, then clipped): the last few long texts are
 * remembered. Strings are immutable, so a text equal to a remembered one has its count.
 */
export const EXACT_COUNT_MEMO_MIN_CHARS = 256;
export const EXACT_COUNT_MEMO_SLOTS = 4;

export function createExactCounter(encoding: ExactEncoding): TokenCounter {
  if (!Object.hasOwn(ENCODINGS, encoding)) {
    throw new InvalidTokenCounterError('encoding', `unknown encoding "${String(encoding)}"`, {
      allowed: EXACT_ENCODINGS,
    });
  }
  const countText = exactCountFunction(encoding);
  const memoTexts: string[] = [];
  const memoCounts: number[] = [];
  const count = (text: string): number => {
    if (text.length < EXACT_COUNT_MEMO_MIN_CHARS) return text.length === 0 ? 0 : countText(text);
    const slot = memoTexts.indexOf(text);
    if (slot >= 0) return memoCounts[slot] ?? countText(text);
    const tokens = countText(text);
    memoTexts.unshift(text);
    memoCounts.unshift(tokens);
    if (memoTexts.length > EXACT_COUNT_MEMO_SLOTS) {
      memoTexts.pop();
      memoCounts.pop();
    }
    return tokens;
  };
  return {
    name: `${encoding}_base`,
    count,
    // Byte-level BPE: every token covers at least one UTF-8 byte.
    maxTokensPerByte: 1,
  };
}
