import { describe, expect, it } from 'vitest';
import { estimateContextTokens, estimateMessagesTokens } from './estimate-context-tokens.ts';
import { estimateMessageTokens } from './estimate-message-tokens.ts';
import { createHeuristicCounter } from './heuristic-counter.ts';
import { MessageTokenCache } from './message-token-cache.ts';
import { assistant, toolCall, toolResult, user } from './messages.test-support.ts';

const four = createHeuristicCounter(4);
const tokensOf = (m: Parameters<typeof estimateMessageTokens>[0]) => estimateMessageTokens(m, four).total;

describe('estimateContextTokens (tiancai)', () => {
  it('estimates every visible message when no usage was reported', () => {
    const messages = [user('a'.repeat(40)), assistant('b'.repeat(80)), user('c'.repeat(8))];
    const estimate = estimateContextTokens(messages, four);
    expect(estimate.path).toBe('full');
    expect(estimate.fullReason).toBe('no-usage');
    expect(estimate.tokens).toBe(14 + 24 + 6);
    expect(estimate.estimatedMessages).toBe(3);
    expect(estimate.breakdown).toMatchObject({ text: 32, overhead: 12, total: 44 });
  });

  it('never counts messages hidden from the agent', () => {
    const archived = toolResult('c1', 'x'.repeat(10_000), {
      meta: { agentVisible: false, kind: 'tool_result_archived' },
    });
    const visible = [user('hello'), toolCall('c1', 'bash', '{}')];
    const withHidden = [...visible, archived, assistant('done')];
    const without = [...visible, assistant('done')];
    expect(estimateContextTokens(withHidden, four).tokens).toBe(estimateContextTokens(without, four).tokens);
    expect(estimateContextTokens(withHidden, four).estimatedMessages).toBe(3);
  });

  it('anchors on the last assistant’s reported input + output, plus an estimate of what follows', () => {
    const anchor = assistant('calling tools', { usage: { inputTokens: 5_000, outputTokens: 120 } });
    const result = toolResult('c1', 'r'.repeat(400));
    const next = user('next');
    const messages = [user('x'.repeat(100_000)), anchor, result, next];
    const estimate = estimateContextTokens(messages, four);
    expect(estimate.path).toBe('anchored');
    expect(estimate.anchor).toEqual({
      index: 1,
      messageId: anchor.id,
      inputTokens: 5_000,
      outputTokens: 120,
      tokens: 5_120,
    });
    const tail = tokensOf(result) + tokensOf(next);
    expect(estimate.estimatedTokens).toBe(tail);
    expect(estimate.estimatedMessages).toBe(2);
    expect(estimate.tokens).toBe(5_120 + tail);
  });

  it('uses the anchor alone when the usage-bearing reply is the last message', () => {
    const messages = [user('hi'), assistant('hello', { usage: { inputTokens: 10, outputTokens: 3 } })];
    expect(estimateContextTokens(messages, four)).toMatchObject({
      path: 'anchored',
      tokens: 13,
      estimatedTokens: 0,
    });
  });

  it('takes the latest usage, passing over later assistant messages that carry none', () => {
    const early = assistant('one', { usage: { inputTokens: 100, outputTokens: 10 } });
    const late = assistant('two', { usage: { inputTokens: 300, outputTokens: 20 } });
    const injected = assistant('reminder without usage');
    const messages = [user('q'), early, user('q2'), late, injected];
    const estimate = estimateContextTokens(messages, four);
    expect(estimate.anchor?.messageId).toBe(late.id);
    expect(estimate.tokens).toBe(320 + tokensOf(injected));
  });

  it('ignores usage on a hidden assistant message', () => {
    const hidden = assistant('x', {
      usage: { inputTokens: 999, outputTokens: 1 },
      meta: { agentVisible: false },
    });
    const estimate = estimateContextTokens([user('q'), hidden], four);
    expect(estimate.path).toBe('full');
    expect(estimate.tokens).toBe(tokensOf(user('q')));
  });

  it('falls back to the full estimate when the latest usage is not valid', () => {
    for (const usage of [
      { inputTokens: 0, outputTokens: 0 },
      { inputTokens: Number.NaN, outputTokens: 5 },
      { inputTokens: -4, outputTokens: 10 },
      { inputTokens: Number.POSITIVE_INFINITY, outputTokens: 1 },
    ]) {
      const messages = [
        user('q'),
        assistant('old', { usage: { inputTokens: 50, outputTokens: 5 } }),
        assistant('a', { usage }),
      ];
      const estimate = estimateContextTokens(messages, four);
      expect(estimate.path).toBe('full');
      expect(estimate.fullReason).toBe('invalid-usage');
      expect(estimate.tokens).toBe(messages.reduce((sum, m) => sum + tokensOf(m), 0));
    }
  });

  it('lets the caller refuse the anchor (a compaction changed the prefix it measured)', () => {
    const anchored = assistant('a', { usage: { inputTokens: 90_000, outputTokens: 50 } });
    const messages = [user('summary of earlier work'), anchored, user('next')];
    const full = messages.reduce((sum, m) => sum + tokensOf(m), 0);
    expect(estimateContextTokens(messages, four, { anchorUsable: false })).toMatchObject({
      path: 'full',
      fullReason: 'anchor-refused',
      tokens: full,
    });
    const compactedAfterSeq = anchored.seq;
    const refused = estimateContextTokens(messages, four, { anchorUsable: (m) => m.seq > compactedAfterSeq });
    expect(refused).toMatchObject({ path: 'full', fullReason: 'anchor-refused', tokens: full });
    const accepted = estimateContextTokens(messages, four, { anchorUsable: (_m, index) => index === 1 });
    expect(accepted.path).toBe('anchored');
  });

  it('gives the same figures through a cache, and refuses a cache built with other options', () => {
    const messages = [
      user('a'.repeat(40)),
      toolCall('c', 'bash', '{"cmd":"ls"}'),
      toolResult('c', 'file.txt'),
    ];
    const cache = new MessageTokenCache();
    expect(estimateContextTokens(messages, four, { cache })).toEqual(estimateContextTokens(messages, four));
    expect(() => estimateContextTokens(messages, four, { cache, mediaTokens: 85 })).toThrow(/mediaTokens/);
  });

  it('breaks every visible message down by category', () => {
    const messages = [user('a'.repeat(8)), toolCall('id', 'ls', '{}'), toolResult('id', 'b'.repeat(20))];
    expect(estimateMessagesTokens(messages, four)).toEqual({
      text: 2,
      reasoning: 0,
      toolCalls: 2,
      toolResults: 6,
      media: 0,
      overhead: 12,
      total: 22,
    });
  });
});
