import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { InvalidTokenCounterError } from '../errors/index.ts';
import {
  createExactCounter,
  EXACT_COUNT_MEMO_MIN_CHARS,
  EXACT_COUNT_MEMO_SLOTS,
  EXACT_COUNT_RECENT_TEXTS,
} from './exact-counter.ts';

describe('exact counters (gpt-tokenizer)', () => {
  const o200k = createExactCounter('o200k');
  const cl100k = createExactCounter('cl100k');

  it('gives the tokenizer’s counts for known strings', () => {
    expect(o200k.count('hello world')).toBe(2);
    expect(cl100k.count('tiktoken is great!')).toBe(6);
    // The encodings differ where it shows: o200k merges CJK far more.
    expect(o200k.count('你好，世界')).toBe(3);
    expect(cl100k.count('你好，世界')).toBe(6);
    expect(o200k.count('')).toBe(0);
  });

  it('agrees with encode().length on mixed text', () => {
    const text = 'function f(x) {\n  return x ** 2; // square\n}\nРусский текст, 日本語, emoji 🎉🎉.';
    expect(o200k.count(text)).toBe(encodeO200k(text).length);
    expect(cl100k.count(text)).toBe(encodeCl100k(text).length);
  });

  it('counts special-token-looking text in tool output as ordinary text instead of throwing', () => {
    expect(() => encodeO200k('<|endoftext|>')).toThrow();
    expect(o200k.count('<|endoftext|>')).toBe(7);
    expect(cl100k.count('<|endoftext|>')).toBe(7);
    const log = 'tokenizer output: <|im_start|>user ... <|im_end|> <|endofprompt|> <|fim_prefix|>';
    expect(o200k.count(log)).toBeGreaterThan(20);
  });

  it('names counters by encoding and refuses unknown encodings', () => {
    expect(o200k.name).toBe('o200k_base');
    expect(cl100k.name).toBe('cl100k_base');
    expect(o200k.charsPerToken).toBeUndefined();
    expect(() => createExactCounter('p50k' as never)).toThrow(InvalidTokenCounterError);
  });

  it('remembers the last long texts without ever giving a wrong count', () => {
    const counter = createExactCounter('o200k');
    const texts = Array.from(
      { length: EXACT_COUNT_MEMO_SLOTS + 3 },
      (_, index) => `${'x'.repeat(index)} ${'word '.repeat(EXACT_COUNT_MEMO_MIN_CHARS / 4 + index * 9)}`,
    );
    // Counted in an order that reuses some (memo hits), evicts others, and revisits evicted ones.
    const order = [0, 1, 0, 2, 3, 4, 5, 6, 1, 6, 0, 5, 5, 2];
    for (const index of order) {
      const text = texts[index] ?? '';
      // A copy built separately: equal content, a different string object.
      const copy = [...text].join('');
      expect(counter.count(text)).toBe(encodeO200k(text).length);
      expect(counter.count(copy)).toBe(encodeO200k(text).length);
    }
    const short = 'short text';
    expect(counter.count(short)).toBe(encodeO200k(short).length);
  });

  it('tells apart long texts alike but for one character, remembered or not', () => {
    const counter = createExactCounter('o200k');
    const base = 'word '.repeat(80);
    // One character apart, near the start and in the middle: a key that samples a text's characters
    // cannot see every one of them.
    const variants = [
      base,
      `${base.slice(0, 9)}X${base.slice(10)}`,
      `${base.slice(0, 201)}7${base.slice(202)}`,
    ];
    for (const index of [0, 1, 0, 2, 2, 1, 0, 1, 2]) {
      const text = variants[index] ?? '';
      expect(counter.count(text)).toBe(encodeO200k(text).length);
    }
  });

  it('stays right when remembered texts are dropped for their size', () => {
    const counter = createExactCounter('o200k');
    // Six texts of a million characters each: more than the memo keeps, so the oldest are dropped.
    const texts = Array.from({ length: 6 }, (_, index) => `${index} ${'lorem ipsum '.repeat(90_000)}`);
    const expected = texts.map((text) => counter.count(text));
    for (const index of [0, 5, 1, 4]) {
      expect(counter.count([...(texts[index] ?? '')].join(''))).toBe(expected[index]);
    }
    expect(expected[0]).toBe(encodeO200k(texts[0] ?? '').length);
  });

  it('remembers long texts without keeping the larger strings they were cut from alive', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const counter = createExactCounter('cl100k');
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let index = 0; index < 40; index++) {
      const large = `${index} ${'a fairly long line of text '.repeat(30_000)}`;
      counter.count(large.slice(0, 300));
    }
    gc();
    // 40 strings of 810,000 characters (65 MB as UTF-16) were cut from; what stays is the cuts' own size.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8_000_000);
  });

  it('holds only the newest texts counted as they were given, and lets them go as others are counted', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const counter = createExactCounter('cl100k');
    const parentBytes = 4_000_000;
    gc();
    const before = process.memoryUsage().heapUsed;
    // Each cut counted twice: the second count copies it into the memo, and its parent can go.
    for (let index = 0; index < 20; index++) {
      const parent = `${index} ${'x'.repeat(parentBytes)}`;
      const cut = parent.slice(0, 400);
      expect(counter.count(cut)).toBe(counter.count(parent.slice(0, 400)));
    }
    // Cuts counted once stay as given while they are among the newest: their parents with them.
    for (let index = 0; index < 20; index++)
      counter.count(`${index} ${'y'.repeat(parentBytes)}`.slice(0, 400));
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(held).toBeGreaterThan((EXACT_COUNT_RECENT_TEXTS - 1) * parentBytes);
    expect(held).toBeLessThan((EXACT_COUNT_RECENT_TEXTS + 1) * parentBytes);
    // Newer texts push them out.
    for (let index = 0; index < EXACT_COUNT_RECENT_TEXTS; index++)
      counter.count(`${index} ${'z '.repeat(200)}`);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(parentBytes);
  });
});
