import { createHash, type Hash } from 'node:crypto';
import { sha256OfText } from './sha256-of-text.ts';

/**
 * A text's sha256 and UTF-8 size, kept so that the digest of a longer text that starts with it costs only
 * the new end: a transcript stored again after every summary, each time the previous one plus the
 * messages since, is not hashed whole each time.
 */
export interface TextDigest {
  readonly text: string;
  readonly sha256: string;
  readonly bytes: number;
  /** The running hash over `text` as UTF-8, never finalized: copied to extend it. */
  readonly state: Hash | undefined;
}

/** Past this many UTF-16 units a text keeps its running hash, for a longer text to extend. */
export const EXTENDABLE_DIGEST_MIN_CHARS = 64 * 1024;

/**
 * The digest of `text`, from `previous` when `text` extends it: its running hash is copied and fed the
 * new end. Not when `previous` ends in a high surrogate (the pair may be completed by the new end, and
 * UTF-8 encodes a lone surrogate differently). Equal to `sha256OfText(text)` and `Buffer.byteLength`.
 */
export function digestText(text: string, previous?: TextDigest): TextDigest {
  const extendable = text.length >= EXTENDABLE_DIGEST_MIN_CHARS;
  if (
    previous?.state !== undefined &&
    extendable &&
    text.length >= previous.text.length &&
    !endsInHighSurrogate(previous.text) &&
    text.startsWith(previous.text)
  ) {
    const added = text.slice(previous.text.length);
    const state = previous.state.copy();
    feed(state, added);
    return {
      text,
      sha256: state.copy().digest('hex'),
      bytes: previous.bytes + Buffer.byteLength(added, 'utf8'),
      state,
    };
  }
  if (!extendable) {
    return { text, sha256: sha256OfText(text), bytes: Buffer.byteLength(text, 'utf8'), state: undefined };
  }
  const state = createHash('sha256');
  feed(state, text);
  return { text, sha256: state.copy().digest('hex'), bytes: Buffer.byteLength(text, 'utf8'), state };
}

/** UTF-16 units hashed at a time, as `sha256OfText` does: never one UTF-8 copy of the whole text. */
const FEED_SLICE = 1 << 20;

function feed(hash: Hash, text: string): void {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + FEED_SLICE);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    hash.update(text.slice(start, end), 'utf8');
    start = end;
  }
}

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;

function endsInHighSurrogate(text: string): boolean {
  return text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1));
}
