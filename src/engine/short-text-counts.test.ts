import { describe, expect, it } from 'vitest';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { SHORT_TEXT_MAX_CHARS, ShortTextCounts } from './short-text-counts.ts';

const LONGER_MAX_CHARS = 2_000;

function countingCounter(): TokenCounter & { calls: number } {
  const inner = createHeuristicCounter(4);
  const counter = {
    name: inner.name,
    calls: 0,
    count(text: string) {
      counter.calls++;
      return inner.count(text);
    },
  };
  return counter;
}

describe('ShortTextCounts', () => {
  it('asks the counter once per text up to its length, every time past it, and again under another counter', () => {
    const counter = countingCounter();
    const counts = new ShortTextCounts(LONGER_MAX_CHARS);
    const item = 'x'.repeat(SHORT_TEXT_MAX_CHARS * 2);
    const long = 'y'.repeat(LONGER_MAX_CHARS + 1);
    expect(counts.count(item, counter)).toBe(counter.count(item));
    counter.calls = 0;
    counts.count(item, counter);
    counts.count(item, counter);
    expect(counter.calls).toBe(0);
    counts.count(long, counter);
    counts.count(long, counter);
    expect(counter.calls).toBe(2);
    const other = countingCounter();
    counts.count(item, other);
    expect(other.calls).toBe(1);
    // The default instance remembers only short texts.
    const short = new ShortTextCounts();
    short.count(item, counter);
    short.count(item, counter);
    expect(counter.calls).toBe(4);
  });
});
