import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { buildRankTable, bytesToByteString, utf8ByteString } from './bpe-rank-table.ts';

const fatal = new TextDecoder('utf-8', { fatal: true });

function isValidUtf8(bytes: readonly number[]): boolean {
  try {
    fatal.decode(new Uint8Array(bytes));
    return true;
  } catch {
    return false;
  }
}

describe('rank tables keyed by bytes', () => {
  // One map keyed by bytes answers as gpt-tokenizer's two lookups (string entries for valid UTF-8,
  // byte entries otherwise) only if these hold.
  for (const [name, raw] of [
    ['o200k', o200kRanks],
    ['cl100k', cl100kRanks],
  ] as const) {
    it(`${name}: no two tokens share bytes, byte entries are invalid UTF-8, string entries are valid text`, () => {
      const table = buildRankTable(raw);
      const keys = new Set(
        raw.map((entry) =>
          typeof entry === 'string' ? utf8ByteString(entry) : bytesToByteString(entry ?? []),
        ),
      );
      expect(keys.size).toBe(raw.length);
      for (const entry of raw) {
        if (entry === undefined) continue;
        if (typeof entry === 'string') {
          expect(fatal.decode(new TextEncoder().encode(entry))).toBe(entry);
        } else if (isValidUtf8(entry)) {
          // Only tokens opening with a byte-order mark, which gpt-tokenizer never finds (see mergeRank).
          expect(entry.slice(0, 3)).toEqual([0xef, 0xbb, 0xbf]);
          expect(table.has(bytesToByteString(entry))).toBe(false);
        }
      }
    });
  }

  it('keys text by its UTF-8 bytes, one unit a byte', () => {
    expect(utf8ByteString('abc')).toBe('abc');
    expect(utf8ByteString('é')).toBe('\xc3\xa9');
    expect(utf8ByteString('\ud800')).toBe('\xef\xbf\xbd');
    const long = new Uint8Array(20_000).map((_, index) => index % 256);
    expect(bytesToByteString(long)).toBe(Array.from(long, (byte) => String.fromCharCode(byte)).join(''));
  });
});
