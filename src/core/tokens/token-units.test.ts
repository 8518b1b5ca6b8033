import fc from 'fast-check';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { COMMON_WORDS } from './common-words.ts';
import { createExactCounter } from './exact-counter.ts';
import { countTokenUnits } from './token-units.ts';

const common = new Set(COMMON_WORDS.split(/\s+/).filter((word) => word.length > 0));
const IS_LETTER = /[\p{L}\p{M}]/u;
const IS_UPPER = /[\p{Lu}\p{Lt}]/u;
const IS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The unit's definition written the slow, obvious way: cut with o200k's own pre-tokenizer regex, weigh
 * each piece. The scanner must agree with it exactly.
 */
function referenceUnits(text: string): number {
  let units = 0;
  for (const [piece] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
    const chars = [...piece];
    const first = chars[0] ?? '';
    const letterAt = chars.findIndex((char) => IS_LETTER.test(char));
    const isWord = letterAt === 0 || (letterAt === 1 && !/[\s\p{N}]/u.test(first) && !/^\p{M}/u.test(first));
    const isSpacedWord = letterAt === 1 && /\s/u.test(first) && !/[\r\n]/.test(first);
    if (isWord || isSpacedWord) {
      let letters = chars.slice(letterAt);
      let contraction = 0;
      const apostrophe = letters.indexOf("'");
      if (apostrophe >= 0) {
        letters = letters.slice(0, apostrophe);
        contraction = 0.5;
      }
      const prefix = letterAt === 0 ? 'none' : isSpacedWord ? 'space' : 'punctuation';
      units += contraction + referenceWordCost(letters, prefix);
    } else if (/^\p{N}+$/u.test(piece) || /^\s+$/u.test(piece)) {
      units += 1;
    } else {
      units += referencePunctuationCost(first === ' ' && chars.length > 1 ? chars.slice(1) : chars);
    }
  }
  return units;
}

const SEPARATORS = new Set('!#%*+-./:=_~');

/** A punctuation run (the characters before any newline it carries), weighed character by character. */
function referencePunctuationCost(chars: string[]): number {
  let cost = 0;
  let previous = -1;
  let index = 0;
  for (const char of chars) {
    const code = char.codePointAt(0) ?? 0;
    if (/\s/u.test(char)) break;
    if (code > 0xffff) cost += 2;
    else {
      if (code < 32 || (code >= 127 && code < 160)) cost += 1;
      else if (index === 0) cost += 1;
      else if (code === previous) {
        if (index >= 3) cost += code >= 128 || SEPARATORS.has(char) ? 1 / 16 : 1 / 2;
      } else if (code >= 128) cost += 1;
      else if (index >= 3) cost += index < 12 ? 3 / 8 : 5 / 8;
      previous = code;
    }
    index++;
  }
  return Math.max(1, cost);
}

function referenceWordCost(letters: string[], prefix: 'none' | 'space' | 'punctuation'): number {
  const length = letters.length;
  if (letters.some((char) => (char.codePointAt(0) ?? 0) > 127)) {
    const cjk = letters.filter((char) => IS_CJK.test(char)).length;
    return cjk > 0 ? Math.max(1, cjk * 1.25 + (length - cjk) / 4) : 1 + length / 4;
  }
  const word = letters.join('');
  const upper = letters.filter((char) => IS_UPPER.test(char)).length;
  const glued = prefix === 'punctuation' ? 0.5 : 0;
  if (upper === length && length >= 2)
    return 1 + glued + Math.max(0, Math.min(length, 16) - 3) / 4 + Math.max(0, length - 16) * (9 / 16);
  if (upper <= 1 && !/[A-Z]/.test(word.slice(1)) && common.has(word.toLowerCase())) return 1;
  const short = Math.min(length, 24);
  const run = Math.max(0, length - 24) * (9 / 16);
  if (prefix === 'space') return (short > 12 ? 1 + (short - 12) / 8 : 1) + run;
  return 1 + short / 8 + glued + run;
}

