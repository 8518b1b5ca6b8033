/**
 * Unicode code points in a string, counted the way Go's `utf8.RuneCountInString` does (tiancai and picoclaw
 * count runes, not bytes and not UTF-16 units): a surrogate pair is one rune, a lone surrogate is one.
 * A plain loop, because spreading or iterating the string allocates and this runs over megabytes; most
 * text has no surrogate at all, which the regex engine confirms far faster than the loop.
 */
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

export function countRunes(text: string): number {
  if (!HIGH_SURROGATE.test(text)) return text.length;
  let pairs = 0;
  const last = text.length - 1;
  for (let i = 0; i < last; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}
