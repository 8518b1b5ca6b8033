/**
 * A stream's output kept within a fixed size: the first `headBytes` and the last `tailBytes`, whatever
 * the stream's length, with a marker saying how much was left out between them. ctxkit normalizes a large
 * tool result again as it is appended (caps, spill to a blob); this is what keeps the tool itself from
 * ever holding unbounded bytes.
 */

import {
  countNewlines,
  decodeUtf8,
  looksBinary,
  utf8CompleteLength,
  utf8CutStart,
  withoutNul,
} from './text-bytes.ts';
import { count } from './tool-result.ts';

export class HeadTailBuffer {
  readonly headBytes: number;
  readonly tailBytes: number;
  #head: Buffer[] = [];
  #headLength = 0;
  #tail: Buffer[] = [];
  #tailLength = 0;
  #total = 0;
  #newlines = 0;

  constructor(headBytes: number, tailBytes: number) {
    this.headBytes = Math.max(0, Math.floor(headBytes));
    this.tailBytes = Math.max(0, Math.floor(tailBytes));
  }

  /** Bytes pushed so far, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#total += bytes.length;
    this.#newlines += countNewlines(bytes);
    const room = this.headBytes - this.#headLength;
    if (room > 0) {
      const taken = bytes.subarray(0, room);
      this.#head.push(Buffer.from(taken));
      this.#headLength += taken.length;
      bytes = bytes.subarray(taken.length);
    }
    if (bytes.length === 0 || this.tailBytes === 0) return;
    if (bytes.length >= this.tailBytes) {
      this.#tail = [Buffer.from(bytes.subarray(bytes.length - this.tailBytes))];
      this.#tailLength = this.tailBytes;
      return;
    }
    this.#tail.push(Buffer.from(bytes));
    this.#tailLength += bytes.length;
    // Chunks pile up to twice the tail at most before they are folded into one.
    if (this.#tailLength > 2 * this.tailBytes) {
      const joined = Buffer.concat(this.#tail);
      this.#tail = [joined.subarray(joined.length - this.tailBytes)];
      this.#tailLength = this.tailBytes;
    }
  }

  /** What was kept, as bytes, and how much (bytes, lines) fell between head and tail. */
  parts(): { head: Buffer; tail: Buffer; omittedBytes: number; omittedLines: number } {
    const head = Buffer.concat(this.#head);
    let tail = Buffer.concat(this.#tail);
    if (tail.length > this.tailBytes) tail = tail.subarray(tail.length - this.tailBytes);
    const omitted = this.#total - head.length - tail.length;
    if (omitted === 0) return { head, tail, omittedBytes: 0, omittedLines: 0 };
    // Cut on character boundaries: the bytes of a character split by the gap are counted as left out.
    const keptHead = head.subarray(0, utf8CompleteLength(head));
    const keptTail = tail.subarray(utf8CutStart(tail, 0));
    const omittedBytes = this.#total - keptHead.length - keptTail.length;
    const omittedLines = this.#newlines - countNewlines(keptHead) - countNewlines(keptTail);
    return { head: keptHead, tail: keptTail, omittedBytes, omittedLines };
  }

  /**
   * The output as text: head, marker, tail. Output whose start looks binary is described, not shown;
   * a NUL byte further on is shown as ␀.
   */
  text(): string {
    const { head, tail, omittedBytes, omittedLines } = this.parts();
    if (looksBinary(head.length > 0 ? head : tail))
      return `[binary output: ${count(this.#total)} bytes, not shown]`;
    if (omittedBytes === 0) return withoutNul(decodeUtf8(Buffer.concat([head, tail])));
    const marker = `\n[… ${count(omittedBytes)} bytes (${count(omittedLines)} line breaks) of ${count(this.#total)} left out here: only the first ${count(head.length)} and the last ${count(tail.length)} bytes are kept …]\n`;
    return withoutNul(`${decodeUtf8(head)}${marker}${decodeUtf8(tail)}`);
  }
}
