import { describe, expect, it } from 'vitest';
import type { Message } from '../message.ts';
import { CalibratedTokenCounter } from './calibrated-counter.ts';
import { estimateContextTokens } from './estimate-context-tokens.ts';
import { estimateMessageTokens } from './estimate-message-tokens.ts';
import { createExactCounter } from './exact-counter.ts';
import { createHeuristicCounter } from './heuristic-counter.ts';
import { MessageTokenCache } from './message-token-cache.ts';
import { assistant, countingCounter, toolCall, toolResult, user } from './messages.test-support.ts';

const o200k = createExactCounter('o200k');

function session(length: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < length; i++) {
    messages.push(
      i % 3 === 0
        ? user(`question ${i}: why does the build fail?`)
        : i % 3 === 1
          ? toolCall(`call_${i}`, 'bash', `{"command":"npm test -- ${i}"}`)
          : toolResult(`call_${i - 1}`, `FAIL src/file-${i}.test.ts\n  expected ${i} to be ${i + 1}`),
    );
  }
  return messages;
}

describe('MessageTokenCache', () => {
  it('does not tokenize a message again once cached', () => {
    const counter = countingCounter(o200k);
    const cache = new MessageTokenCache();
    const messages = session(30);
    const first = estimateContextTokens(messages, counter, { cache });
    const callsAfterFirst = counter.calls.length;
    expect(callsAfterFirst).toBeGreaterThan(30);
    const second = estimateContextTokens(messages, counter, { cache });
    expect(counter.calls.length).toBe(callsAfterFirst);
    expect(second).toEqual(first);
    expect(first.tokens).toBe(estimateContextTokens(messages, o200k).tokens);
  });

  it('after one append, tokenizes only the appended message', () => {
    const counter = countingCounter(o200k);
    const cache = new MessageTokenCache();
    const messages = session(50);
    estimateContextTokens(messages, counter, { cache });
    counter.calls.length = 0;
    const appended = assistant('The test expects 3 but gets 4; the off-by-one is in range().');
    estimateContextTokens([...messages, appended], counter, { cache });
    expect(counter.calls).toEqual(['The test expects 3 but gets 4; the off-by-one is in range().']);
  });

  it('recounts when a message comes back under the same id with different content', () => {
    const cache = new MessageTokenCache();
    const original = toolResult('c1', 'line\n'.repeat(2_000), { id: 'result-1' });
    const truncated = toolResult('c1', '[cleared]', { id: 'result-1' });
    const before = cache.estimate(original, o200k);
    const after = cache.estimate(truncated, o200k);
    expect(after.total).toBe(estimateMessageTokens(truncated, o200k).total);
    expect(after.total).toBeLessThan(before.total);
    expect(cache.size).toBe(1);
  });

  it('shape fingerprints miss a same-length rewrite; content fingerprints catch it', () => {
    const original = user('aaaa aaaa aaaa', { id: 'same' });
    const rewritten = user('你好你好 你好你好 你好你好', { id: 'same' }); // same UTF-16 length, other tokens
    expect('你好你好 你好你好 你好你好'.length).toBe('aaaa aaaa aaaa'.length);
    expect(estimateMessageTokens(rewritten, o200k).total).not.toBe(
      estimateMessageTokens(original, o200k).total,
    );

    const shape = new MessageTokenCache();
    shape.estimate(original, o200k);
    expect(shape.estimate(rewritten, o200k).total).toBe(estimateMessageTokens(original, o200k).total);

    const content = new MessageTokenCache({ fingerprint: 'content' });
    content.estimate(original, o200k);
    expect(content.estimate(rewritten, o200k).total).toBe(estimateMessageTokens(rewritten, o200k).total);
  });

  it('keeps counters apart by name', () => {
    const cache = new MessageTokenCache();
    const text = user('你好，世界');
    expect(cache.estimate(text, o200k).text).toBe(3);
    expect(cache.estimate(text, createExactCounter('cl100k')).text).toBe(6);
    expect(cache.estimate(text, o200k).text).toBe(3);
  });

  it('serves a calibrated counter’s moving multiplier from one measure, never a stale figure', () => {
    const cache = new MessageTokenCache();
    const counter = new CalibratedTokenCounter({ priorWeightUnits: 0 });
    const text = user(' the'.repeat(1_000)); // 1,000 units, 4,000 runes
    expect(cache.estimate(text, counter).text).toBe(1_000);
    counter.observe({ units: 10_000, tokens: 12_000 });
    expect(counter.tokensPerUnit).toBe(1.2);
    expect(cache.estimate(text, counter).text).toBe(1_200);
    expect(cache.estimate(text, counter)).toEqual(estimateMessageTokens(text, counter));
    // A rune-linear counter shares the entry: its scale is kept apart from the multiplier.
    expect(cache.estimate(text, createHeuristicCounter(2.5)).text).toBe(1_600);
    expect(cache.estimate(text, counter).text).toBe(1_200);
    expect(cache.stats).toEqual({ hits: 4, misses: 1 });
  });

  it('never returns a figure from before the multiplier moved, on real mixed text', () => {
    const cache = new MessageTokenCache();
    const counter = new CalibratedTokenCounter();
    const messages = session(60);
    for (let round = 0; round < 5; round++) {
      const cached = estimateContextTokens(messages, counter, { cache });
      expect(cached).toEqual(estimateContextTokens(messages, counter));
      counter.observe({ units: 5_000, tokens: 5_000 + 700 * round });
    }
    expect(counter.anchors).toBe(5);
    expect(cache.stats.misses).toBe(60);
  });

  it('drops the oldest entries past its bound', () => {
    const cache = new MessageTokenCache({ maxEntries: 2 });
    const [a, b, c] = session(3) as [Message, Message, Message];
    cache.estimate(a, o200k);
    cache.estimate(b, o200k);
    cache.estimate(c, o200k);
    expect(cache.size).toBe(2);
    const counter = countingCounter(o200k);
    cache.estimate(a, counter);
    expect(counter.calls.length).toBeGreaterThan(0);
    expect(() => new MessageTokenCache({ maxEntries: 0 })).toThrow(/maxEntries/);
  });

  it('forgets on delete and clear', () => {
    const cache = new MessageTokenCache();
    const text = toolResult('c', 'output');
    cache.estimate(text, o200k);
    expect(cache.delete(text.id)).toBe(true);
    expect(cache.size).toBe(0);
    cache.estimate(text, o200k);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('keeps counts made with the tool-call type apart from those made without it', () => {
    const call = toolCall('call_1', 'bash', '{"command":"ls"}');
    const plain = new MessageTokenCache();
    const typed = new MessageTokenCache({ countToolCallType: true });
    expect(typed.estimate(call, o200k).total).toBe(
      plain.estimate(call, o200k).total + o200k.count('function'),
    );
    expect(typed.measure(call).runes.toolCalls).toBe(plain.measure(call).runes.toolCalls + 'function'.length);
    // A count stored under one setting is never reused under the other; the plain key is unchanged.
    expect(typed.countKey(o200k)).not.toBe(plain.countKey(o200k));
    expect(plain.countKey(o200k)).not.toContain('type');
    expect(() => estimateContextTokens([call], o200k, { cache: typed, countToolCallType: false })).toThrow(
      /countToolCallType/,
    );
  });
});
