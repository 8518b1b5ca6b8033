import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeForTerminal, needsEscape, stringifyForTerminal } from './escape-for-terminal.ts';

/** Anything a terminal acts on or hides: C0, DEL, C1, format characters, separators, lone surrogates. */
const UNSAFE =
  /[\p{Cc}\u2028\u2029\p{Cf}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;
const unsafeOutside = (text: string) => UNSAFE.test(text.replaceAll('\u200d', ''));

describe('escapeForTerminal', () => {
  it('shows C0, DEL and C1 controls as visible escapes', () => {
    expect(escapeForTerminal('\u001b[2Jbash')).toBe('\\x1b[2Jbash');
    expect(escapeForTerminal('a\u0007b\u0000c\u007fd')).toBe('a\\x07b\\x00c\\x7fd');
    expect(escapeForTerminal('\u009b2J\u009d0;title\u009c')).toBe('\\x9b2J\\x9d0;title\\x9c');
    expect(escapeForTerminal('one\ttwo\nthree\r')).toBe('one\\ttwo\\nthree\\r');
  });

  it('shows bidi overrides, zero-width and other invisible format characters', () => {
    expect(escapeForTerminal('abc\u202edcb')).toBe('abc\\u{202e}dcb');
    expect(escapeForTerminal('\u2066x\u2069\u200b\ufeff\u00ad')).toBe(
      '\\u{2066}x\\u{2069}\\u{200b}\\u{feff}\\xad',
    );
    expect(escapeForTerminal('line\u2028sep\u2029')).toBe('line\\u{2028}sep\\u{2029}');
    // Tag characters hide ASCII text from the reader.
    expect(escapeForTerminal('ok\u{e0041}\u{e0042}')).toBe('ok\\u{e0041}\\u{e0042}');
    expect(escapeForTerminal('bad\ud800pair')).toBe('bad\\u{d800}pair');
  });

  it('leaves ordinary text, accents, emoji (with their joiners) and backslashes alone', () => {
    for (const text of ['plain', 'café über ñ', '中文 テスト', '👨‍👩‍👧 family', 'C:\\Users\\x', '─ · … −']) {
      expect(escapeForTerminal(text)).toBe(text);
      expect(needsEscape(text)).toBe(false);
    }
  });

  it('keeps newlines and tabs when asked (multi-line messages), and escapes the rest', () => {
    expect(escapeForTerminal('a\n\tb\u001b[H\r', { multiline: true })).toBe('a\n\tb\\x1b[H\\r');
  });

  it('never lets an unsafe character through, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(unsafeOutside(escapeForTerminal(text))).toBe(false);
        expect(unsafeOutside(escapeForTerminal(text, { multiline: true }).replace(/[\n\t]/g, ''))).toBe(
          false,
        );
      }),
    );
  });
});

describe('stringifyForTerminal', () => {
  it('is JSON that parses back to the same value, with no raw control or format character', () => {
    const value = { name: '\u001b[2J\u009b2J\u2028\u202e\u{e0041}\ud800', n: 1, list: ['👨‍👩‍👧'] };
    const json = stringifyForTerminal(value);
    expect(JSON.parse(json)).toEqual(value);
    expect(json).toContain('\\u001b[2J\\u009b2J\\u2028\\u202e\\udb40\\udc41\\ud800');
    expect(unsafeOutside(json.replace(/\n/g, ''))).toBe(false);
  });

  it('round-trips any value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        const input = { value, text };
        const json = stringifyForTerminal(input);
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(input)));
        expect(unsafeOutside(json.replace(/\n/g, ''))).toBe(false);
      }),
    );
  });
});
