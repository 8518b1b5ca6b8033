import fc from 'fast-check';
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens as gptCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as gptO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { buildRankTable, utf8ByteString } from './bpe-rank-table.ts';
import {
  ASCII_PIECE_SLOTS,
  createBpeTokenCounter,
  longestRun,
  MAX_EXACT_PIECE_BYTES,
  repeatedCodePoint,
  utf8Length,
} from './count-bpe-tokens.ts';
import { countByHeap } from './merge-byte-pairs.ts';
import { O200K_WORD_LEAD, o200kAsciiPieceEnd } from './o200k-ascii-pieces.ts';

const PLAIN = { disallowedSpecial: new Set<string>() };
const o200kTable = buildRankTable(o200kRanks);
const cl100kTable = buildRankTable(cl100kRanks);

/** gpt-tokenizer's count beside ours, merged each way (auto, always the heap, always the scan). */
const encodings = [
  {
    name: 'o200k',
    reference: (text: string) => gptO200k(text, PLAIN),
    // With the hand-written ASCII pre-tokenizer and its words read in the loop, as `createExactCounter`
    // counts; with the pre-tokenizer alone; then the regex alone.
    counters: [
      ...(['auto', 'heap', 'scan'] as const).map((merge) =>
        createBpeTokenCounter({
          splitRegex: O200K_TOKEN_SPLIT_REGEX,
          ranks: o200kTable,
          merge,
          asciiPieceEnd: o200kAsciiPieceEnd,
          asciiWordLead: O200K_WORD_LEAD,
        }),
      ),
      createBpeTokenCounter({
        splitRegex: O200K_TOKEN_SPLIT_REGEX,
        ranks: o200kTable,
        asciiPieceEnd: o200kAsciiPieceEnd,
      }),
      createBpeTokenCounter({ splitRegex: O200K_TOKEN_SPLIT_REGEX, ranks: o200kTable }),
    ],
  },
  {
    name: 'cl100k',
    reference: (text: string) => gptCl100k(text, PLAIN),
    counters: (['auto', 'heap', 'scan'] as const).map((merge) =>
      createBpeTokenCounter({ splitRegex: CL100K_TOKEN_SPLIT_REGEX, ranks: cl100kTable, merge }),
    ),
  },
];

function expectSameCounts(text: string, merges: 'all' | 'auto' = 'all'): void {
  for (const encoding of encodings) {
    const expected = encoding.reference(text);
    const counters = merges === 'all' ? encoding.counters : encoding.counters.slice(0, 1);
    for (const count of counters)
      expect(count(text), `${encoding.name} of ${JSON.stringify(text.slice(0, 40))}`).toBe(expected);
  }
}

/** Characters that exercise every branch of both pre-tokenizers and of UTF-8. */
const ALPHABET = [
  ...'abcXYZ019 -_=/\\\n\r\t\v\f\u0001\u007f.,:;\'"!?#+*()[]{}<>|`~',
  'é',
  'ß',
  'Ж',
  'ж',
  'ا',
  'अ',
  'ि',
  '\u0301',
  '的',
  '日',
  'の',
  'ー',
  '한',
  '🎉',
  '𝐀',
  '\u00a0',
  '\u3000',
  '\ufeff',
  'using',
  '\ud800',
  '\udc00',
  "'s",
  "'LL",
  '<|endoftext|>',
  '<|im_start|>',
];

const mixedText = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 300 }).map((parts) => parts.join(''));

/** Long runs glued together: the shape that makes single pieces long. */
const runs = fc
  .array(fc.tuple(fc.constantFrom(...ALPHABET), fc.integer({ min: 1, max: 700 })), {
    minLength: 1,
    maxLength: 4,
  })
  .map((parts) => parts.map(([unit, times]) => unit.repeat(times)).join(''));

