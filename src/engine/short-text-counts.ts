import { ownCopy } from '../core/tokens/own-copy.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';

export const SHORT_TEXT_MAX_CHARS = 256;
const SHORT_COUNTS_MAX = 4_096;

/**
 * Counts text, remembering short texts (placeholders, call ids, pointers): planners ask for the same few
 * strings on every call, and a tokenizer call costs tens of microseconds however short the text.
 * Forgets everything when asked under another counter, or when full.
 */
export class ShortTextCounts {
  readonly #maxChars: number;
  #counter: TokenCounter | undefined;
  #counts = new Map<string, number>();

  constructor(maxChars = SHORT_TEXT_MAX_CHARS) {
    this.#maxChars = maxChars;
  }

  count(text: string, counter: TokenCounter): number {
    if (text.length > this.#maxChars) return counter.count(text);
    if (this.#counter !== counter || this.#counts.size >= SHORT_COUNTS_MAX) {
      this.#counter = counter;
      this.#counts = new Map();
    }
    const known = this.#counts.get(text);
    if (known !== undefined) return known;
    const counted = counter.count(text);
    // A copy: a short text cut from a long one would keep the long one alive while remembered.
    this.#counts.set(ownCopy(text), counted);
    return counted;
  }
}
