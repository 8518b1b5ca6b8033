import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestText, EXTENDABLE_DIGEST_MIN_CHARS } from './extendable-text-digest.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const long = (seed: string): string => seed.repeat(Math.ceil(EXTENDABLE_DIGEST_MIN_CHARS / seed.length) + 1);

describe('digestText', () => {
  it('gives the sha256 and UTF-8 size of a short text, keeping no running hash', () => {
    const digest = digestText('héllo 🙂');
    expect(digest).toMatchObject({ sha256: sha256('héllo 🙂'), bytes: Buffer.byteLength('héllo 🙂') });
    expect(digest.state).toBeUndefined();
  });

  it('extends a long text by its new end, to the same digest as the whole', () => {
    let digest = digestText(long('# transcript\n'));
    for (const added of ['\n[#1 user]\nfix the bug', ' in ünïcode 🙂', '', `\n${long('row ')}`]) {
      const text = digest.text + added;
      digest = digestText(text, digest);
      expect(digest.sha256).toBe(sha256(text));
      expect(digest.bytes).toBe(Buffer.byteLength(text, 'utf8'));
    }
    // Extending leaves the previous digest usable: a second extension of it is right too.
    const base = digestText(long('a'));
    digestText(`${base.text}b`, base);
    expect(digestText(`${base.text}c`, base).sha256).toBe(sha256(`${base.text}c`));
  });

  it('hashes whole a text that does not extend the previous one', () => {
    const previous = digestText(long('abc'));
    const other = long('abd');
    expect(digestText(other, previous).sha256).toBe(sha256(other));
    const shorter = previous.text.slice(0, -10);
    expect(digestText(shorter, previous).sha256).toBe(sha256(shorter));
  });

  it('does not extend across a surrogate pair the previous text split', () => {
    const previous = digestText(`${long('x')}\ud83d`);
    const text = `${previous.text}\ude42 done`;
    expect(digestText(text, previous)).toMatchObject({
      sha256: sha256(text),
      bytes: Buffer.byteLength(text, 'utf8'),
    });
  });
});
