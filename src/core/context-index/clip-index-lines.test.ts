import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipIndexLines } from './clip-index-lines.ts';

/** One token per character: easy to reason about. */
const count = (text: string): number => text.length;
const notice = (omitted: number, total: number) => `[${omitted}/${total} left out]`;
const lines = Array.from({ length: 20 }, (_, index) => `line ${String(index).padStart(2, '0')}`);

describe('clipIndexLines', () => {
  it('keeps every line when they fit', () => {
    expect(clipIndexLines(lines, { maxTokens: 1_000, headFraction: 0.5, count, notice })).toEqual({
      lines,
      omitted: 0,
    });
  });

  it('keeps whole lines from the head and the tail, one notice between them, within the cap', () => {
    const maxTokens = 60;
    const clipped = clipIndexLines(lines, { maxTokens, headFraction: 0.25, count, notice });
    expect(clipped.omitted).toBeGreaterThan(0);
    const noticeAt = clipped.lines.findIndex((line) => line.startsWith('['));
    expect(clipped.lines[noticeAt]).toBe(`[${clipped.omitted}/20 left out]`);
    const head = clipped.lines.slice(0, noticeAt);
    const tail = clipped.lines.slice(noticeAt + 1);
    // Every kept line is a line of the source, whole, and in order: a prefix and a suffix.
    expect(head).toEqual(lines.slice(0, head.length));
    expect(tail).toEqual(lines.slice(lines.length - tail.length));
    expect(head.length + tail.length + clipped.omitted).toBe(lines.length);
    expect(tail.length).toBeGreaterThan(head.length);
    expect(clipped.lines.reduce((sum, line) => sum + count(`${line}\n`), 0)).toBeLessThanOrEqual(maxTokens);
  });

  it('keeps only the head when headFraction is 1', () => {
    const clipped = clipIndexLines(lines, { maxTokens: 40, headFraction: 1, count, notice });
    expect(clipped.lines.at(-1)).toBe(`[${clipped.omitted}/20 left out]`);
    expect(clipped.lines.slice(0, -1)).toEqual(lines.slice(0, clipped.lines.length - 1));
  });

  it('never cuts a line, even one longer than the whole cap: it is left out', () => {
    const long = ['short', 'x'.repeat(500), 'end'];
    const clipped = clipIndexLines(long, { maxTokens: 30, headFraction: 0.5, count, notice });
    for (const line of clipped.lines) expect(long.includes(line) || line.startsWith('[')).toBe(true);
    expect(clipped.lines).not.toContain(long[1]);
  });

  it('with headFraction 1 no line follows the notice, whatever the lines weigh', () => {
    const mixed = ['a', 'a much longer line here', 'b', 'c', 'd', 'e', 'another long line of text', 'f', 'g'];
    for (let maxTokens = 20; maxTokens <= 60; maxTokens++) {
      const clipped = clipIndexLines(mixed, { maxTokens, headFraction: 1, count, notice });
      if (clipped.omitted === 0) continue;
      expect(clipped.lines.at(-1)).toBe(`[${clipped.omitted}/${mixed.length} left out]`);
    }
  });

  it('property: never over the cap, and nothing at all when not even the notice fits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (source, maxTokens, headFraction) => {
          const clipped = clipIndexLines(source, { maxTokens, headFraction, count, notice });
          const cost = clipped.lines.reduce((sum, line) => sum + count(`${line}\n`), 0);
          expect(cost).toBeLessThanOrEqual(maxTokens);
          if (clipped.lines.length === 0) expect(clipped.omitted).toBe(source.length);
        },
      ),
    );
  });
});
