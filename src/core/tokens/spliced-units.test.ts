import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalibratedTokenCounter } from './calibrated-counter.ts';
import { createHeuristicCounter } from './heuristic-counter.ts';
import { countSplice, joinSplice, measureSplice, measureWithMarks } from './spliced-units.ts';
import type { Splice } from './token-counter.ts';
import { countDenseBytes } from './token-floor.ts';
import { countTokenUnits } from './token-units.ts';

/** Pieces that meet at cuts in every way the scanner cares about: words, runs, digits, surrogates. */
const fragment = fc.constantFrom(
  'word',
  'Word',
  'WORD',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '\t',
  '   \n  ',
  "'s",
  "don't",
  '123',
  '4567',
  '.',
  '...',
  '---',
  '====',
  '});',
  '/',
  '//',
  'é',
  'Ünï',
  '中文',
  'かな',
  '😀',
  '\uD83D',
  '\uDE00',
  '\u0301',
  '\u0007',
  '→',
  'camelCase',
  'snake_case',
  'https://example.com/a?b=c',
);
const text = (max: number) => fc.array(fragment, { maxLength: max }).map((parts) => parts.join(''));

/** A splice of `source`: ranges (in order or not) and own text between them. */
const spliceOf = (source: string) =>
  fc.array(
    fc.oneof(
      text(6),
      fc
        .tuple(fc.nat({ max: source.length }), fc.nat({ max: source.length }))
        .map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) })),
    ),
    { maxLength: 5 },
  );

const measureJoined = (source: string, splice: Splice) => {
  const joined = joinSplice(source, splice);
  return { units: countTokenUnits(joined), denseBytes: countDenseBytes(joined) };
};

describe('measureSplice', () => {
  it('measures a splice exactly as its joined text, whatever is cut where', () => {
    fc.assert(
      fc.property(
        text(400).chain((source) =>
          fc.tuple(fc.constant(source), spliceOf(source), fc.integer({ min: 4, max: 64 })),
        ),
        ([source, splice, spacing]) => {
          const marks = measureWithMarks(source, spacing);
          expect(marks.units).toBe(countTokenUnits(source));
          expect(marks.denseBytes).toBe(countDenseBytes(source));
          expect(measureSplice(source, marks, splice)).toEqual(measureJoined(source, splice));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('measures head, notice and tail of long real text exactly', () => {
    const source = Array.from(
      { length: 4_000 },
      (_, index) => `${index}: src/module_${index % 97}.ts  ok in ${index * 3} ms — "quoted"\n\tdetail`,
    ).join('\n');
    const marks = measureWithMarks(source);
    for (const [head, tail] of [
      [0, source.length],
      [1, source.length - 1],
      [10_000, 200_000],
      [77_777, 77_778],
      [123_457, 130_001],
    ] as const) {
      const splice: Splice = [
        { from: 0, to: head },
        '\n\n[… clipped …]\n\n',
        { from: tail, to: source.length },
      ];
      expect(measureSplice(source, marks, splice)).toEqual(measureJoined(source, splice));
    }
  });
});

describe('countSplice', () => {
  it('counts as the joined text, from a calibrated counter and from one without splices', () => {
    const calibrated = new CalibratedTokenCounter({ priorTokensPerUnit: 1.3 });
    const heuristic = createHeuristicCounter(4);
    const source = 'alpha beta\n'.repeat(2_000);
    const splice: Splice = [
      '[header]\n',
      { from: 5, to: 12_000 },
      ' … ',
      { from: 19_000, to: source.length },
    ];
    const joined = joinSplice(source, splice);
    for (const counter of [calibrated, heuristic]) {
      const counted = countSplice(counter, source, splice);
      expect(counted.tokens).toBe(counter.count(joined));
      expect(counted.text()).toBe(joined);
    }
    // Counting the kept text again is a lookup: the memo remembered what the splice measured.
    expect(calibrated.count(joined)).toBe(countSplice(calibrated, source, splice).tokens);
  });
});
