/**
 * The byte-pair ranks of an encoding, keyed by "byte strings": strings whose every UTF-16 unit is one
 * byte (0–255) of the UTF-8 text, so any byte range of a piece is looked up with one `slice`, whether or
 * not it cuts a character in two.
 *
 * Built from gpt-tokenizer's own rank table (`gpt-tokenizer/bpeRanks/*`), the one its encoder uses: a
 * string entry is the token's UTF-8 text, a number-array entry its raw bytes (the tokens that are not
 * valid UTF-8 on their own). gpt-tokenizer looks a byte range up among the string entries when the bytes
 * are valid UTF-8 and among the byte entries otherwise; one map keyed by bytes answers the same as long
 * as no two entries share bytes, every byte entry is invalid UTF-8 and every string entry is valid text —
 * `bpe-rank-table.test.ts` checks all three over both tables.
 */
export type RawRankTable = readonly (string | readonly number[] | undefined)[];

export type RankTable = ReadonlyMap<string, number>;

const NON_ASCII = /[\u0080-\uffff]/;
const CHUNK = 8192;
const encoder = new TextEncoder();

/** The byte string of a text's UTF-8 (a lone surrogate becomes U+FFFD's three bytes, as TextEncoder does). */
export function utf8ByteString(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return bytesToByteString(encoder.encode(text));
}

export function bytesToByteString(bytes: ArrayLike<number>): string {
  if (bytes.length <= CHUNK) return String.fromCharCode.apply(null, bytes as number[]);
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(bytes.length, start + CHUNK);
    const chunk = ArrayBuffer.isView(bytes)
      ? (bytes as Uint8Array).subarray(start, end)
      : Array.prototype.slice.call(bytes, start, end);
    parts.push(String.fromCharCode.apply(null, chunk as unknown as number[]));
  }
  return parts.join('');
}

export function buildRankTable(raw: RawRankTable): RankTable {
  const table = new Map<string, number>();
  raw.forEach((entry, rank) => {
    if (entry === undefined) return;
    if (typeof entry === 'string') table.set(utf8ByteString(entry), rank);
    else {
      const bytes = bytesToByteString(entry);
      // Valid UTF-8 stored as bytes (tokens opening with a byte-order mark): gpt-tokenizer never finds
      // them, since it looks valid UTF-8 up as text (see `mergeRank`).
      if (!isValidUtf8(bytes)) table.set(bytes, rank);
    }
  });
  return table;
}

const BOM = '\xef\xbb\xbf';

/**
 * The rank gpt-tokenizer finds for a byte range while merging (not for a whole piece, which it looks up
 * as the piece's own text): valid UTF-8 is decoded first, and its decoder drops a leading byte-order
 * mark, so `BOM + "using"` merges as the token "using". Reproduced so counts stay gpt-tokenizer's.
 */
export function mergeRank(table: RankTable, bytes: string): number | undefined {
  if (bytes.startsWith(BOM) && isValidUtf8(bytes)) return table.get(bytes.slice(3));
  return table.get(bytes);
}

/** Whether a byte string may carry gpt-tokenizer's byte-order-mark quirk (see `mergeRank`). */
export const hasByteOrderMark = (bytes: string): boolean => bytes.includes(BOM);

/** Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as gpt-tokenizer checks. */
export function isValidUtf8(bytes: string): boolean {
  for (let index = 0; index < bytes.length; ) {
    const first = bytes.charCodeAt(index);
    let count: number;
    let point: number;
    if (first <= 0x7f) {
      index++;
      continue;
    } else if ((first & 0xe0) === 0xc0) {
      if (first <= 0xc1) return false;
      count = 2;
      point = first & 0x1f;
    } else if ((first & 0xf0) === 0xe0) {
      count = 3;
      point = first & 0x0f;
    } else if ((first & 0xf8) === 0xf0) {
      if (first > 0xf4) return false;
      count = 4;
      point = first & 0x07;
    } else return false;
    if (index + count > bytes.length) return false;
    for (let offset = 1; offset < count; offset++) {
      const byte = bytes.charCodeAt(index + offset);
      if ((byte & 0xc0) !== 0x80) return false;
      point = (point << 6) | (byte & 0x3f);
    }
    if ((count === 3 && point < 0x800) || (count === 4 && point < 0x10000)) return false;
    if ((point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    index += count;
  }
  return true;
}

/** No rank: the pair is not a token, so it never merges. Above every real rank. */
export const NO_RANK = 0x7fffffff;
