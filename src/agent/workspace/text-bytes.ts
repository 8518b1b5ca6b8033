/**
 * Bytes as text for the model: whether a file or an output is binary (a NUL byte, or mostly control
 * bytes, in its first bytes), UTF-8 cuts that never split a character, and NUL bytes never passed on raw.
 */

/** How many leading bytes decide whether content is binary (as git and grep look). */
export const BINARY_SNIFF_BYTES = 8_000;

/** Shown in place of a NUL byte found past the sniffed start of a text. */
export const NUL_STAND_IN = '\u2400';

/**
 * Whether `bytes` look binary: a NUL byte among the first {@link BINARY_SNIFF_BYTES}, or more than 30 %
 * control bytes there (tab, line endings, form feed and escape, which colours terminal output, excepted).
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  let control = 0;
  for (let index = 0; index < end; index++) {
    const byte = bytes[index] as number;
    if (byte === 0) return true;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b)
      control++;
  }
  return end > 0 && control / end > 0.3;
}

/** `text` with every NUL replaced by {@link NUL_STAND_IN}. */
export const withoutNul = (text: string): string =>
  text.includes('\0') ? text.replaceAll('\0', NUL_STAND_IN) : text;

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/** How many of `bytes` to keep so they end on a whole UTF-8 character (an incomplete last one is dropped). */
export function utf8CompleteLength(bytes: Uint8Array): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead < 4 && isContinuation(bytes[lead])) lead--;
  if (lead < 0) return bytes.length;
  const byte = bytes[lead] as number;
  const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return bytes.length - lead < needs ? lead : bytes.length;
}

/** `start`, moved forward so `bytes.subarray(start)` does not begin inside a UTF-8 sequence. */
export function utf8CutStart(bytes: Uint8Array, start: number): number {
  let index = Math.max(0, start);
  while (index < bytes.length && index - start < 3 && isContinuation(bytes[index])) index++;
  return index;
}

const decoder = new TextDecoder('utf-8');
export const decodeUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes);

/** Newlines in `bytes`. */
export function countNewlines(bytes: Uint8Array): number {
  let lines = 0;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let index = buffer.indexOf(10); index !== -1; index = buffer.indexOf(10, index + 1)) lines++;
  return lines;
}
