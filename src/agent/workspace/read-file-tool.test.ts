import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReadFileTool, DEFAULT_READ_FILE_LIMIT } from './read-file-tool.ts';
import { createWorkspace } from './workspace-paths.ts';
import { call, makeTempDir, writeTree } from './workspace-test-helpers.ts';

let root: string;
let remove: () => void;
const read = (args: unknown) => call([createReadFileTool(createWorkspace(root))], 'read_file', args);

beforeEach(() => {
  ({ dir: root, remove } = makeTempDir());
  writeTree(root, { 'src/a.ts': 'one\ntwo\r\nthree\nfour' });
});
afterEach(() => remove());

describe('read_file', () => {
  it('reads a file with line numbers, line endings dropped', async () => {
    expect(await read({ path: 'src/a.ts' })).toEqual({
      content: '[src/a.ts: lines 1–4 of 4. This is the end.]\n1: one\n2: two\n3: three\n4: four',
      isError: false,
    });
    expect(await read('src/a.ts')).toMatchObject({ isError: false });
  });

  it('reads a range of lines and says what is left', async () => {
    const result = await read({ path: 'src/a.ts', startLine: 2, endLine: 3 });
    expect(result.content).toBe(
      '[src/a.ts: lines 2–3 of 4. 1 more line, 4 bytes after line 3.]\n2: two\n3: three',
    );
    expect((await read({ path: 'src/a.ts', startLine: 4 })).content).toContain('4: four');
    expect(await read({ path: 'src/a.ts', startLine: 9 })).toMatchObject({ code: 'invalid_arguments' });
  });

  it('reads a 50 MB file a bounded part at a time, saying where to go on and how much is left', async () => {
    const line = `${'y'.repeat(79)}\n`;
    const big = path.join(root, 'big.log');
    const block = line.repeat(10_000);
    const handle = fs.openSync(big, 'w');
    for (let i = 0; i < 66; i++) fs.writeSync(handle, block); // 52.8 MB, 660,000 lines
    fs.closeSync(handle);
    const first = await read({ path: 'big.log' });
    expect(first.content.length).toBeLessThanOrEqual(DEFAULT_READ_FILE_LIMIT + 200);
    const header = first.content.split('\n')[0] ?? '';
    expect(header).toMatch(
      /^\[big\.log: lines 1–(\d[\d,]*) of 660,000\. Shown up to line \1 to fit: go on with startLine [\d,]+\. [\d,]+ more lines, [\d,]+ bytes after line \1\.\]$/,
    );
    const shown = Number(/lines 1–([\d,]+)/.exec(header)?.[1]?.replaceAll(',', ''));
    expect(shown).toBeGreaterThan(100);
    const bytesAfter = Number(/([\d,]+) bytes after/.exec(header)?.[1]?.replaceAll(',', ''));
    expect(bytesAfter).toBe(66 * block.length - shown * line.length);
    const next = await read({ path: 'big.log', startLine: shown + 1, limit: 1_000 });
    expect(next.content.length).toBeLessThanOrEqual(1_200);
    expect(next.content.split('\n')[1]).toBe(`${shown + 1}: ${'y'.repeat(79)}`);
  });

  it('cuts a line longer than the room and gives the byte offset its rest starts at', async () => {
    writeTree(root, { 'min.js': `${'é'.repeat(30_000)}\nsecond\n` });
    const result = await read({ path: 'min.js', limit: 1_000 });
    expect(result.content.length).toBeLessThanOrEqual(1_200);
    const offset = Number(
      /rest starts at byte offset ([\d,]+)/.exec(result.content)?.[1]?.replaceAll(',', ''),
    );
    expect(result.content).toContain('The lines after it start at startLine 2');
    const shownChars = (result.content.split('\n')[1] ?? '').length - '1: '.length - 1;
    expect(offset).toBe(shownChars * 2);
    const rest = await read({ path: 'min.js', offset, limit: 10 });
    expect(rest.content).toBe(
      `[min.js: bytes ${offset.toLocaleString('en-US')}–${(offset + 10).toLocaleString('en-US')} of 60,008. ${(60_008 - offset - 10).toLocaleString('en-US')} bytes left: next read_file({"path":"min.js","offset":${offset + 10},"limit":10}).]\n${'é'.repeat(5)}`,
    );
    // An offset inside a character moves on to the next one.
    expect((await read({ path: 'min.js', offset: 1, limit: 4 })).content).toMatch(/bytes 2–6 of .*\]\néé$/);
  });

  it('refuses binary files with a clear message, and directories', async () => {
    writeTree(root, {
      'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    });
    const binary = await read({ path: 'img.png' });
    expect(binary).toMatchObject({ isError: true, code: 'binary_file' });
    expect(binary.content).toBe(
      'Error: img.png is a binary file (12 bytes, starting 89 50 4e 47 0d 0a 1a 0a 00 00 00 0d): it cannot be shown as text',
    );
    expect(await read({ path: 'src' })).toMatchObject({ code: 'not_a_file' });
    expect(await read({ path: 'missing.ts' })).toMatchObject({ code: 'not_found' });
  });

  it('refuses a named pipe at once instead of blocking on it', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect(await read({ path: 'pipe' })).toMatchObject({ isError: true, code: 'not_a_file' });
  });

  it('never returns a NUL byte past the sniffed start', async () => {
    writeTree(root, { 'late-nul.txt': `${'a'.repeat(9_000)}\nb\0c\n` });
    const result = await read({ path: 'late-nul.txt', startLine: 2 });
    expect(result.content).not.toContain('\0');
    expect(result.content).toContain('2: b\u2400c');
  });

  it('stays inside the workspace: .., absolute paths elsewhere, symbolic links out', async () => {
    const outside = makeTempDir();
    try {
      writeTree(outside.dir, { 'secret.txt': 'secret' });
      fs.symlinkSync(path.join(outside.dir, 'secret.txt'), path.join(root, 'link.txt'));
      fs.symlinkSync(path.join(root, 'src/a.ts'), path.join(root, 'inside.ts'));
      for (const input of ['../secret.txt', path.join(outside.dir, 'secret.txt'), 'link.txt']) {
        const result = await read({ path: input });
        expect(result).toMatchObject({ isError: true, code: 'outside_workspace' });
        expect(result.content).not.toContain('secret\n');
      }
      expect((await read({ path: 'inside.ts' })).content).toContain('1: one');
      expect((await read({ path: path.join(root, 'src/a.ts') })).content).toContain('1: one');
    } finally {
      outside.remove();
    }
  });

  it('names the argument at fault', async () => {
    for (const [args, field] of [
      [{ path: 42 }, '"path"'],
      [{}, '"path" is required'],
      [{ path: 'src/a.ts', startLine: '2' }, '"startLine"'],
      [{ path: 'src/a.ts', limit: -1 }, '"limit"'],
      [{ path: 'src/a.ts', extra: true }, '"extra"'],
      [{ path: 'src/a.ts', offset: 0, startLine: 1 }, '"offset"'],
      [[1, 2], 'object'],
    ] as const) {
      const result = await read(args);
      expect(result, JSON.stringify(args)).toMatchObject({ isError: true, code: 'invalid_arguments' });
      expect(result.content).toContain(field);
    }
  });
});
