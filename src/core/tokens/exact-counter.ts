import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { InvalidTokenCounterError } from '../errors/index.ts';
import { buildRankTable, type RawRankTable } from './bpe-rank-table.ts';
import { createBpeTokenCounter } from './count-bpe-tokens.ts';
import { createLineCounter } from './count-by-lines.ts';
import { O200K_WORD_LEAD, o200kAsciiPieceEnd } from './o200k-ascii-pieces.ts';
import { ownCopy } from './own-copy.ts';
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
const ENCODINGS: Record<
  ExactEncoding,
  {
    ranks: RawRankTable;
    splitRegex: RegExp;
    asciiPieceEnd?: (text: string, start: number) => number;
    asciiWordLead?: Uint8Array;
  }
> = {
  o200k: {
    ranks: o200kRanks,
    splitRegex: O200K_TOKEN_SPLIT_REGEX,
    asciiPieceEnd: o200kAsciiPieceEnd,
    asciiWordLead: O200K_WORD_LEAD,
  },
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
      inner ??= createBpeTokenCounter({
        splitRegex: spec.splitRegex,
        ranks: buildRankTable(spec.ranks),
        ...(spec.asciiPieceEnd ? { asciiPieceEnd: spec.asciiPieceEnd } : {}),
        ...(spec.asciiWordLead ? { asciiWordLead: spec.asciiWordLead } : {}),
      });
      return inner(text);
    };
    countersByEncoding.set(encoding, count);
  }
  return count;
}

/**
 * A long text is often counted again by a later step (a tool result measured for spilling, then as part
 * of its message; a result counted when appended, then again when a layer clips it). Strings are
 * immutable, so a text equal to a remembered one has its count. Two memories, oldest first in each:
 * - the last `EXACT_COUNT_RECENT_TEXTS` long texts counted, held as they were given. Most long texts are
 *   counted once (a transcript block, a summary's text), and a copy of each cost more than its count;
 * - a text counted again while it is recent is copied into the memo proper (a slice must not keep the
 *   larger string it was cut from alive there). The memo keeps the texts counted again most lately, at
 *   least `EXACT_COUNT_MEMO_SLOTS` of them and more while their characters add up to at most
 *   `MEMO_MAX_CHARS` (none longer than that).
 * No more than `EXACT_COUNT_RECENT_TEXTS` strings, the newest counted, are ever held uncopied.
 */
export const EXACT_COUNT_MEMO_MIN_CHARS = 256;
export const EXACT_COUNT_RECENT_TEXTS = 4;
export const EXACT_COUNT_MEMO_SLOTS = 4;
/** UTF-16 units of remembered texts beyond the last `EXACT_COUNT_MEMO_SLOTS` (8 MB at most). */
const MEMO_MAX_CHARS = 4 * 1024 * 1024;

interface RememberedCount {
  text: string;
  tokens: number;
}

/** Characters of a text read into its key: spread over it, and its first and last few. */
const SAMPLED_KEY_CHARS = 32;

/**
 * The length and `SAMPLED_KEY_CHARS` characters of a text (of at least that many) in one 32-bit number:
 * the same cost for any length. Texts alike but for characters it skips share a key.
 */
function sampledKey(text: string): number {
  const { length } = text;
  let key = Math.imul(length, 0x9e3779b1);
  const step = Math.floor((length - 16) / (SAMPLED_KEY_CHARS - 16));
  for (let at = 0; at < 8; at++) key = Math.imul(key ^ text.charCodeAt(at), 0x85ebca6b) ^ (key >>> 15);
  for (let at = 8, taken = 0; taken < SAMPLED_KEY_CHARS - 16; at += step, taken++)
    key = Math.imul(key ^ text.charCodeAt(at), 0x85ebca6b) ^ (key >>> 15);
  for (let at = length - 8; at < length; at++)
    key = Math.imul(key ^ text.charCodeAt(at), 0xc2b2ae35) ^ (key >>> 13);
  return key;
}

export function createExactCounter(encoding: ExactEncoding): TokenCounter {
  if (!Object.hasOwn(ENCODINGS, encoding)) {
    throw new InvalidTokenCounterError('encoding', `unknown encoding "${String(encoding)}"`, {
      allowed: EXACT_ENCODINGS,
    });
  }
  // o200k only: its pre-tokenizer lets a text be counted by lines (count-by-lines.ts).
  const countText =
    encoding === 'o200k' ? createLineCounter(exactCountFunction(encoding)) : exactCountFunction(encoding);
  // Keyed by the length and a sample of the characters (`sampledKey`), so a text never remembered costs
  // no pass over it: V8 hashes every character of a string key under 16 K. A key stands for one text at
  // a time, found only when the texts are equal.
  const recent = new Map<number, RememberedCount>();
  // A text counted again moves to the end.
  const memo = new Map<number, RememberedCount>();
  let memoChars = 0;
  const remember = (key: number, text: string, tokens: number): void => {
    const replaced = memo.get(key);
    if (replaced !== undefined) {
      memo.delete(key);
      memoChars -= replaced.text.length;
    }
    memo.set(key, { text: ownCopy(text), tokens });
    memoChars += text.length;
    for (const [oldestKey, oldest] of memo) {
      if (memoChars <= MEMO_MAX_CHARS || memo.size <= EXACT_COUNT_MEMO_SLOTS) break;
      memo.delete(oldestKey);
      memoChars -= oldest.text.length;
    }
  };
  const count = (text: string): number => {
    if (text.length < EXACT_COUNT_MEMO_MIN_CHARS) return text.length === 0 ? 0 : countText(text);
    // A text past the whole memo's size is counted each time: it is not kept.
    if (text.length > MEMO_MAX_CHARS) return countText(text);
    const key = sampledKey(text);
    const known = memo.get(key);
    if (known !== undefined && known.text === text) {
      memo.delete(key);
      memo.set(key, known);
      return known.tokens;
    }
    const seen = recent.get(key);
    if (seen !== undefined && seen.text === text) {
      recent.delete(key);
      remember(key, text, seen.tokens);
      return seen.tokens;
    }
    const tokens = countText(text);
    recent.delete(key);
    recent.set(key, { text, tokens });
    if (recent.size > EXACT_COUNT_RECENT_TEXTS) recent.delete(recent.keys().next().value as number);
    return tokens;
  };
  return {
    name: `${encoding}_base`,
    count,
    // Byte-level BPE: every token covers at least one UTF-8 byte.
    maxTokensPerByte: 1,
  };
}
