import { InvalidTokenCounterError } from '../errors/index.ts';
import { ownCopy } from './own-copy.ts';
import { countDenseBytes } from './token-floor.ts';
import { countTokenUnits, measureTokenUnits } from './token-units.ts';

/** Texts shorter than this are scanned every time: a lookup would cost about as much. */
export const DEFAULT_TEXT_UNITS_MEMO_MIN_CHARS = 256;
/** Characters of remembered texts one memo holds at most; the least recently asked are forgotten first. */
export const DEFAULT_TEXT_UNITS_MEMO_MAX_CHARS = 4_000_000;

export interface TextUnitsMemoOptions {
  minChars?: number;
  maxChars?: number;
}

/**
 * The token units (and dense bytes) of recent texts. One text is counted many times over: as it is
 * appended (is it large enough to spill?), as its message is measured, again by every layer that plans a
 * clip of it (each halving of a snip recounts what it clips) and by the summarizer that bounds its prompt.
 * Units and bytes depend on the text alone, not on any multiplier, so a repeat costs a lookup (a string
 * compare at worst) instead of a scan.
 *
 * A memo belongs to the counter that owns it (one per manager and model), so what one manager counted
 * never makes another's counting look cheaper. Keys are copies (`ownCopy`): a remembered slice must not
 * keep the string it was cut from alive.
 */
export class TextUnitsMemo {
  readonly minChars: number;
  readonly maxChars: number;
  readonly #entries = new Map<string, { key: string; units: number; denseBytes: number }>();
  #heldChars = 0;

  constructor(options: TextUnitsMemoOptions = {}) {
    this.minChars = options.minChars ?? DEFAULT_TEXT_UNITS_MEMO_MIN_CHARS;
    this.maxChars = options.maxChars ?? DEFAULT_TEXT_UNITS_MEMO_MAX_CHARS;
    for (const [name, value] of [
      ['minChars', this.minChars],
      ['maxChars', this.maxChars],
    ] as const) {
      if (!Number.isInteger(value) || value < 0)
        throw new InvalidTokenCounterError(name, `must be an integer ≥ 0, got ${value}`);
    }
  }

  /** Characters held now. */
  get heldChars(): number {
    return this.#heldChars;
  }

  /** `countTokenUnits(text)`, remembered for texts of `minChars` or more. */
  units(text: string): number {
    return text.length < this.minChars ? countTokenUnits(text) : this.#measure(text).units;
  }

  /** `countDenseBytes(text)` (`token-floor.ts`), remembered with the units. */
  denseBytes(text: string): number {
    return text.length < this.minChars ? countDenseBytes(text) : this.#measure(text).denseBytes;
  }

  #measure(text: string): { units: number; denseBytes: number } {
    const known = this.#entries.get(text);
    if (known !== undefined) {
      // Most recently asked last (the Map's order is the order of forgetting), under the copy it kept.
      this.#entries.delete(known.key);
      this.#entries.set(known.key, known);
      return known;
    }
    const measured = measureTokenUnits(text);
    if (text.length > this.maxChars / 4) return measured;
    const key = ownCopy(text);
    this.#entries.set(key, { key, ...measured });
    this.#heldChars += key.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#heldChars <= this.maxChars) break;
      this.#entries.delete(oldest);
      this.#heldChars -= oldest.length;
    }
    return measured;
  }
}
