import { countRunes } from '../../core/tokens/count-runes.ts';

/** A text's size in the three units tiancai limits: lines, runes ("chars") and UTF-8 bytes. */
export interface TextMeasure {
  lines: number;
  chars: number;
  bytes: number;
}

/**
 * Lines as a reader counts them: `''` has none, `'a'` and `'a\n'` one, `'a\n\nb'` three. A final
 * newline ends the last line rather than starting an empty one, so `cat`-style output is not one over.
 */
export function countLines(text: string): number {
  if (text === '') return 0;
  let breaks = 0;
  let from = text.indexOf('\n');
  while (from !== -1) {
    breaks++;
    from = text.indexOf('\n', from + 1);
  }
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/**
 * UTF-8 length without encoding the text (a lone surrogate counts 3 bytes, as U+FFFD replaces it).
 * Node's native count, which treats a lone surrogate so.
 */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** UTF-8 bytes of the code point whose first UTF-16 unit is at `index`, and how many units it spans. */
export function codePointAt(text: string, index: number): { bytes: number; units: number } {
  const unit = text.charCodeAt(index);
  if (unit < 0x80) return { bytes: 1, units: 1 };
  if (unit < 0x800) return { bytes: 2, units: 1 };
  if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
    return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function measureText(text: string): TextMeasure {
  return { lines: countLines(text), chars: countRunes(text), bytes: utf8Length(text) };
}
