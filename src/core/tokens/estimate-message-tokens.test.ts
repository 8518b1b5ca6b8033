import { describe, expect, it } from 'vitest';
import { estimateMessageTokens } from './estimate-message-tokens.ts';
import { createExactCounter } from './exact-counter.ts';
import { createHeuristicCounter } from './heuristic-counter.ts';
import { message, toolCall, toolResult, user } from './messages.test-support.ts';
import { DEFAULT_MEDIA_TOKENS, DEFAULT_MESSAGE_OVERHEAD_TOKENS } from './token-estimate-options.ts';

const o200k = createExactCounter('o200k');
const four = createHeuristicCounter(4);
const sumOfParts = (b: ReturnType<typeof estimateMessageTokens>) =>
  b.text + b.reasoning + b.toolCalls + b.toolResults + b.media + b.overhead;

describe('estimateMessageTokens', () => {
  it('counts text with the counter and adds the per-message framing', () => {
    expect(DEFAULT_MESSAGE_OVERHEAD_TOKENS).toBe(4);
    const tokens = estimateMessageTokens(user('hello world'), o200k);
    expect(tokens).toMatchObject({ text: 2, overhead: 4, total: 6 });
    expect(estimateMessageTokens(user('hello world'), o200k, { messageOverheadTokens: 0 }).total).toBe(2);
  });

  it('counts tool calls by id, name and arguments', () => {
    const call = toolCall('call_1', 'read_file', '{"path":"src/index.ts"}');
    const tokens = estimateMessageTokens(call, o200k);
    expect(tokens.toolCalls).toBe(
      o200k.count('call_1') + o200k.count('read_file') + o200k.count('{"path":"src/index.ts"}'),
    );
    expect(tokens.text).toBe(0);
    expect(tokens.total).toBe(tokens.toolCalls + 4);
  });

  it('counts each tool call’s type ("function") when asked, as picoclaw does, under any counter', () => {
    const call = message('assistant', [
      { type: 'tool-call', callId: 'call_1', name: 'read_file', args: '{}' },
      { type: 'tool-call', callId: 'call_2', name: 'read_file', args: '{}' },
    ]);
    const without = estimateMessageTokens(call, o200k);
    const withType = estimateMessageTokens(call, o200k, { countToolCallType: true });
    expect(withType.toolCalls).toBe(without.toolCalls + 2 * o200k.count('function'));
    expect(withType.total).toBe(without.total + 2 * o200k.count('function'));
    // Under picoclaw's chars * 2 / 5: the 8 characters of each type join the message's runes.
    const picoclaw = createHeuristicCounter(2.5);
    const runes = 2 * ('call_1'.length + 'read_file'.length + '{}'.length);
    expect(
      estimateMessageTokens(call, picoclaw, { countToolCallType: true, messageOverheadTokens: 0 }).total,
    ).toBe(Math.ceil(((runes + 2 * 'function'.length) * 2) / 5));
    // Text and results carry no type.
    expect(estimateMessageTokens(user('function'), o200k, { countToolCallType: true })).toEqual(
      estimateMessageTokens(user('function'), o200k),
    );
  });

  it('counts a tool result’s content and call id, not its tool name', () => {
    const result = toolResult('call_1', 'export * from "./a.ts";');
    const tokens = estimateMessageTokens(result, o200k);
    expect(tokens.toolResults).toBe(o200k.count('call_1') + o200k.count('export * from "./a.ts";'));
  });

  it('counts reasoning text but not signatures or redacted payloads', () => {
    const withReasoning = message('assistant', [
      {
        type: 'reasoning',
        text: 'The user wants a list.',
        signature: 'x'.repeat(500),
        redactedData: 'y'.repeat(500),
      },
      { type: 'text', text: 'Here it is.' },
    ]);
    const tokens = estimateMessageTokens(withReasoning, o200k);
    expect(tokens.reasoning).toBe(o200k.count('The user wants a list.'));
    expect(tokens.text).toBe(o200k.count('Here it is.'));
  });

  it('adds media as a flat figure, not through the character heuristic', () => {
    expect(DEFAULT_MEDIA_TOKENS).toBe(1_200);
    const ref = `data:image/png;base64,${'A'.repeat(40_000)}`;
    const withImage = message('user', [
      { type: 'text', text: 'what is this?' },
      { type: 'media', mediaType: 'image/png', ref },
    ]);
    const tokens = estimateMessageTokens(withImage, four);
    expect(tokens.media).toBe(1_200);
    expect(tokens.text).toBe(4); // 13 runes / 4, the 40k-char ref is not text
    expect(estimateMessageTokens(withImage, four, { mediaTokens: 85 }).media).toBe(85);
  });

  it('lets a media item’s own figure win, and counts media a tool returned', () => {
    const screenshot = message('tool', [
      {
        type: 'tool-result',
        callId: 'c',
        name: 'screenshot',
        content: '',
        isError: false,
        media: [
          { type: 'media', mediaType: 'image/png', ref: 'blob:1', tokens: 765 },
          { type: 'media', mediaType: 'image/png', ref: 'blob:2' },
        ],
      },
      { type: 'media', mediaType: 'image/jpeg', ref: 'blob:3', tokens: Number.NaN },
    ]);
    expect(estimateMessageTokens(screenshot, four).media).toBe(765 + 1_200 + 1_200);
  });

  it('sums runes per category under a heuristic counter, and the breakdown adds up', () => {
    const mixed = message('assistant', [
      { type: 'text', text: 'a'.repeat(10) },
      { type: 'text', text: '😀'.repeat(6) },
      { type: 'tool-call', callId: 'id', name: 'ls', args: '{}' },
    ]);
    const tokens = estimateMessageTokens(mixed, four);
    expect(tokens.text).toBe(4); // (10 + 6 runes) / 4
    expect(tokens.toolCalls).toBe(2); // 'id' + 'ls' + '{}' = 6 runes
    expect(tokens.total).toBe(sumOfParts(tokens));
  });

  it('matches tiancai on plain text: ceil(chars / 4) plus framing', () => {
    expect(estimateMessageTokens(user('x'.repeat(401)), four).total).toBe(101 + 4);
    const twoAndAHalf = createHeuristicCounter(2.5);
    expect(estimateMessageTokens(user('x'.repeat(10)), twoAndAHalf, { messageOverheadTokens: 0 }).total).toBe(
      4,
    );
  });

  it('refuses negative or non-finite options', () => {
    expect(() => estimateMessageTokens(user('x'), four, { mediaTokens: -1 })).toThrow(/mediaTokens/);
    expect(() => estimateMessageTokens(user('x'), four, { messageOverheadTokens: Number.NaN })).toThrow(
      /messageOverheadTokens/,
    );
    expect(() =>
      estimateMessageTokens(user('x'), four, { countToolCallType: 'yes' as unknown as boolean }),
    ).toThrow(/countToolCallType/);
  });
});
