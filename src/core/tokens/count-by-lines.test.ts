import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { LONG_SESSION, loadCorpusSession } from '../../testing/corpus.ts';
import { COUNT_BY_LINES_MAX_CHARS, createLineCounter, LINE_PART_MEMO_MIN_CHARS } from './count-by-lines.ts';
import { exactCountFunction } from './exact-counter.ts';

const whole = exactCountFunction('o200k');

/** Fragments that meet at line breaks in every way the pre-tokenizer treats differently. */
const FRAGMENTS = [
  'const x = 1;',
  '  indented with spaces  ',
  '\tTabbed',
  'done.',
  '});',
  '/usr/bin/env node',
  '// comment',
  '[#12 tool]',
  '← result of bash:',
  'Ünïcödé wörds and 日本語のテキスト',
  "it's what they've said",
  '12345678901',
  'ends in a digit 7',
  'café',
  "can't",
  '',
  ' ',
  '\r',
  '...',
  '"quoted": "value",',
  'x'.repeat(LINE_PART_MEMO_MIN_CHARS + 5),
  `${'word '.repeat(20)}end`,
];

describe('counting by lines (o200k)', () => {
  it('gives the whole text’s count for any mix of lines', () => {
    const lines = createLineCounter(whole);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }),
        fc.array(fc.constantFrom('\n', '\n\n', '\r\n', ' \n', '\n ', '\n/', '.\n', '\n\t', '\n\n\n'), {
          maxLength: 40,
        }),
        (parts, breaks) => {
          const text = parts.map((part, index) => `${part}${breaks[index] ?? '\n'}`).join('');
          expect(lines(text)).toBe(encodeO200k(text).length);
          // Again, from remembered parts.
          expect(lines(text)).toBe(encodeO200k(text).length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the whole count for a recorded session’s texts, alone and joined as a prompt joins them', () => {
    const lines = createLineCounter(whole);
    const texts = loadCorpusSession(LONG_SESSION).messages.flatMap((message) =>
      message.parts.flatMap((part) =>
        part.type === 'text' ? [part.text] : part.type === 'tool-result' ? [part.content] : [],
      ),
    );
    for (const text of texts.slice(0, 300)) expect(lines(text)).toBe(whole(text));
    for (let index = 0; index + 4 < 300; index += 4) {
      const prompt = `<transcript>\n${texts.slice(index, index + 4).join('\n\n')}\n</transcript>`;
      expect(lines(prompt)).toBe(whole(prompt));
    }
  });

  it('tells apart two parts whose keys in the memo are the same', () => {
    // Found by search: equal length, the same 32-bit key, different counts (8 and 9).
    const [first, second] = ['a line of text 00cbp', 'a line of text 05l2m'];
    expect(encodeO200k(first).length).not.toBe(encodeO200k(second).length);
    const lines = createLineCounter(whole);
    for (const text of [first, second, first, `${second}\n${first}\n`, second])
      expect(lines(text)).toBe(encodeO200k(text).length);
  });

  it('counts a text past the size limit whole', () => {
    let calls = 0;
    const lines = createLineCounter((text) => {
      calls++;
      return whole(text);
    });
    const text = 'line of text\n'.repeat(Math.ceil(COUNT_BY_LINES_MAX_CHARS / 13) + 1);
    expect(lines(text)).toBe(whole(text));
    expect(calls).toBe(1);
  });

  it('remembers parts without keeping the texts they were cut from alive', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const lines = createLineCounter((text) => text.length);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let index = 0; index < 40; index++)
      lines(`header line ${index} with a few words\n${'filler text 12345\n'.repeat(40_000)}`);
    gc();
    // 40 texts of 720,000 characters (57 MB as UTF-16) went through; what stays is the parts' own size.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8_000_000);
  });
});
