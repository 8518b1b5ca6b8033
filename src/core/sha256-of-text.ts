import { createHash } from 'node:crypto';

/** UTF-16 units hashed at a time: UTF-8 is encoded a slice at a time, never the whole text at once. */
const HASH_SLICE = 1 << 20;

/**
 * Hex sha256 of `text` as UTF-8, as `createHash('sha256').update(text, 'utf8')` gives it, without that
 * call's UTF-8 copy of the whole text (50 MB more for a 50 MB output). Slices never split a surrogate
 * pair, so their UTF-8 concatenated is the text's.
 */
export function sha256OfText(text: string): string {
  const hash = createHash('sha256');
  if (text.length <= HASH_SLICE) return hash.update(text, 'utf8').digest('hex');
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + HASH_SLICE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    hash.update(text.slice(start, end), 'utf8');
    start = end;
  }
  return hash.digest('hex');
}
