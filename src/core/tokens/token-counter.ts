/**
 * Counts the tokens a piece of text costs a model. Implementations: exact (a real BPE tokenizer),
 * heuristic (runes / N) and calibrated (token units × a multiplier learned from the provider's usage).
 */
export interface TokenCounter {
  /**
   * Identity for caches: two counters with the same name count the same text the same way. A counter
   * whose counts change over time must either be linear (one of the two fields below) or change its name.
   */
  readonly name: string;
  count(text: string): number;
  /**
   * Set only by rune-linear counters, which promise
   * `count(text) === max(ceil(countRunes(text) / charsPerToken), tokenFloor(text))` (see `token-floor.ts`).
   * Estimators then add a message's runes first and divide once (as tiancai and picoclaw do), and caches keep
   * rune counts, valid whatever the ratio.
   */
  readonly charsPerToken?: number;
  /**
   * Set only by unit-linear counters, which promise
   * `count(text) === max(ceil(countTokenUnits(text) * tokensPerUnit), tokenFloor(text))` (see
   * `token-units.ts`, `token-floor.ts`). Estimators add a message's units first and scale once; caches keep
   * unit counts, so a multiplier that moves after each reported usage costs arithmetic, never a recount. A
   * counter sets at most one of the two fields.
   *
   * Both kinds stand for tokenizers ctxkit does not have, so neither counts below the floor the text's
   * bytes set: estimators keep each category's dense bytes beside its runes and units, and a message's
   * category is never below its floor.
   */
  readonly tokensPerUnit?: number;
  /**
   * Unit-linear counters may remember what they scanned: `tokenUnits(text) === countTokenUnits(text)`,
   * answered from their memo when they have seen the text. Measures of messages go through it, so a
   * text counted once is not scanned again when its message is measured.
   */
  tokenUnits?(text: string): number;
  /** With `tokenUnits`: `countDenseBytes(text)` (`token-floor.ts`), from the same memo. */
  denseBytes?(text: string): number;
  /**
   * Set by counters that promise `count(text) <= utf8Bytes(text) * maxTokensPerByte` (exact BPE counters:
   * 1). Lets a caller that only needs to know whether text is under a token limit skip counting it.
   */
  readonly maxTokensPerByte?: number;
  /**
   * Unit-linear counters with a memo may count a splice of a text they measured (a clip: head, notice,
   * tail) by scanning around its cuts only: `tokens === count(joined)` for the text the splice makes. A
   * layer that clips a result to several sizes in turn asks this, and `text()` for the one it keeps.
   */
  countSplice?(source: string, splice: Splice): SplicedCount;
}

/**
 * A text made of ranges of one source text (`{ from, to }` is `source.slice(from, to)`) and text of its
 * own between them.
 */
export type Splice = readonly (string | SourceRange)[];

export interface SourceRange {
  from: number;
  to: number;
}

export interface SplicedCount {
  tokens: number;
  /** The spliced text (built on asking, once). */
  text(): string;
}

/** Tokens for a rune count under a rune-linear counter; the one place the division and rounding live. */
export function tokensForRunes(runes: number, charsPerToken: number): number {
  return runes <= 0 ? 0 : Math.ceil(runes / charsPerToken);
}

/** Tokens for a unit count under a unit-linear counter; the one place that product and rounding live. */
export function tokensForUnits(units: number, tokensPerUnit: number): number {
  return units <= 0 ? 0 : Math.ceil(units * tokensPerUnit);
}
