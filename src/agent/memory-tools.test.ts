import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileMemorySink, type FileMemorySink } from '../store/memory-files.ts';
import { createMemoryMemorySink } from '../store/memory-memory-sink.ts';
import { createSqliteMemoryIndex } from '../store/sqlite-memory-index.ts';
import type { AgentToolContext } from './agent-tool.ts';
import {
  createMemoryTools,
  DEFAULT_SEARCH_MEMORY_LIMIT,
  MAX_MEMORY_EXCERPT_CHARS,
  MAX_SEARCH_MEMORY_CHARS,
} from './memory-tools.ts';

const AT = Date.UTC(2025, 2, 14, 10, 22);
const context = (sessionId = 's1'): AgentToolContext => ({
  sessionId,
  signal: new AbortController().signal,
  confirm: async () => false,
});

let dir: string;
let sink: FileMemorySink;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-memory-tools-')));
  sink = createFileMemorySink({
    dir,
    index: createSqliteMemoryIndex({ filename: path.join(dir, 'index.db') }),
    durable: false,
  });
});
afterEach(async () => {
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const tools = (memory = sink as Parameters<typeof createMemoryTools>[0]['memory'], clock = () => AT) => {
  const [search, write] = createMemoryTools({ memory, clock });
  if (!search || !write) throw new Error('two tools expected');
  return { search, write };
};

describe('memory tools over the file store', () => {
  it('writes a note that a search then finds and the MEMORY.md index lists', async () => {
    const { search, write } = tools();
    const written = await write.run(
      {
        title: 'Deploys go through staging',
        text: 'Always deploy to staging first; prod needs a green staging run.',
      },
      context(),
    );
    expect(written).toEqual({
      content:
        'Saved the memory note "Deploys go through staging" (63 characters) in memory/2025-03-14.md; the memory index (MEMORY.md) lists it.',
      isError: false,
    });
    const found = await search.run({ query: 'staging prod' }, context());
    expect(found.isError).toBe(false);
    expect(found.content).toBe(
      '[1 memory note matching "staging prod", newest first.]\n\n' +
        '## 2025-03-14 10:22 UTC · Deploys go through staging (memory/2025-03-14.md)\n' +
        'Always deploy to staging first; prod needs a green staging run.',
    );
    expect(await sink.readIndex()).toContain('Deploys go through staging · [memory/2025-03-14.md]');
    expect(fs.readFileSync(path.join(dir, 'memory/2025-03-14.md'), 'utf8')).toContain(
      'prod needs a green staging run',
    );
    expect((await search.run({ query: 'kubernetes' }, context())).content).toBe(
      '[No memory note matches "kubernetes".]',
    );
  });

  it("searches the agent's whole memory: a note from another conversation is found", async () => {
    const { search, write } = tools();
    await write.run(
      { title: 'User prefers tabs', text: 'Indent with tabs in this repository.' },
      context('earlier'),
    );
    expect((await search.run({ query: 'tabs' }, context('now'))).content).toContain('User prefers tabs');
  });

  it('keeps search answers bounded: a limit of notes, a cut per note, a total size', async () => {
    const { search, write } = tools();
    for (let i = 0; i < 30; i++)
      await write.run({ title: `Note ${i}`, text: `shared word ${'z'.repeat(3_000)} ${i}` }, context());
    const found = await search.run({ query: 'shared' }, context());
    expect(found.content.length).toBeLessThanOrEqual(MAX_SEARCH_MEMORY_CHARS + 200);
    const notes = found.content.split('\n').filter((line) => line.startsWith('## '));
    expect(notes.length).toBeGreaterThan(2);
    expect(notes.length).toBeLessThanOrEqual(DEFAULT_SEARCH_MEMORY_LIMIT);
    expect(found.content).toContain('More notes match than are shown: narrow the query.');
    expect(found.content).toContain(
      'more characters: read_memory({"path":"memory/2025-03-14.md"}) reads the note whole',
    );
    const longest = Math.max(...found.content.split('\n').map((line) => line.length));
    expect(longest).toBeLessThanOrEqual(MAX_MEMORY_EXCERPT_CHARS + 1);
  });

  it('names the argument at fault and refuses empty notes', async () => {
    const { search, write } = tools();
    for (const [tool, args, field] of [
      [search, {}, '"query" is required'],
      [search, { query: 7 }, '"query"'],
      [search, { query: '   ' }, '"query"'],
      [search, { query: 'a', limit: 0 }, '"limit"'],
      [write, { title: 'x' }, '"text" is required'],
      [write, { title: '', text: 'y' }, '"title"'],
      [write, { title: 'x', text: 'y', tags: [] }, '"tags"'],
      [write, { title: 'x'.repeat(201), text: 'y' }, '"title"'],
    ] as const) {
      const result = await tool.run(args, context());
      expect(result, JSON.stringify(args)).toMatchObject({ isError: true, code: 'invalid_arguments' });
      expect(result.content).toContain(field);
    }
    expect(await sink.readIndex()).toBeUndefined();
  });
});

describe('memory tools over a sink without files', () => {
  it('searches the calling session and says nothing of an index', async () => {
    const { search, write } = tools(createMemoryMemorySink());
    const written = await write.run({ title: 'Port', text: 'The dev server listens on 5173.' }, context('a'));
    expect(written.content).toBe('Saved the memory note "Port" (31 characters).');
    expect((await search.run({ query: '5173' }, context('a'))).content).toContain(
      '## 2025-03-14 10:22 UTC · Port\n',
    );
    expect((await search.run({ query: '5173' }, context('b'))).content).toContain('No memory note matches');
  });
});
