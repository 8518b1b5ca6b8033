import { InvalidTokenCounterError } from '../errors/index.ts';
import { countRunes } from './count-runes.ts';
import { type TokenCounter, tokensForRunes } from './token-counter.ts';
import { atLeastFloor } from './token-floor.ts';

/** tiancai and digitorn: `ceil(chars / 4)`. */
export const CHARS_PER_TOKEN_SEED_001 = 4;
/** picoclaw: "~2.5 characters per token (chars * 2 / 5)". */
export const CHARS_PER_TOKEN_SEED_004 = 2.5;
export const DEFAULT_HEURISTIC_CHARS_PER_TOKEN = CHARS_PER_TOKEN_SEED_001;

export function assertCharsPerToken(value: number, field = 'charsPerToken'): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidTokenCounterError(field, `must be a finite number > 0, got ${String(value)}`);
  }
}

/**
 * `ceil(runes / charsPerToken)`, runes being Unicode code points so CJK and emoji are not double-counted;
 * never below the text's byte floor (`token-floor.ts`), which a chars/N ratio misses on dense text.
 */
export function createHeuristicCounter(
  charsPerToken: number = DEFAULT_HEURISTIC_CHARS_PER_TOKEN,
): TokenCounter {
  assertCharsPerToken(charsPerToken);
  return {
    name: `chars/${charsPerToken}`,
    charsPerToken,
    count: (text) => atLeastFloor(tokensForRunes(countRunes(text), charsPerToken), text),
  };
}
