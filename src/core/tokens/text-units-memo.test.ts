import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalibratedTokenCounter } from './calibrated-counter.ts';
import { TextUnitsMemo } from './text-units-memo.ts';
import { countDenseBytes, tokenFloor } from './token-floor.ts';
import { countTokenUnits } from './token-units.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const PIECES = ['word ', 'Identifier', '  ', '\n', '{"k":1}', '12345', '日本語', '🙂', '-->', 'x'];

describe('TextUnitsMemo', () => {
  it('counts what countTokenUnits counts, asked once or again, short or long', () => {
    const text = fc
      .array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 1_200 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), (texts) => {
        const memo = new TextUnitsMemo({ maxChars: 20_000 });
        for (const sample of [...texts, ...texts, ...[...texts].reverse()]) {
          expect(memo.units(sample)).toBe(countTokenUnits(sample));
          expect(memo.denseBytes(sample)).toBe(countDenseBytes(sample));
        }
        expect(memo.heldChars).toBeLessThanOrEqual(20_000);
      }),
      { numRuns: 60 },
    );
  });

  it('tells apart long texts of the same length that differ in one character', () => {
    // Past 16,383 characters V8 hashes a string by its length: such texts share a bucket.
    const length = 40_000;
    const words = 'lorem '.repeat(length / 6);
    const other = `${words.slice(0, 20_000)}{}{}{}${words.slice(20_006)}`;
    expect(words.length).toBe(other.length);
    const memo = new TextUnitsMemo();
    expect(memo.units(words)).toBe(countTokenUnits(words));
    expect(memo.units(other)).toBe(countTokenUnits(other));
    expect(memo.units(other)).not.toBe(memo.units(words));
  });

  it('holds at most its bound of characters, and copies, not the strings they were cut from', () => {
    const memo = new TextUnitsMemo({ maxChars: 2_000_000 });
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let sum = 0;
    for (let index = 0; index < 60; index++) {
      // Each slice is new text (its index in front), cut from a 2.1 MB string.
      const parent = `${index}:${'ab '.repeat(700_000)}`;
      sum += memo.units(parent.slice(0, 300_000));
    }
    collectGarbage();
    const retained = process.memoryUsage().heapUsed - before;
    expect(sum).toBeGreaterThan(0);
    expect(memo.heldChars).toBeLessThanOrEqual(2_000_000);
    // 60 parents are 126 MB and the 60 slices 18 MB; the memo holds 2 M one-byte characters at most.
    expect(retained).toBeLessThan(8_000_000);
  });
});

describe('a calibrated counter', () => {
  it('counts a text the same the first time and from its memo', () => {
    const text = 'counted once, then remembered '.repeat(100);
    const counter = new CalibratedTokenCounter();
    const fresh = new CalibratedTokenCounter();
    const first = counter.count(text);
    expect(counter.tokenUnits(text)).toBe(countTokenUnits(text));
    expect(counter.count(text)).toBe(first);
    expect(fresh.count(text)).toBe(first);
  });

  it('counts long texts as its definition says, the byte floor included where it binds', () => {
    const counter = new CalibratedTokenCounter();
    const texts = [
      'plain words and code(); '.repeat(200),
      'ẞ̶̢͎𝕏🙂中'.repeat(400),
      '\u0001\u0002'.repeat(2_000),
      '-'.repeat(10_000),
    ];
    const separators = '-'.repeat(10_000);
    expect(tokenFloor(separators)).toBeGreaterThan(
      Math.ceil(countTokenUnits(separators) * counter.tokensPerUnit),
    );
    for (const text of [...texts, ...texts]) {
      const expected = Math.max(Math.ceil(countTokenUnits(text) * counter.tokensPerUnit), tokenFloor(text));
      expect(counter.count(text)).toBe(expected);
    }
  });

  it('measures a splice as its joined text, and remembers the one joined after it was measured', () => {
    const source = Array.from({ length: 600 }, (_, index) => `line ${index}: value=${index * 7}`).join('\n');
    const splices = [
      [{ from: 0, to: 3_000 }, '\n[… cut …]\n', { from: 9_000, to: source.length }],
      ['header\n', { from: 17, to: source.length - 5 }],
      [{ from: 100, to: 200 }],
    ] as const;
    // Marked (remembered with marks), too short for marks, and too long to remember.
    for (const memo of [
      new TextUnitsMemo({ maxChars: 100_000 }),
      new TextUnitsMemo({ maxChars: 100_000, minChars: 20_000 }),
      new TextUnitsMemo({ maxChars: 20_000 }),
    ]) {
      for (const splice of splices) {
        const joined = splice
          .map((part) => (typeof part === 'string' ? part : source.slice(part.from, part.to)))
          .join('');
        expect(memo.spliced(source, splice)).toEqual({
          units: countTokenUnits(joined),
          denseBytes: countDenseBytes(joined),
        });
        expect(memo.join(source, splice)).toBe(joined);
      }
    }
    const memo = new TextUnitsMemo();
    const splice = splices[0];
    memo.spliced(source, splice);
    const held = memo.heldChars;
    const joined = memo.join(source, splice);
    expect(memo.heldChars).toBe(held + joined.length);
    expect(memo.units(joined)).toBe(countTokenUnits(joined));
  });

  it('refuses a memo bound that is not a count of characters', () => {
    expect(() => new TextUnitsMemo({ maxChars: -1 })).toThrow(/maxChars/);
    expect(() => new TextUnitsMemo({ minChars: 1.5 })).toThrow(/minChars/);
  });
});
