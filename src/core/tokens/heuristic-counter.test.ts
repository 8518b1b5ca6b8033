import { describe, expect, it } from 'vitest';
import { CtxkitError, InvalidTokenCounterError } from '../errors/index.ts';
import { countRunes } from './count-runes.ts';
import {
  CHARS_PER_TOKEN_SEED_001,
  CHARS_PER_TOKEN_SEED_004,
  createHeuristicCounter,
} from './heuristic-counter.ts';

describe('countRunes', () => {
  it('counts code points, not UTF-16 units or bytes', () => {
    expect(countRunes('')).toBe(0);
    expect(countRunes('héllo')).toBe(5);
    expect(countRunes('日本語')).toBe(3);
    expect(countRunes('😀')).toBe(1);
    expect('😀'.length).toBe(2);
    expect(countRunes('👍🏽')).toBe(2); // thumbs up + skin-tone modifier
    expect(countRunes('𠀀𠀁')).toBe(2); // CJK extension B, outside the BMP
  });

  it('counts lone surrogates as one rune each', () => {
    expect(countRunes('\ud800')).toBe(1);
    expect(countRunes('\ud800a')).toBe(2);
    expect(countRunes('a\udc00')).toBe(2);
    expect(countRunes('\udc00\ud800')).toBe(2);
  });
});

describe('heuristic counter', () => {
  it('is ceil(runes / 4) by default (tiancai, digitorn) and ceil(runes / 2.5) for picoclaw', () => {
    expect(CHARS_PER_TOKEN_SEED_001).toBe(4);
    expect(CHARS_PER_TOKEN_SEED_004).toBe(2.5);
    const four = createHeuristicCounter();
    const twoAndAHalf = createHeuristicCounter(CHARS_PER_TOKEN_SEED_004);
    expect(four.count('abcd')).toBe(1);
    expect(four.count('abcde')).toBe(2);
    expect(twoAndAHalf.count('abcde')).toBe(2);
    expect(twoAndAHalf.count('abcdef')).toBe(3);
    expect(four.count('')).toBe(0);
    expect(four.name).toBe('chars/4');
    expect(twoAndAHalf.charsPerToken).toBe(2.5);
  });

  it('is rune-aware: emoji and astral CJK are not double-counted', () => {
    const four = createHeuristicCounter(4);
    expect(four.count('😀😀😀😀')).toBe(1); // 8 UTF-16 units, 4 runes
    expect(four.count('𠀀𠀁𠀂𠀃𠀄')).toBe(2); // 10 units, 5 runes
    expect(four.count('日本語のテキスト')).toBe(2); // 8 runes, 24 UTF-8 bytes
  });

  it('takes any positive N and refuses the rest with a stable code', () => {
    expect(createHeuristicCounter(3).count('abcdefg')).toBe(3);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const attempt = () => createHeuristicCounter(bad);
      expect(attempt).toThrow(InvalidTokenCounterError);
      try {
        attempt();
      } catch (error) {
        expect(error).toBeInstanceOf(CtxkitError);
        expect((error as CtxkitError).code).toBe('invalid_token_counter');
      }
    }
  });
});