describe('BPE counting (exactly gpt-tokenizer’s counts)', () => {
  it('agrees on random mixed text (property)', () => {
    fc.assert(
      fc.property(mixedText, (text) => expectSameCounts(text)),
      { numRuns: 300 },
    );
  });

  it('agrees on random full-Unicode strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => expectSameCounts(text)),
      {
        numRuns: 200,
      },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => expectSameCounts(text)),
      {
        numRuns: 200,
      },
    );
  });

  it('agrees on long runs of one or a few characters (property)', () => {
    fc.assert(
      fc.property(runs, (text) => expectSameCounts(text)),
      { numRuns: 150 },
    );
  });

  it('agrees on many short ASCII pieces through one counter, its table full and overwritten', () => {
    // Families of 14-character words alike but for four letters, where one packed word of the table's
    // key differs (the first four characters, the next four, …): more words than the table has slots, so
    // slots are taken over, and every count must still be its own piece's. Then words, numbers and
    // punctuation runs of every length the table holds.
    const counter = encodings[0]?.counters[0];
    if (!counter) throw new Error('no o200k counter');
    const base = ' thequickbrown';
    const lower = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');
    const families = [0, 4, 8, 12].flatMap((from, seed) =>
      fc.sample(
        fc
          .array(lower, { minLength: 4, maxLength: 4 })
          .map((letters) => `${base.slice(0, from)}${letters.join('')}${base.slice(from + 4)}`.slice(0, 14)),
        { seed, numRuns: ASCII_PIECE_SLOTS / 2 },
      ),
    );
    const run = (from: string) =>
      fc.array(fc.constantFrom(...from), { minLength: 2, maxLength: 14 }).map((units) => units.join(''));
    const mixed = fc.sample(
      fc
        .tuple(
          fc.boolean(),
          fc.oneof(
            run('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'),
            run('0123456789'),
            run('!#$%&*+-.:;<=>?@^_|~\u0000\u007f'),
          ),
        )
        .map(([space, body]) => (space ? ` ${body}` : body).slice(0, 14)),
      { seed: 7, numRuns: ASCII_PIECE_SLOTS },
    );
    const texts = [...families, ...mixed];
    for (const sample of [...texts, ...texts.reverse()]) {
      expect(counter(sample), JSON.stringify(sample)).toBe(gptO200k(sample, PLAIN));
    }
  });

  it('agrees on runs of every printable ASCII character and common Unicode, long enough to take the heap', () => {
    const units = [
      ...Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)),
      '\n',
      '\t',
      'é',
      '的',
      '🎉',
      'e\u0301',
      'ab',
      '-=',
      '\n/',
    ];
    for (const unit of units)
      for (const times of [7, 64, 129, 1000, 3001]) expectSameCounts(unit.repeat(times), 'auto');
  });

  it('agrees on base64 of zeros and of random bytes, hex and separator-heavy output', () => {
    const random = new Uint8Array(6000).map((_, index) => (index * 2_654_435_761) >>> 13);
    const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
    expectSameCounts(base64(new Uint8Array(6000)), 'auto');
    expectSameCounts(base64(random), 'auto');
    expectSameCounts(base64(random).replace(/(.{76})/g, '$1\n'), 'auto');
    expectSameCounts(Buffer.from(random).toString('hex'), 'auto');
    expectSameCounts(`${'='.repeat(2000)}\nRESULT: ok\n${'-'.repeat(2000)}\n${' '.repeat(500)}|\n`, 'auto');
  });

  it('agrees on ordinary text, code and special-token-looking text', () => {
    for (const text of [
      'hello world',
      'function f(x) {\n  return x ** 2; // square\n}\nРусский текст, 日本語, emoji 🎉🎉.',
      'tokenizer output: <|im_start|>user ... <|im_end|> <|endofprompt|> <|fim_prefix|> <|endoftext|>',
      "It's what they'LL say: don't",
      '\ufeffusing System;\n\ufeff\ufeffnamespace X {}\n\ufeff\n\n',
      '\ud800 lone \udc00 surrogates \ud83c',
      '',
    ]) {
      expectSameCounts(text);
    }
  });
});

describe('pieces over MAX_EXACT_PIECE_BYTES', () => {
  const o200k = encodings[0]?.counters[0] as (text: string) => number;
  const splitter = new RegExp(
    O200K_TOKEN_SPLIT_REGEX.source,
    `${O200K_TOKEN_SPLIT_REGEX.flags.replace('g', '')}g`,
  );
  const long = MAX_EXACT_PIECE_BYTES + 20_000;

  // gpt-tokenizer cannot count these in reasonable time; the heap merge of the whole piece is its count
  // (merge-byte-pairs.test.ts), so the blocks are checked against that.
  it('counts a long run with a character before or after it exactly (base64 of a sparse buffer)', () => {
    for (const text of [`${'A'.repeat(long)}Q`, `Q${'A'.repeat(long)}Qbc`]) {
      expect(text.match(splitter)).toEqual([text]);
      const tokens = o200k(text);
      expect(tokens).toBe(countByHeap(utf8ByteString(text), o200kTable));
      expect(tokens).toBeLessThan(text.length / 4);
    }
  });

  it('falls back to the UTF-8 length for a long piece without a long run', () => {
    const text = 'AB'.repeat(long / 2);
    expect(o200k(text)).toBe(utf8Length(text));
  });
});

describe('helpers', () => {
  it('finds the longest run of one code point, never splitting a surrogate pair', () => {
    expect(longestRun('')).toBeUndefined();
    expect(longestRun('abbbcc')).toEqual({ start: 1, unit: 'b', repeats: 3 });
    expect(longestRun('x🎉🎉🎉y')).toEqual({ start: 1, unit: '🎉', repeats: 3 });
    expect(longestRun('\ud83c\ud83c\ud83c\udf89')).toEqual({ start: 0, unit: '\ud83c', repeats: 2 });
    expect(longestRun('\udc00\udc00\udc00a')).toEqual({ start: 0, unit: '\udc00', repeats: 3 });
    expect(longestRun('ab')).toEqual({ start: 0, unit: 'a', repeats: 1 });
  });

  it('finds a repeated code point and nothing else', () => {
    expect(repeatedCodePoint('-'.repeat(10_000))).toBe('-');
    expect(repeatedCodePoint('🎉'.repeat(5_000))).toBe('🎉');
    expect(repeatedCodePoint(`${'-'.repeat(9_999)}=`)).toBeUndefined();
    expect(repeatedCodePoint(`=${'-'.repeat(9_999)}`)).toBeUndefined();
    expect(repeatedCodePoint('ab'.repeat(5_000))).toBeUndefined();
    expect(repeatedCodePoint('\ud800'.repeat(4))).toBeUndefined();
  });

  it('measures UTF-8 as TextEncoder does, lone surrogates as U+FFFD', () => {
    for (const text of ['', 'abc', 'é', '的', '🎉', '\ud800', '\udc00x', 'a\ud800\udc00b', '\ud83c']) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    }
  });
});
