import { InvalidTokenCounterError } from '../errors/index.ts';
import { ownCopy } from './own-copy.ts';
import { joinSplice, measureSplice, measureWithMarks, type SourceMarks } from './spliced-units.ts';
import type { Splice } from './token-counter.ts';
import { countDenseBytes } from './token-floor.ts';
import { countTokenUnits, measureTokenUnits } from './token-units.ts';

/** Texts shorter than this are scanned every time: a lookup would cost about as much. */
export const DEFAULT_TEXT_UNITS_MEMO_MIN_CHARS = 256;
/**
 * Texts this long or longer are remembered with marks (`spliced-units.ts`), so a clip of one (head, notice,
 * tail) is measured by scanning around its cuts: a layer fitting a result to a budget clips it to several
 * sizes in turn.
 */
export const DEFAULT_TEXT_UNITS_MEMO_MARKED_CHARS = 4_096;
/** Characters of remembered texts one memo holds at most; the least recently asked are forgotten first. */
export const DEFAULT_TEXT_UNITS_MEMO_MAX_CHARS = 4_000_000;

export interface TextUnitsMemoOptions {
  minChars?: number;
  maxChars?: number;
}

interface Measured {
  units: number;
  denseBytes: number;
  marks?: SourceMarks;
}

interface Entry extends Measured {
  key: string;
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
  readonly #entries = new Map<string, Entry>();
  #heldChars = 0;
  #lastSplice: { source: string; splice: Splice; measured: Measured } | undefined;

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

  /**
   * Units and dense bytes of `joinSplice(source, splice)`, measured around the cuts when the source is
   * long enough to carry marks. `join` builds that text and remembers what was measured for it, when it
   * is the splice measured last (the one a fitting loop settled on).
   */
  spliced(source: string, splice: Splice): { units: number; denseBytes: number } {
    // A source too short for marks is not worth them; one too long to remember would be scanned whole on
    // every splice, where the joined clip is a fraction of it.
    if (source.length < DEFAULT_TEXT_UNITS_MEMO_MARKED_CHARS || source.length > this.maxChars / 4) {
      const { units, denseBytes } = this.#measureText(joinSplice(source, splice));
      return { units, denseBytes };
    }
    const known = this.#measure(source);
    // A text first remembered as a splice's join has no marks yet: scanned once more, it keeps them.
    known.marks ??= markedMeasure(source).marks;
    const measured = measureSplice(source, known.marks, splice);
    this.#lastSplice = { source, splice, measured };
    return measured;
  }

  /** `joinSplice(source, splice)`, remembered with what `spliced` measured when it measured this splice last. */
  join(source: string, splice: Splice): string {
    const text = joinSplice(source, splice);
    const last = this.#lastSplice;
    // Not kept past its use: it holds the source.
    this.#lastSplice = undefined;
    if (
      last?.source === source &&
      last.splice === splice &&
      text.length >= this.minChars &&
      !this.#entries.has(text)
    )
      this.#remember(text, last.measured);
    return text;
  }

  #measureText(text: string): Measured {
    return text.length < this.minChars
      ? { units: countTokenUnits(text), denseBytes: countDenseBytes(text) }
      : this.#measure(text);
  }

  #measure(text: string): Measured {
    const known = this.#entries.get(text);
    if (known !== undefined) {
      // Most recently asked last (the Map's order is the order of forgetting), under the copy it kept.
      this.#entries.delete(known.key);
      this.#entries.set(known.key, known);
      return known;
    }
    const measured: Measured =
      text.length >= DEFAULT_TEXT_UNITS_MEMO_MARKED_CHARS ? markedMeasure(text) : measureTokenUnits(text);
    if (text.length > this.maxChars / 4) return measured;
    return this.#remember(text, measured);
  }

  #remember(text: string, measured: Measured): Entry {
    const key = ownCopy(text);
    const entry: Entry = { key, units: measured.units, denseBytes: measured.denseBytes };
    if (measured.marks) entry.marks = measured.marks;
    this.#entries.set(key, entry);
    this.#heldChars += key.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#heldChars <= this.maxChars) break;
      this.#entries.delete(oldest);
      this.#heldChars -= oldest.length;
    }
    return entry;
  }
}

function markedMeasure(text: string): Measured & { marks: SourceMarks } {
  const marks = measureWithMarks(text);
  return { units: marks.units, denseBytes: marks.denseBytes, marks };
}
