import { codeUnitsOf } from './code-units.ts';

/**
 * The fewest tokens a text can cost a model whose tokenizer ctxkit does not have: every count of the
 * heuristic and calibrated counters (and every cached or running figure built from them) is at least
 * this, whatever token units or a learned multiplier say: no text, however it defeats the estimate, is
 * counted as next to nothing (a run of one capital letter was once one unit for 100,000 characters,
 * where o200k counts 50,000 tokens).
 *
 * The floor is the text's UTF-8 bytes outside whitespace, less {@link FLOOR_FREE_BYTES}, divided by
 * {@link FLOOR_BYTES_PER_TOKEN} and rounded down.
 * Whitespace is left out because tokenizers merge its runs whole (o200k: 127 spaces per token; Claude's
 * published tokenizer: 950), and it is most of what indented code and pretty JSON hold beyond their text.
 *
 * Why 8 bytes per token: measured with o200k, cl100k and Anthropic's published (Claude 2) tokenizer, the
 * most non-whitespace bytes one token covers is
 *   - real text: 5.6 on the corpus sessions (p99.9: 5.3), 5.6 on C headers and the Python standard
 *     library, 7.4 on a file that is mostly a banner of dashes; Russian prose 5.3–7.2 under o200k (its
 *     common words are one token of 10–20 bytes; 3.2–3.8 under cl100k and Claude's), other languages
 *     2.7–3.8;
 *   - adversarial text: 1–2 (base64 1.4–1.5, hex 1.7, random capitals 1.7, one letter repeated 2–16,
 *     CJK 1.3–1.6, emoji 1.4–1.8, random Unicode 1.0–1.3, control characters 1.0), more only for runs of
 *     one separator (`-`, `=`, `_`, `#`: 32–250).
 * So on real text the floor stays below the real count and below the estimate (it changes nothing),
 * while no text, however it defeats the estimate, counts less than an eighth of what its bytes cost at
 * worst. Claude's current tokenizer counts more tokens than o200k for the same text, never fewer by
 * much, which keeps the floor below its counts too. Token units are what prices adversarial text
 * near its real cost (`token-units.ts`); the floor is what holds when a text defeats them as well.
 */
export const FLOOR_BYTES_PER_TOKEN = 8;
/**
 * Bytes the floor leaves out of every text (and message category) it is taken over. A short text may be
 * one long token (`constructor`, a 20-letter identifier o200k holds whole), so bytes per token only
 * settle over a few dozen bytes; the floor is for large texts, where 64 bytes are 8 tokens out of
 * thousands.
 */
export const FLOOR_FREE_BYTES = 64;

/** Bytes each ASCII character adds: 0 for whitespace (tab, newline, vertical tab, form feed, return, space). */
const ASCII_DENSE_BYTES = new Uint8Array(128).fill(1);
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_DENSE_BYTES[c] = 0;

/**
 * UTF-8 bytes of `text` outside whitespace (ASCII whitespace; other spaces are rare enough to count).
 * One table lookup per code unit: it runs beside `countTokenUnits` on every text.
 */
export function countDenseBytes(text: string): number {
  return countDenseBytesOfCodes(codeUnitsOf(text));
}

/** `countDenseBytes` over a text's UTF-16 code units (those in `[from, to)`). */
export function countDenseBytesOfCodes(codes: Uint16Array, from = 0, to = codes.length): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = codes[i] as number;
    bytes += c < 0x80 ? (ASCII_DENSE_BYTES[c] as number) : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

/** The dense bytes before each of `positions` (ascending): each code unit adds its own, whatever is around it. */
export function denseBytesBefore(codes: Uint16Array, positions: readonly number[]): number[] {
  const before: number[] = [];
  let bytes = 0;
  let from = 0;
  for (const position of positions) {
    bytes += countDenseBytesOfCodes(codes, from, position);
    before.push(bytes);
    from = position;
  }
  return before;
}

/** The floor, in tokens, for a count of dense bytes; the one place that division and rounding live. */
export function tokensForDenseBytes(bytes: number): number {
  return bytes <= FLOOR_FREE_BYTES ? 0 : Math.floor((bytes - FLOOR_FREE_BYTES) / FLOOR_BYTES_PER_TOKEN);
}

/** The fewest tokens `text` may be counted as by a counter that does not know the model's tokenizer. */
export function tokenFloor(text: string): number {
  return tokensForDenseBytes(countDenseBytes(text));
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * `max(estimate, tokenFloor(text))`, without measuring bytes when the floor cannot reach the estimate:
 * a UTF-16 unit is at most 3 bytes, an ASCII one at most 1, and real text estimates well above both
 * floors (~1 token per 4 characters), so most counts skip the second pass.
 */
export function atLeastFloor(estimate: number, text: string): number {
  const most = estimate * FLOOR_BYTES_PER_TOKEN + FLOOR_FREE_BYTES;
  if (most >= 3 * text.length) return estimate;
  if (most >= text.length && !NON_ASCII.test(text)) return estimate;
  return Math.max(estimate, tokenFloor(text));
}
