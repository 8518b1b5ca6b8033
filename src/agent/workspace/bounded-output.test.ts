import { describe, expect, it } from 'vitest';
import { HeadTailBuffer } from './bounded-output.ts';
import { looksBinary, NUL_STAND_IN, utf8CompleteLength, utf8CutStart } from './text-bytes.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('HeadTailBuffer', () => {
  it('keeps output within the bound whole, chunks joined in order', () => {
    const output = new HeadTailBuffer(10, 10);
    output.push(bytes('hello '));
    output.push(bytes('world'));
    expect(output.text()).toBe('hello world');
    expect(output.totalBytes).toBe(11);
  });

  it('keeps the head and the tail of 50 MB, and says how much was left out between them', () => {
    const head = 64 * 1024;
    const tail = 64 * 1024;
    const output = new HeadTailBuffer(head, tail);
    const line = bytes(`${'x'.repeat(99)}\n`);
    const chunk = Buffer.concat(Array.from({ length: 655 }, () => line)); // 65,500 bytes
    output.push(bytes('FIRST LINE\n'));
    let total = 11;
    while (total < 50 * 1024 * 1024) {
      output.push(chunk);
      total += chunk.length;
    }
    output.push(bytes('LAST LINE\n'));
    total += 10;
    const text = output.text();
    expect(text.startsWith('FIRST LINE\n')).toBe(true);
    expect(text.endsWith('LAST LINE\n')).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThan(head + tail + 300);
    const marker = /\[… ([\d,]+) bytes \(([\d,]+) line breaks\) of ([\d,]+) left out here/.exec(text);
    expect(marker).not.toBeNull();
    const omitted = Number(marker?.[1]?.replaceAll(',', ''));
    expect(omitted).toBe(total - head - tail);
    expect(Number(marker?.[3]?.replaceAll(',', ''))).toBe(total);
    expect(Number(marker?.[2]?.replaceAll(',', ''))).toBe(Math.round(omitted / 100));
  });

  it('never splits a UTF-8 character at either side of the gap', () => {
    const output = new HeadTailBuffer(10, 10);
    // 4-byte characters: the head's 10 bytes end inside the third, the tail's start inside one.
    output.push(bytes('😀'.repeat(40)));
    const text = output.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('😀😀\n[…')).toBe(true);
    expect(text.endsWith('…]\n😀😀')).toBe(true);
    expect(text).toContain('[… 144 bytes');
  });

  it('describes binary output instead of showing it, and never returns a NUL byte raw', () => {
    const binary = new HeadTailBuffer(100, 100);
    binary.push(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]));
    expect(binary.text()).toBe('[binary output: 8 bytes, not shown]');
    const text = new HeadTailBuffer(10_000, 100);
    text.push(bytes('a'.repeat(9_000)));
    text.push(Buffer.from([0x61, 0, 0x62]));
    expect(text.text()).not.toContain('\0');
    expect(text.text().endsWith(`a${NUL_STAND_IN}b`)).toBe(true);
  });
});

describe('text bytes', () => {
  it('finds where UTF-8 may be cut', () => {
    const euro = bytes('a€'); // 61 e2 82 ac
    expect(utf8CompleteLength(euro)).toBe(4);
    expect(utf8CompleteLength(euro.subarray(0, 3))).toBe(1);
    expect(utf8CompleteLength(euro.subarray(0, 2))).toBe(1);
    expect(utf8CutStart(euro, 2)).toBe(4);
    expect(utf8CutStart(euro, 1)).toBe(1);
  });

  it('calls text with escapes and tabs text, and NULs or control bytes binary', () => {
    expect(looksBinary(bytes('\u001b[31mred\u001b[0m\tok\r\n'))).toBe(false);
    expect(looksBinary(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00]))).toBe(true);
    expect(looksBinary(Buffer.from([1, 2, 3, 4, 5, 0x41]))).toBe(true);
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
  });
});
