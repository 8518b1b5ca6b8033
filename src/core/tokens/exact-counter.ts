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

export function createExactCounter(encoding: ExactEncoding): TokenCounter {
  const countText = countersByEncoding[encoding];
  if (countText === undefined) {
    throw new InvalidTokenCounterError('encoding', `unknown encoding "${String(encoding)}"`, {
      allowed: EXACT_ENCODINGS,
    });
  }
  return {
    name: `${encoding}_base`,
    count: (text) => (text.length === 0 ? 0 : countText(text)),
    // Byte-level BPE: every token covers at least one UTF-8 byte.
    maxTokensPerByte: 1,
  };
}
