import { describe, expect, it } from 'vitest';
import { createRedactor, MIN_SECRET_LENGTH, REDACTED, secretForms } from './redact-keys.ts';

const KEY = 'sk-proj-redactUnitKey-0123456789';
const OTHER = 'sk-ant-api03-redactUnitOther-abcdef';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The text fed to a stream redactor in the pieces given, what came out of it, and after each piece how
 * many bytes were held back (counted for texts whose only key is KEY: each marker stands for it).
 */
function streamed(secrets: string[], pieces: string[]): { out: string; held: number[] } {
  const redactor = createRedactor(secrets).stream();
  let out = '';
  const held: number[] = [];
  let fed = 0;
  for (const piece of pieces) {
    fed += encoder.encode(piece).length;
    out += decoder.decode(redactor.push(encoder.encode(piece)));
    const markers = out.split(REDACTED).length - 1;
    held.push(fed - (out.length + markers * (KEY.length - REDACTED.length)));
  }
  out += decoder.decode(redactor.end());
  return { out, held };
}

describe('createRedactor', () => {
  it('replaces every occurrence of every key, and leaves the rest as it was', () => {
    const redactor = createRedactor([KEY, OTHER]);
    const text = `{"error":{"message":"Incorrect API key provided: ${KEY}. Also ${OTHER}; again ${KEY}"}}`;
    const redacted = redactor.text(text);
    expect(redacted).toBe(
      `{"error":{"message":"Incorrect API key provided: ${REDACTED}. Also ${REDACTED}; again ${REDACTED}"}}`,
    );
    expect(JSON.parse(redacted)).toBeTruthy();
  });

  it('ignores values too short to be keys, and missing ones', () => {
    const short = 'x'.repeat(MIN_SECRET_LENGTH - 1);
    const redactor = createRedactor([short, undefined, 'ollama']);
    expect(redactor.active).toBe(false);
    expect(redactor.text(`ollama says ${short}`)).toBe(`ollama says ${short}`);
  });

  it('catches a key in its JSON-escaped and URL-encoded forms', () => {
    const key = 'key/with"quote\\and+plus=é-0123';
    const forms = secretForms(key);
    expect(forms).toContain(JSON.stringify(key).slice(1, -1));
    expect(forms).toContain(encodeURIComponent(key));
    const redactor = createRedactor([key]);
    const body = JSON.stringify({ a: key, url: `https://x.test/?key=${encodeURIComponent(key)}` });
    const redacted = redactor.text(body);
    expect(JSON.parse(redacted)).toEqual({ a: REDACTED, url: `https://x.test/?key=${REDACTED}` });
    // As an ASCII-only encoder writes it (non-ASCII as \\u escapes, `/` as `\\/`).
    const ascii = 'key\\/with\\"quote\\\\and+plus=\\u00e9-0123';
    expect(redactor.text(`"${ascii}"`)).toBe(`"${REDACTED}"`);
  });

  it('redacts overlapping keys as one run, whichever is longer', () => {
    const redactor = createRedactor(['abcdefgh12', 'gh12345678']);
    expect(redactor.text('<abcdefgh12345678>')).toBe(`<${REDACTED}>`);
    expect(redactor.text('<abcdefgh12><gh12345678>')).toBe(`<${REDACTED}><${REDACTED}>`);
    // One key the prefix of another: the longer is taken whole.
    const nested = createRedactor(['abcdefgh', 'abcdefgh-longer']);
    expect(nested.text('abcdefgh-longer abcdefgh.')).toBe(`${REDACTED} ${REDACTED}.`);
  });
});

describe('a stream redactor', () => {
  const text = `data: {"message":"bad key ${KEY}, ok"}\n\ndata: {"again":"${KEY}"}\n\n`;
  const expected = `data: {"message":"bad key ${REDACTED}, ok"}\n\ndata: {"again":"${REDACTED}"}\n\n`;

  it('catches a key split across two chunks, at every split point', () => {
    for (let at = 0; at <= text.length; at++) {
      expect(streamed([KEY], [text.slice(0, at), text.slice(at)]).out).toBe(expected);
    }
  });

  it('catches a key fed a byte at a time, holding back less than the longest key', () => {
    const { out, held } = streamed([KEY, OTHER], [...text]);
    expect(out).toBe(expected);
    expect(Math.max(...held)).toBe(KEY.length - 1);
  });

  it('holds nothing back once a chunk ends where no key can begin', () => {
    const { held } = streamed([KEY], [`data: {"a":"${KEY}"}\n\n`, 'data: {"b":"sk-pro', 'j"}\n\n']);
    expect(held).toEqual([0, 'sk-pro'.length, 0]);
  });

  it('keeps a prefix of a key that never completes', () => {
    expect(streamed([KEY], ['tail sk-proj-red', 'act']).out).toBe('tail sk-proj-redact');
  });

  it('agrees with a plain search on random texts cut at random', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const word = (length: number) => Array.from({ length }, () => 'ab'[random(2)]).join('');
    for (let round = 0; round < 300; round++) {
      const keys = [word(8 + random(4)), word(8 + random(6))];
      const text = word(random(80));
      const pieces: string[] = [];
      for (let at = 0; at < text.length; ) {
        const size = 1 + random(12);
        pieces.push(text.slice(at, at + size));
        at += size;
      }
      expect(streamed(keys, pieces).out).toBe(plainRedaction(keys, text));
    }
  });

  it('redacts in linear time: a large body with many keys', () => {
    const body = `${'lorem ipsum sk-proj-redact '.repeat(200_000)}${KEY}`.repeat(4);
    const started = performance.now();
    const out = streamed([KEY, OTHER], [body.slice(0, 1_000_003), body.slice(1_000_003)]).out;
    expect(out.endsWith(REDACTED)).toBe(true);
    expect(out.split(REDACTED)).toHaveLength(5);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

/** Every byte inside some occurrence of a key is covered; each run of covered bytes becomes one marker. */
function plainRedaction(keys: string[], text: string): string {
  const covered = new Array<boolean>(text.length).fill(false);
  for (const key of keys)
    for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + 1))
      covered.fill(true, at, at + key.length);
  let out = '';
  for (let at = 0; at < text.length; at++) {
    if (!covered[at]) out += text[at];
    else if (at === 0 || !covered[at - 1]) out += REDACTED;
  }
  return out;
}
