import { describe, expect, it } from 'vitest';
import { inWholeText, jsonSyntaxError } from './json-syntax-error.ts';

const refusal = (text: string): SyntaxError => {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  throw new Error(`${text} is JSON`);
};

describe('json syntax errors', () => {
  it('count lines and columns as JSON.parse counts them', () => {
    for (const text of ['[1,\n 2 3]', '[1,\r\n 2 3]', '[1,\r 2 3]', '[\n\n1,\r\n\r 2 3]']) {
      const position = text.lastIndexOf('3');
      expect(jsonSyntaxError("Expected ',' or ']' after array element in JSON", text, position).message).toBe(
        refusal(text).message,
      );
    }
  });

  it('move the position of a part’s error to the whole text', () => {
    const whole = '{"a": [1, 2],\n "b": [3 4]}';
    const offset = whole.indexOf('[3');
    expect((inWholeText(refusal('[3 4]'), whole, offset) as Error).message).toBe(refusal(whole).message);
    // Without a position, as it was.
    const quoted = refusal('[1, x]');
    expect(inWholeText(quoted, whole, offset)).toBe(quoted);
  });
});
