import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFileMemorySink,
  type FileMemorySink,
  MEMORY_READ_MAX_BYTES,
  memoryFilePath,
} from './memory-files.ts';
import { createMemoryMemorySink } from './memory-memory-sink.ts';
import { createSqliteMemoryIndex } from './sqlite-memory-index.ts';

const T0 = Date.UTC(2025, 2, 14, 23, 30, 0);
const DAY = 86_400_000;

async function withSink(test: (sink: FileMemorySink, dir: string) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-memory-read-'));
  const sink = createFileMemorySink({
    dir,
    index: createSqliteMemoryIndex({ filename: ':memory:' }),
    durable: false,
  });
  try {
    await test(sink, dir);
  } finally {
    await sink.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'resolved';
}

describe('reading memory files back (deepagents: the memory index in every request, notes when read)', () => {
  it('has no index before the first note, then MEMORY.md as written, one line per note', () =>
    withSink(async (sink, dir) => {
      expect(await sink.readIndex()).toBeUndefined();
      await sink.write('s1', { at: T0, title: 'Deploy notes', text: 'Staging uses blue/green.' });
      const first = await sink.readIndex();
      expect(first).toBe(await fs.readFile(path.join(dir, 'MEMORY.md'), 'utf8'));
      expect(first).toMatch(/Deploy notes · \[memory\/2025-03-14\.md\]\(memory\/2025-03-14\.md\)/);
      await sink.write('s1', { at: T0 + DAY, title: 'DB migration', text: 'Run migrate before deploy.' });
      const second = await sink.readIndex();
      expect(second?.startsWith(first ?? '')).toBe(true);
      expect(second).toContain('DB migration');
    }));

  it('sees a hand edit of MEMORY.md at the next read', () =>
    withSink(async (sink, dir) => {
      await sink.write('s1', { at: T0, title: 'Deploy notes', text: 'Staging uses blue/green.' });
      await sink.readIndex();
      await fs.appendFile(path.join(dir, 'MEMORY.md'), '- a line added by hand\n');
      expect(await sink.readIndex()).toContain('- a line added by hand');
    }));

  it("reads a note's daily file, and the index, by the path the index gives", () =>
    withSink(async (sink) => {
      await sink.write('s1', {
        at: T0,
        title: 'Deploy notes',
        text: 'Staging uses blue/green; prod is canary.',
      });
      const day = await sink.readNote('memory/2025-03-14.md');
      expect(day).toContain('Staging uses blue/green; prod is canary.');
      expect(await sink.readNote('./memory/2025-03-14.md')).toBe(day);
      expect(await sink.readNote('MEMORY.md')).toBe(await sink.readIndex());
    }));

  it('refuses every path that is not a memory file, inside the directory or out, naming the forms it takes', () =>
    withSink(async (sink, dir) => {
      await sink.write('s1', { at: T0, title: 'Deploy notes', text: 'x' });
      await fs.writeFile(path.join(dir, 'ctxkit.db'), 'not memory');
      const refused = [
        '../MEMORY.md',
        'memory/../MEMORY.md',
        'memory/../../etc/passwd',
        '/etc/passwd',
        path.join(dir, 'MEMORY.md'),
        'C:\\memory\\2025-03-14.md',
        'ctxkit.db',
        'memory',
        'memory/',
        'memory/notes.md',
        'memory/2025-03-14.md/x',
        'memory/2025-3-14.md',
        'memory.md',
        '',
      ];
      for (const notePath of refused) {
        const code = await codeOf(sink.readNote(notePath));
        expect(code, notePath).toBe('invalid_memory_path');
      }
      expect(() => memoryFilePath('../x')).toThrow(
        /must not leave the memory directory: MEMORY\.md or a daily file memory\/YYYY-MM-DD\.md/,
      );
      expect(() => memoryFilePath('notes.txt')).toThrow(/is not a memory file/);
      expect(() => memoryFilePath('/etc/passwd')).toThrow(/must be relative to the memory directory/);
    }));

  it('answers a day with no notes with memory_note_not_found', () =>
    withSink(async (sink) => {
      expect(await codeOf(sink.readNote('memory/2024-01-01.md'))).toBe('memory_note_not_found');
      await sink.write('s1', { at: T0, title: 't', text: 'x' });
      expect(await codeOf(sink.readNote('memory/2024-01-01.md'))).toBe('memory_note_not_found');
    }));

  it('refuses a memory file that is a symlink, or too large', () =>
    withSink(async (sink, dir) => {
      await sink.write('s1', { at: T0, title: 't', text: 'x' });
      const outside = path.join(dir, '..', `${path.basename(dir)}-secret.txt`);
      await fs.writeFile(outside, 'secret');
      try {
        await fs.symlink(outside, path.join(dir, 'memory', '2025-01-01.md'));
        expect(await codeOf(sink.readNote('memory/2025-01-01.md'))).toBe('invalid_memory_path');
      } finally {
        await fs.rm(outside, { force: true });
      }
      await fs.writeFile(
        path.join(dir, 'memory', '2025-01-02.md'),
        Buffer.alloc(MEMORY_READ_MAX_BYTES + 1, 'a'),
      );
      expect(await codeOf(sink.readNote('memory/2025-01-02.md'))).toBe('invalid_memory_path');
    }));

  it('reads only the newest part of a MEMORY.md over the cap, from a line start', () =>
    withSink(async (sink, dir) => {
      const line = '- 2025-03-14 23:30 UTC · old note · gist\n';
      const lines = Math.ceil(MEMORY_READ_MAX_BYTES / line.length) + 10;
      await fs.writeFile(
        path.join(dir, 'MEMORY.md'),
        `# Memory index\n\n${line.repeat(lines)}- the newest note\n`,
      );
      const index = (await sink.readIndex()) ?? '';
      expect(index.endsWith('- the newest note\n')).toBe(true);
      expect(Buffer.byteLength(index)).toBeLessThanOrEqual(MEMORY_READ_MAX_BYTES + 100);
      const unexpected = index
        .split('\n')
        .slice(1, -1)
        .filter((kept) => kept !== line.trimEnd() && kept !== '- the newest note');
      expect(unexpected).toEqual([]);
    }));

  it('the in-memory sink keeps no files: no index, no note to read', () => {
    const sink = createMemoryMemorySink();
    expect(sink.readIndex).toBeUndefined();
    expect(sink.readNote).toBeUndefined();
  });
});
