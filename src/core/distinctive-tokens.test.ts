import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distinctiveTokens, pointerKeys } from './distinctive-tokens.ts';

describe('pointerKeys', () => {
  const output = [
    'collected 12 items',
    'tests/test_parser.py::test_header FAILED',
    'src/parser/header.py:41: in parse_header',
    "E   KeyError: 'content-length'",
    'commit 9f3e2a17bc',
  ].join('\n');

  it('keeps the first error line, then file:line references, paths, hashes and identifiers', () => {
    const keys = pointerKeys(output, 400);
    expect(keys.startsWith('tests/test_parser.py::test_header FAILED')).toBe(true);
    for (const key of ['src/parser/header.py:41', '9f3e2a17bc', 'parse_header']) expect(keys).toContain(key);
    // The path is not repeated after its file:line reference.
    expect(keys.split(', ').filter((key) => key === 'src/parser/header.py')).toEqual([]);
  });

  it('stays within its budget and keeps whole keys; 0 keeps nothing', () => {
    expect(pointerKeys(output, 0)).toBe('');
    for (const max of [10, 40, 60, 100]) {
      const keys = pointerKeys(output, max);
      expect(keys.length).toBeLessThanOrEqual(max);
      for (const key of keys ? keys.split(', ') : []) expect(output).toContain(key.replace(/…$/, ''));
    }
  });

  it('never puts a bracket in the pointer, whatever the output holds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.integer({ min: 0, max: 300 }), (text, max) => {
        const keys = pointerKeys(`${text}\nerror [x] ${text}`, max);
        expect(keys).not.toMatch(/[[\]]/);
        expect(keys.length).toBeLessThanOrEqual(max);
      }),
    );
  });
});

describe('pointerKeys on hostile output', () => {
  it('keeps no control character, and never ends a clipped error line inside a surrogate pair', () => {
    const keys = pointerKeys('Error: bad \u0007bell \u001b[31mred\u001b[0m \u0000nul\ttab src/a.ts:3', 500);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
    expect(keys).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(keys).toContain('src/a.ts:3');
    const emoji = pointerKeys(`Error:  ${'😀'.repeat(200)}`, 500);
    expect(emoji.endsWith('…')).toBe(true);
    expect(emoji.slice(0, -1)).toMatch(/^Error: {2}(?:😀)+$/u);
  });
});

describe('distinctiveTokens', () => {
  it('takes codes of letters and digits mixed (reservations, flights), not plain words or numbers', () => {
    expect(
      distinctiveTokens('{"reservation_id":"NM1VX1"} flight HAT300 on 2024-05-01, price 12345, status ok'),
    ).toEqual(new Set(['reservation_id', 'NM1VX1', 'HAT300']));
  });

  it('finds a token wherever it stands in a long line, and passes over pieces too long to be one', () => {
    const long = `${'x'.repeat(100_000)} see src/core/view.ts:42 ${'a_b/'.repeat(5_000)}`;
    expect(distinctiveTokens(long)).toEqual(new Set(['src/core/view.ts', 'src/core/view.ts:42']));
  });
});

describe('pointerKeys: the error line', () => {
  const ERROR_WORDS = /\b(error|exception|traceback|failed|failure|fatal|panic)\b/i;
  const lines = [
    'ok',
    '',
    '  ',
    'xerror y',
    'the Error here',
    'FAILED tests',
    'panicky',
    'at traceback:',
    '\r',
  ];
  const text = fc
    .tuple(fc.boolean(), fc.array(fc.constantFrom(...lines), { maxLength: 12 }))
    .map(([far, picked]) =>
      [...(far ? Array.from({ length: 1_998 }, () => 'ok') : []), ...picked].join('\n'),
    );

  it('is the first of the first 2,000 lines that reports a failure, as a line-by-line search finds it', () => {
    fc.assert(
      fc.property(text, (content) => {
        const line = content
          .split('\n', 2_000)
          .find((each) => ERROR_WORDS.test(each))
          ?.trim();
        const keys = pointerKeys(content, 400);
        if (line) expect(keys.startsWith(line)).toBe(true);
        else
          expect(
            lines.filter((each) => ERROR_WORDS.test(each)).some((each) => keys.includes(each.trim())),
          ).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});
