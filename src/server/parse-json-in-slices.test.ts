import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WorkSlices } from '../core/work-slices.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import { type ParsedJson, parseJsonInSlices } from './parse-json-in-slices.ts';
import { pathPastDepth } from './read-body.ts';

/** Parts of a few characters: every container of these texts is taken apart. */
const TINY = { wholeBelow: 8, runChars: 16 };

/** What `JSON.parse` and the depth check made of a text, as the proxy did before. */
function atOnce(text: string, maxDepth = 128): ParsedJson {
  const value: unknown = JSON.parse(text);
  const tooDeep = pathPastDepth(value, maxDepth);
  return tooDeep === undefined ? { value } : { tooDeep };
}

describe('parseJsonInSlices', () => {
  it('gives what JSON.parse gives, for any JSON however it is spaced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom(0, 1, 2), async (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(await parseJsonInSlices(text, TINY)).toEqual({ value: JSON.parse(text) });
      }),
      { numRuns: 400 },
    );
  });

  it('keeps what JSON.parse keeps: the last of a repeated key in the first one’s place, __proto__ as a key', async () => {
    const text =
      '{"b": [1, 2, 3], "__proto__": {"x": [1]}, "a": "first", "b": "again", "a": ["last"], "9": 0}';
    const parsed = (await parseJsonInSlices(text, TINY)) as { value: Record<string, unknown> };
    expect(parsed.value).toEqual(JSON.parse(text));
    expect(Object.keys(parsed.value)).toEqual(Object.keys(JSON.parse(text)));
    expect(Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed.value, '__proto__')).toBe(true);
  });

  it('refuses what JSON.parse refuses', async () => {
    const bad = [
      '[1,,2, 3, 4, 5, 6, 7, 8]',
      '[1, 2, 3, 4, 5, 6, 7, 8,]',
      '[, 1, 2, 3, 4, 5, 6, 7, 8]',
      '[1, 2, 3, 4, 5, 6, 7, 8 9]',
      '[1, 2, 3, 4, 5, 6, 7, 8}',
      '{"a": 1, "b": 2, "c": 3, "d"}',
      '{"a": 1, "b": 2, "c": 3, "d": }',
      '{"a": 1, "b": 2, "c": 3, 4: 5}',
      '[[1, 2, 3, 4, 5, 6]], [7]',
      '[[1, 2, 3, 4, 5, 6]] x',
      '["a string not closed, 1, 2, 3, 4, 5]',
      '[[1, 2, 3, 4, 5, 6]]]',
      '[{"a": [1, 2, 3, 4, 5, 6}]]',
      '[1, 2, 3, 4, 5, 6, 7, 8, "\\x"]',
      '{"a": [1, 2, 3, 4, 5, 6, 7, 8], "b": tru}',
    ];
    for (const text of bad) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      await expect(parseJsonInSlices(text, TINY), text).rejects.toThrow(SyntaxError);
    }
    // Any text, cut anywhere.
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.nat(), async (value, at) => {
        const whole = JSON.stringify(value);
        const text = whole.slice(0, at % (whole.length + 1));
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          await expect(parseJsonInSlices(text, TINY)).rejects.toThrow(SyntaxError);
          return;
        }
        expect(await parseJsonInSlices(text, TINY)).toEqual({ value: parsed });
      }),
      { numRuns: 400 },
    );
  });

  it('refuses a text nested past the bound with the path of a value past it', async () => {
    const deep = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
    const texts = [
      `{"model": "m", "messages": [{"role": "user", "content": ${deep(10)}}]}`,
      `{"model": "m", "messages": [1, 2, 3, {"content": [${deep(5)}, "x"]}, 5]}`,
      `[1, 2, 3, 4, ${deep(7)}, 5, 6, 7]`,
      `{"a": {"b": {"c": {"d": {"e": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}}}}`,
      `{"a": {"b": [1, 2, 3, 4]}, "c": {"d": [5, 6, 7, 8]}}`,
    ];
    for (const text of texts) {
      expect(await parseJsonInSlices(text, { ...TINY, maxDepth: 4 }), text).toEqual(atOnce(text, 4));
    }
    // Of several, the first in the text (the check after JSON.parse named the last it walked).
    const two = `[${deep(7)}, 2, ${deep(7)}]`;
    expect(await parseJsonInSlices(two, { ...TINY, maxDepth: 4 })).toEqual({ tooDeep: '[0][0][0][0]' });
    expect(atOnce(two, 4)).toEqual({ tooDeep: '[2][0][0][0]' });
    // A million deep does not take a million frames.
    const million = deep(1_000_000);
    expect(await parseJsonInSlices(million, { wholeBelow: 1_000 })).toEqual({ tooDeep: '[0]'.repeat(128) });
  });

  it('gives the event loop turns while it parses 8 MB of small messages', async () => {
    const messages = Array.from({ length: 200_000 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index}`,
    }));
    const text = JSON.stringify({ model: 'gpt-4o', messages, stream: false });
    const turns = new EventLoopTurns();
    let now = 0;
    // A slice per look at the clock: every run of elements ends with a turn.
    const parsed = await parseJsonInSlices(text, { slices: new WorkSlices(1, () => now++) });
    turns.stop();
    expect(parsed).toEqual({ value: JSON.parse(text) });
    expect(turns.count).toBeGreaterThan(50);
  });
});
