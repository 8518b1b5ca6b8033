import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { InvalidTokenCounterError } from './errors.ts';
import type { TokenCounter } from './token-counter.ts';

/** o200k: GPT-4o, GPT-4.1, GPT-5, o-series. cl100k: GPT-4, GPT-3.5. */
export type ExactEncoding = 'o200k' | 'cl100k';

export const EXACT_ENCODINGS: readonly ExactEncoding[] = ['o200k', 'cl100k'];

/**
 * Text that looks like a special token (`<|endoftext|>` in a tool's output, a log, a prompt about
 * tokenizers) is ordinary text to the provider: it tokenizes it as characters and never throws. The
 * library's default disallows special tokens and throws, so every count passes an empty disallow set,
 * which (with nothing allowed either) encodes them as plain text.
 */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

const countersByEncoding: Record<ExactEncoding, (text: string) => number> = {
  o200k: (text) => countO200k(text, AS_PLAIN_TEXT),
  cl100k: (text) => countCl100k(text, AS_PLAIN_TEXT),
};

/**
 * A long text is often counted twice in a row by different steps (a tool result measured for spilling,
 * then as part of its message; a result measured, then clipped): the last few long texts are
 * remembered. Strings are immutable, so a text equal to a remembered one has its count.
 */
export const EXACT_COUNT_MEMO_MIN_CHARS = 256;
export const EXACT_COUNT_MEMO_SLOTS = 4;

export function createExactCounter(encoding: ExactEncoding): TokenCounter {
  const countText = countersByEncoding[encoding];
  if (countText === undefined) {
    throw new InvalidTokenCounterError('encoding', `unknown encoding "${String(encoding)}"`, {
      allowed: EXACT_ENCODINGS,
    });
  }
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
