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

  it('refuses what JSON.parse refuses, a few characters changed anywhere, whatever the sizes of the parts', async () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.boolean(),
      fc.constantFrom('[', ']', '{', '}', ',', ':', '"', ' ', '1', '\\', 'x', '\n', '"a":', '[1]', '{}'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 5 }), { maxLength: 6 }),
        fc.constantFrom(0, 2),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        fc.record({ wholeBelow: fc.integer({ min: 1, max: 8 }), runChars: fc.integer({ min: 1, max: 8 }) }),
        async (value, indent, edits, sizes) => {
          let text = JSON.stringify(value, null, indent);
          for (const [at, replace, what] of edits) {
            const index = at % (text.length + 1);
            text = text.slice(0, index) + what + text.slice(replace ? index + 1 : index);
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            await expect(parseJsonInSlices(text, { ...sizes, maxDepth: 64 })).rejects.toThrow(SyntaxError);
            return;
          }
          expect(await parseJsonInSlices(text, { ...sizes, maxDepth: 64 })).toEqual({ value: parsed });
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('tells where in the whole text the fault is, as JSON.parse tells it', async () => {
    const messages = Array.from({ length: 5_000 }, (_, index) => ({
      role: 'user',
      content: `message ${index}`,
    }));
    const text = JSON.stringify({ model: 'm', messages }, null, 2);
    const faults = [
      text.replace('"message 4000"', '"message \\x 4000"'),
      text.replace('"message 4000"', '"message 4000" "x"'),
      text.replace('"message 4000"', '"message\n4000"'),
      text.replace('"message 4000"', '[1}'),
      text.replace(/}\s*$/, '} x'),
    ];
    for (const fault of faults) {
      const refusal = (() => {
        try {
          JSON.parse(fault);
        } catch (error) {
          return (error as Error).message;
        }
      })();
      // Counted from the part's start, "position 14" stood for one at 200,000.
      expect(refusal).toMatch(/at position \d{6} \(line \d+ column \d+\)$/);
      await expect(parseJsonInSlices(fault, { wholeBelow: 1_000, runChars: 500 })).rejects.toThrow(
        new SyntaxError(refusal),
      );
    }
  });

  it('takes time in proportion to the length of the text, however deep it nests', async () => {
    const messages = Array.from({ length: 40_000 }, (_, index) => ({
      role: 'user',
      content: `message ${index}`,
    }));
    const inner = JSON.stringify({ model: 'm', messages });
    const nested = (depth: number): string => {
      let text = inner;
      for (let level = 1; level < depth; level++) text = level % 2 === 0 ? `{"k": ${text}}` : `[${text}, 1]`;
      return text;
    };
    const best = async (text: string): Promise<number> => {
      let fastest = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        await parseJsonInSlices(text);
        fastest = Math.min(fastest, performance.now() - started);
      }
      return fastest;
    };
    const shallow = nested(1);
    const deep = nested(120);
    expect(shallow.length).toBeGreaterThan(1_000_000);
    expect(await parseJsonInSlices(deep)).toEqual({ value: JSON.parse(deep) });
    // A pass over the text per level took 120 times one (2 MB: 1.4 s against 20 ms).
    expect(await best(deep)).toBeLessThan(4 * Math.max(await best(shallow), 5));
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