/** Characters of every class the scanner tells apart, including the awkward ones. */
const ALPHABET = [
  'a',
  'e',
  's',
  't',
  'x',
  'Q',
  'A',
  'T',
  'Z',
  'the',
  'The',
  'THE',
  'function',
  'reservation',
  'HTTPServer',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u3000',
  '0',
  '7',
  '42',
  '٣',
  '²',
  '(',
  ')',
  '_',
  '.',
  '/',
  '-',
  '"',
  "'",
  "'s",
  "'ll",
  '{',
  '}',
  '=',
  'é',
  'ñ',
  'Ж',
  'ж',
  'Ω',
  'ǅ',
  'ʰ',
  '中',
  '文',
  'の',
  'カ',
  '한',
  '\u0301',
  '\ufe0f',
  '⚡',
  '✓',
  '→',
  '😀',
  '𠀀',
  '\ud800',
  '\udc00',
  // Runs that cost by their length: letters past the long-run length, punctuation past a few characters.
  'QQQQQQQQQQQQQQQQQQ',
  'zqxjvkzqxjvkzqxjvkzqxjvkzq',
  '&',
  '~',
  '\u0001',
  '\u0085',
  '…',
  '—',
];

describe('countTokenUnits', () => {
  it('weighs pieces: one per piece, more only for words a vocabulary would split', () => {
    expect(countTokenUnits('')).toBe(0);
    expect(common.has('function')).toBe(true);
    expect(common.has('reservation')).toBe(false);
    expect(countTokenUnits('function')).toBe(1);
    expect(countTokenUnits(' Function')).toBe(1);
    expect(countTokenUnits(' reservation')).toBe(1); // a word after a space: prose
    expect(countTokenUnits('reservation')).toBe(1 + 11 / 8); // an identifier part
    expect(countTokenUnits('_reservation')).toBe(1 + 11 / 8 + 1 / 2);
    expect(countTokenUnits(' internationalization')).toBe(1 + (20 - 12) / 8);
    expect(countTokenUnits('JFK')).toBe(1);
    expect(countTokenUnits('(JFK')).toBe(3 / 2);
    expect(countTokenUnits(' WARRANTY')).toBe(1 + 5 / 4); // capitals past the third: o200k 2.3 at 8 letters
    expect(countTokenUnits('123456')).toBe(2);
    expect(countTokenUnits('1234567')).toBe(3);
    expect(countTokenUnits('    ')).toBe(1);
    expect(countTokenUnits('{\n')).toBe(1); // o200k glues newlines to the punctuation before them
    expect(countTokenUnits('  return x;\n')).toBe(4); // ' ', ' return', ' x', ';\n'
    expect(countTokenUnits(" don't")).toBe(3 / 2);
    expect(countTokenUnits('中文')).toBe(5 / 2);
    expect(countTokenUnits('Привет')).toBe(1 + 6 / 4);
    expect(countTokenUnits('😀😀😀')).toBe(6); // o200k 3, cl100k and Claude's published tokenizer 6
    expect(countTokenUnits(');')).toBe(1);
    expect(countTokenUnits('"]}]}')).toBe(1 + 3 / 8 + 3 / 8);
    expect(countTokenUnits('='.repeat(40))).toBe(1 + 37 / 16); // separator lines merge by the dozen
    expect(countTokenUnits('&'.repeat(40))).toBe(1 + 37 / 2); // other punctuation by pairs
  });

  it('weighs long unbroken runs of any kind by their length, as tokenizers cut them', () => {
    const o200k = createExactCounter('o200k');
    // One letter repeated, random capitals, random lowercase, random punctuation, control characters:
    // o200k covers 1–2 characters per token in each; each was one unit (or one per 8 letters) before.
    const random = (alphabet: string, length: number) => {
      let state = 7;
      let text = '';
      for (let index = 0; index < length; index++) {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        text += alphabet[(state >>> 16) % alphabet.length];
      }
      return text;
    };
    const runs = {
      oneCapital: 'Q'.repeat(100_000),
      capitals: random('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 20_000),
      lowercase: random('abcdefghijklmnopqrstuvwxyz', 20_000),
      punctuation: random('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', 20_000),
      control: random('\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008', 20_000),
    };
    for (const [kind, text] of Object.entries(runs)) {
      const ratio = countTokenUnits(text) / o200k.count(text);
      expect(ratio, kind).toBeGreaterThan(0.85);
      expect(ratio, kind).toBeLessThan(1.3);
    }
    expect(countTokenUnits('Q'.repeat(100_000))).toBe(1 + 13 / 4 + (100_000 - 16) * (9 / 16));
    // Real long words stay what they were: identifiers up to 24 letters, prose words too.
    expect(countTokenUnits('getincrementalencoder')).toBe(1 + 21 / 8);
    expect(countTokenUnits(' internationalization')).toBe(1 + 8 / 8);
  });

  it('cuts text exactly as o200k’s pre-tokenizer does', () => {
    const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (sample) => {
        expect(countTokenUnits(sample)).toBe(referenceUnits(sample));
      }),
      { numRuns: 1_000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (sample) => {
        expect(countTokenUnits(sample)).toBe(referenceUnits(sample));
      }),
    );
  });

  it('counts a text the same whatever it was built from, before and after longer and shorter texts', () => {
    const flat = 'const reservationId = "NM1VX1"; // 中文 😀\n\tnext_line();\n'.repeat(40);
    const expected = referenceUnits(flat);
    const parent = `«${flat}»`;
    const sliced = parent.slice(1, -1);
    const joined = `${flat.slice(0, 777)}${flat.slice(777)}`;
    expect(countTokenUnits(flat)).toBe(expected);
    expect(countTokenUnits('x'.repeat(50_000))).toBe(referenceUnits('x'.repeat(50_000)));
    expect(countTokenUnits(sliced)).toBe(expected);
    expect(countTokenUnits(joined)).toBe(expected);
    expect(countTokenUnits('ab')).toBe(referenceUnits('ab'));
    expect(countTokenUnits('\uD83D')).toBe(referenceUnits('\uD83D'));
    expect(countTokenUnits(`${flat}\uD83D`)).toBe(referenceUnits(`${flat}\uD83D`));
  });

  it('counts texts of over a million characters like any other', () => {
    const unit = 'word, Identifier_2 ';
    const per = countTokenUnits(unit.repeat(2_000)) - countTokenUnits(unit.repeat(1_000));
    const long = unit.repeat(100_000);
    expect(long.length).toBeGreaterThan(1 << 20);
    expect(countTokenUnits(long)).toBe(countTokenUnits(unit.repeat(1_000)) + 99 * per);
  });

  it('adds up exactly: a text’s units are the sum of its pieces’ (all weights are multiples of 1/16)', () => {
    const pieces = ['first line\n', '  const reservationId = "NM1VX1";\n', '中文 ', '😀', ' done'];
    const whole = countTokenUnits(pieces.join(''));
    expect(whole * 16).toBe(Math.round(whole * 16));
    for (const piece of pieces) expect((countTokenUnits(piece) * 16) % 1).toBe(0);
  });

  it('stays close to real token counts on text of different kinds, where characters do not', () => {
    const o200k = createExactCounter('o200k');
    const samples = {
      prose:
        'When a request arrives after a long pause, the agent first checks whether the earlier summary still describes the work, then decides which files to open again before it answers the question.',
      code: `export function historyBudget(regions: Omit<BudgetRegions, 'history'>): number {\n  return (\n    regions.contextWindow -\n    regions.system -\n    regions.summary -\n    regions.toolDefinitions -\n    regions.maxOutputTokens\n  );\n}\n`,
      json: '{"order_id": "QX7T2P", "customer": "maria_lopez_4821", "items": [{"sku": "BK-2231", "qty": 2, "price": 18.5}], "shipping": {"method": "express", "eta": "2025-03-14"}, "status": "pending"}',
      log: '$ npm test -- budget\n\n FAIL  src/core/budget/budget.test.ts > budget regions\nAssertionError: expected 103001 to be less than or equal to 103000\n    at src/core/budget/budget.test.ts:31:42\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)\n',
    };
    const perUnit = Object.values(samples).map((text) => o200k.count(text) / countTokenUnits(text));
    const perChar = Object.values(samples).map((text) => o200k.count(text) / text.length);
    const spread = (values: number[]) => Math.max(...values) / Math.min(...values) - 1;
    expect(spread(perUnit)).toBeLessThan(0.08);
    expect(spread(perChar)).toBeGreaterThan(0.4);
  });
});
