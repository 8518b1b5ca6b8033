import type { FileHandle } from 'node:fs/promises';

/**
 * An open file's text, read to at most `maxBytes`: undefined when it holds more. A size checked with
 * `stat` can grow before the read, so the read itself is what stays within the bound.
 */
export async function readBoundedText(handle: FileHandle, maxBytes: number): Promise<string | undefined> {
  const buffer = Buffer.alloc(Math.min(maxBytes + 1, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) return undefined;
    chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}
