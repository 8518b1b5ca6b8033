import fc from 'fast-check';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { o200kAsciiPieceEnd, UNDECIDED } from './o200k-ascii-pieces.ts';

const regex = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');

function regexPieces(text: string): string[] {
  return [...text.matchAll(regex)].map((match) => match[0]);
}

/** The scan's pieces, the regex taking each piece the scan leaves undecided; and how many it left. */
function scannedPieces(text: string): { pieces: string[]; undecided: number } {
  const pieces: string[] = [];
  let undecided = 0;
  const local = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
  for (let start = 0; start < text.length; ) {
    let end = o200kAsciiPieceEnd(text, start);
    if (end === UNDECIDED) {
      undecided++;
      local.lastIndex = start;
      local.exec(text);
      end = local.lastIndex;
    }
    expect(end).toBeGreaterThan(start);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return { pieces, undecided };
}

/** Every ASCII character, and neighbours above it that change pieces: letters, marks, spaces, digits. */
const ALPHABET = [
  ...Array.from({ length: 128 }, (_, unit) => String.fromCharCode(unit)),
  "'s",
  "'LL",
  "'Ve",
  'é',
  'É',
  '\u0301',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  '٣',
  '²',
  'ǅ',
  'ʰ',
  '的',
  '🎉',
  '\ud800',
  '\udc00',
];
const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 200 }).map((parts) => parts.join(''));
const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 127 }).map((unit) => String.fromCharCode(unit)),
  maxLength: 300,
});

describe('o200kAsciiPieceEnd', () => {
  it('cuts random text into the regex pieces (property)', () => {
    fc.assert(
      fc.property(text, (sample) => {
        expect(scannedPieces(sample).pieces).toEqual(regexPieces(sample));
      }),
      { numRuns: 3_000 },
    );
  });

  it('decides every piece of ASCII text alone, as the regex cuts it (property)', () => {
    fc.assert(
      fc.property(asciiText, (sample) => {
        const { pieces, undecided } = scannedPieces(sample);
        expect(pieces).toEqual(regexPieces(sample));
        expect(undecided).toBe(0);
      }),
      { numRuns: 3_000 },
    );
  });

  it('cuts code, prose and logs as the regex does', () => {
    const samples = [
      "const fooBar = getHTTPResponse(url, { retries: 3 });\n\n  if (x) {\n\treturn y's;\n  }\n",
      "I'm sure they'LL say WE'RE done. HELLO World 12345 1.5e-3 0x1F   \n  \n",
      'path/to/file.py:42: error: Name "x" is not defined  [name-defined]\r\n',
      '   leading spaces\n\n\nand   trailing   ',
      '<|endoftext|> {"a":[1,2,3]} --- ### *** ///\n//',
      'naïve café — “quoted” ½ ²³ Ω',
    ];
    for (const sample of samples) expect(scannedPieces(sample).pieces).toEqual(regexPieces(sample));
  });

  it('leaves a piece to the regex where a character above ASCII could change it', () => {
    expect(o200kAsciiPieceEnd('caf\u00e9', 0)).toBe(UNDECIDED);
    expect(o200kAsciiPieceEnd(' \u00a0x', 0)).toBe(UNDECIDED);
    expect(o200kAsciiPieceEnd('12\u0663', 0)).toBe(UNDECIDED);
    expect(o200kAsciiPieceEnd('cafe ', 0)).toBe(4);
  });
});
