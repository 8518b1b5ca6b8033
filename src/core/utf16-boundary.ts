/**
 * Where a UTF-16 string may be cut: never between the two halves of a surrogate pair, or the text stops
 * being valid UTF-16 (an emoji cut in half shows as garbage and some providers refuse it).
 */

/** `index`, moved back by one when it falls between the halves of a surrogate pair. */
export function safeCutIndex(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const unit = text.charCodeAt(index);
  return unit >= 0xdc00 && unit <= 0xdfff ? index - 1 : index;
}
