import { ownCopy } from './own-copy.ts';
import { countTokenUnits } from './token-units.ts';

/** Texts shorter than this are counted every time: their count costs less than remembering it. */
export const REMEMBERED_UNITS_MIN_CHARS = 2_048;
/** Characters of remembered texts held at most; the least recently asked are forgotten first. */
export const REMEMBERED_UNITS_MAX_CHARS = 2_000_000;

/**
 * The same large text is counted many times over: once as it is appended, once as its message is
 * measured, again by every layer that plans a clip of it (each halving of a snip recounts the message it
 * clips) and by the summarizer that bounds its prompt. Token units depend on the text alone, not on any
 * counter's multiplier, so the units of recent large texts are remembered here and a repeat costs a
 * lookup (a string compare at worst) instead of a scan.
 *
 * Keys are copies (`ownCopy`): a remembered slice must not keep the string it was cut from alive.
 */
const remembered = new Map<string, { key: string; units: number }>();
let heldChars = 0;

/** `countTokenUnits(text)`, remembered for large texts. */
export function rememberedTokenUnits(text: string): number {
  if (text.length < REMEMBERED_UNITS_MIN_CHARS) return countTokenUnits(text);
  const known = remembered.get(text);
  if (known !== undefined) {
    // Most recently asked last (the Map's order is the order of forgetting), under the copy it kept.
    remembered.delete(known.key);
    remembered.set(known.key, known);
    return known.units;
  }
  const units = countTokenUnits(text);
  if (text.length > REMEMBERED_UNITS_MAX_CHARS / 4) return units;
  const key = ownCopy(text);
  remembered.set(key, { key, units });
  heldChars += text.length;
  for (const oldest of remembered.keys()) {
    if (heldChars <= REMEMBERED_UNITS_MAX_CHARS) break;
    remembered.delete(oldest);
    heldChars -= oldest.length;
  }
  return units;
}
