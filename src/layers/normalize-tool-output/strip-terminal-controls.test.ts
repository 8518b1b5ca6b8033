import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepLastFrames, stripTerminalControls } from './strip-terminal-controls.ts';

/** The regular-expression version this file replaced: same result, quadratic on long lines and `\r` runs. */
function stripBySimpleRegexes(text: string): string {
  return (
    text
      .replace(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the reference matches control characters too.
        /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~])/g,
        '',
      )
      .replace(/\r+\n/g, '\n')
      .replace(/[^\r\n]*\r(?=[^\r\n])/g, '')
      .replace(/[\v\f]/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the reference matches control characters too.
      .replace(/[\x00-\x08\x0e-\x1f\x7f\r]/g, '')
  );
}

const terminalText = fc
  .array(
    fc.constantFrom(
      '\r',
      '\n',
      '\r\n',
      '\x1b',
      '[',
      ']',
      '0',
      ';',
      'm',
      'K',
      '\x07',
      'P',
      '\\',
      '\b',
      '\v',
      'ab',
      ' ',
      'é',
      '🎉',
      '\u0301',
    ),
    { maxLength: 60 },
  )
  .map((pieces) => pieces.join(''));

describe('stripTerminalControls', () => {
  it('equals the simple regular-expression version on any mix of controls and text', () => {
    fc.assert(
      fc.property(terminalText, (text) => {
        expect(stripTerminalControls(text)).toBe(stripBySimpleRegexes(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps the last frame of each line, and frames an empty frame or a line end follows', () => {
    expect(keepLastFrames('a\rb\rc\nd\re')).toBe('c\ne');
    expect(keepLastFrames('ab\r\rc')).toBe('abc');
    expect(keepLastFrames('done\r\n\r')).toBe('done\n');
    expect(keepLastFrames('no carriage return')).toBe('no carriage return');
  });

  it('handles the shapes that made the regular expressions quadratic', () => {
    const n = 200_000;
    expect(stripTerminalControls('\r'.repeat(n))).toBe('');
    expect(stripTerminalControls(`\x1b[0m${'x'.repeat(n)}`)).toBe('x'.repeat(n));
    expect(stripTerminalControls(`${'x\n'.repeat(n)}\r`)).toBe('x\n'.repeat(n));
    expect(stripTerminalControls('x\r'.repeat(n))).toBe('x');
  });
});
