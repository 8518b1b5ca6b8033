import { describe, expect, it } from 'vitest';
import { clipText, messageText, plainTextBody } from './message-text.ts';

describe('a message as the dashboard shows it', () => {
  it('writes every part as text, clipped without building the whole', () => {
    const message = {
      parts: [
        { type: 'reasoning' as const, text: 'think' },
        { type: 'text' as const, text: 'hello' },
        { type: 'tool-call' as const, callId: 'c', name: 'grep', args: '{"q":"x"}' },
        { type: 'media' as const, mediaType: 'image/png', ref: `data:${'A'.repeat(500)}`, name: 'shot' },
      ],
    };
    const whole = messageText(message, 10_000);
    expect(whole.text).toBe(
      `[reasoning] think\nhello\n→ grep({"q":"x"})\n[image/png shot: data:${'A'.repeat(195)}…]`,
    );
    expect(whole.chars).toBe(whole.text.length);
    expect(messageText(message, 20)).toEqual({ text: '[reasoning] think\nhe', chars: whole.chars });
    const result = {
      parts: [{ type: 'tool-result' as const, callId: 'c', name: 'x', content: 'boom', isError: true }],
    };
    expect(messageText(result, 100).text).toBe('[error] boom');
  });

  it('never cuts a character in half, and says what a plain answer left out', () => {
    expect(clipText('ab😀c', 3)).toEqual({ text: 'ab', chars: 5 });
    expect(plainTextBody({ text: 'abc', chars: 3 })).toBe('abc');
    expect(plainTextBody({ text: 'abc', chars: 2_003 })).toBe(
      'abc\n\n[… 2,000 more characters not shown: 2,003 in all]\n',
    );
  });
});
