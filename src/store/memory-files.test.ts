import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { loadCorpusSession } from '../testing/corpus.ts';
import { asInput } from '../testing/replay-session.ts';
import { createFsBlobStore } from './fs-blob-store.ts';
import { describeMemoryFilesConformance } from './memory-files.conformance.ts';
import { createFileMemorySink, parseDailyMemoryFile } from './memory-files.ts';
import { parseMemoryQuery, toFts5Query } from './memory-query.ts';
import { createPostgresMemoryIndex } from './postgres-memory-index.ts';
import { createSqliteMemoryIndex } from './sqlite-memory-index.ts';
import { usePostgresTestDatabases } from './testing/postgres-test-databases.ts';

describeMemoryFilesConformance('SQLite FTS5', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-memory-db-'));
  const filename = path.join(dir, 'ctxkit.db');
  return {
    index: createSqliteMemoryIndex({ filename }),
    reopen: async () => createSqliteMemoryIndex({ filename }),
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
});

const databases = usePostgresTestDatabases();
describeMemoryFilesConformance('PostgreSQL full-text search', async () => {
  const database = await databases.create();
  return {
    index: await createPostgresMemoryIndex({ url: database.url }),
    reopen: () => createPostgresMemoryIndex({ url: database.url }),
    cleanup: () => database.drop(),
  };
});

describe('memory query language', () => {
  it('parses words, phrases, exclusions and alternatives', () => {
    expect(parseMemoryQuery('deploy "staging db" -redis or cache')).toEqual({
      clauses: [
        {
          include: [
            { text: 'deploy', phrase: false },
            { text: 'staging db', phrase: true },
          ],
          exclude: [{ text: 'redis', phrase: false }],
        },
        { include: [{ text: 'cache', phrase: false }], exclude: [] },
      ],
    });
    expect(parseMemoryQuery('  ')).toEqual({ clauses: [] });
    expect(parseMemoryQuery('or OR - "" !!')).toEqual({ clauses: [] });
    expect(parseMemoryQuery('NEAR(auth').clauses[0]?.include.map((term) => term.text)).toEqual([
      'NEAR',
      'auth',
    ]);
  });

  it('renders FTS5 queries in which every user word is a quoted string', () => {
    expect(toFts5Query(parseMemoryQuery('a "b c" -d or e'))).toEqual({
      match: '(("a" AND "b c") NOT "d") OR ("e")',
    });
    expect(toFts5Query(parseMemoryQuery('say x"y -"p q"'))).toEqual({
      match: '(("say" AND "x" AND "y") NOT "p q")',
    });
    expect(toFts5Query({ clauses: [{ include: [{ text: 'a"b', phrase: false }], exclude: [] }] })).toEqual({
      match: '("a""b")',
    });
    expect(toFts5Query(parseMemoryQuery('-a -b'))).toEqual({ excludeOnly: '("a" OR "b")' });
    expect(toFts5Query(parseMemoryQuery(''))).toBeUndefined();
  });
});

describe('daily memory files', () => {
  it('reads an entry back whole even when its text holds what looks like another entry', () => {
    const text =
      'x\n\n## 00:00:00 UTC · Fake\n<!-- ctxkit-memory {"id":"f","sessionId":"s","at":0,"title":"F","chars":1} -->\n\ny';
    const header = JSON.stringify({ id: 'e1', sessionId: 's', at: 0, title: 'T', chars: text.length });
    const content = `# Memory 1970-01-01\n\n## 00:00:00 UTC · T (session s)\n<!-- ctxkit-memory ${header} -->\n\n${text}\n`;
    const parsed = parseDailyMemoryFile('memory/1970-01-01.md', content);
    expect(parsed.skipped).toEqual([]);
    expect(parsed.entries).toEqual([
      { id: 'e1', sessionId: 's', at: 0, title: 'T', text, file: 'memory/1970-01-01.md' },
    ]);
  });

  it('does not write through a symlinked daily file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-memory-link-'));
    try {
      const outside = path.join(dir, 'outside.md');
      await fs.writeFile(outside, 'untouched');
      await fs.mkdir(path.join(dir, 'agent', 'memory'), { recursive: true });
      await fs.symlink(outside, path.join(dir, 'agent', 'memory', '2025-03-14.md'));
      const sink = createFileMemorySink({
        dir: path.join(dir, 'agent'),
        index: createSqliteMemoryIndex({ filename: ':memory:' }),
      });
      await expect(
        sink.write('s1', { at: Date.UTC(2025, 2, 14), title: 't', text: 'x' }),
      ).rejects.toMatchObject({
        code: 'ELOOP',
      });
      await sink.close();
      expect(await fs.readFile(outside, 'utf8')).toBe('untouched');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('memory files when the database fails', () => {
  it('keeps the entry in the files, reports the error, and finds it again after a reindex', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-memory-down-'));
    try {
      const database = new Database(':memory:');
      const sink = createFileMemorySink({ dir, index: createSqliteMemoryIndex({ database }) });
      database.close();
      await expect(
        sink.write('s1', { at: Date.UTC(2025, 2, 14), title: 'Trimmed turns', text: 'kept anyway' }),
      ).rejects.toThrow();
      expect(await fs.readFile(path.join(dir, 'memory', '2025-03-14.md'), 'utf8')).toContain('kept anyway');
      expect(await fs.readFile(path.join(dir, 'MEMORY.md'), 'utf8')).toContain('Trimmed turns');
      const recovered = createFileMemorySink({
        dir,
        index: createSqliteMemoryIndex({ filename: ':memory:' }),
      });
      expect(await recovered.reindex()).toEqual({ files: 1, entries: 1, skipped: [] });
      expect((await recovered.search('s1', 'kept')).map((entry) => entry.text)).toEqual(['kept anyway']);
      await recovered.close();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('memory files with the context manager', () => {
  const withModel = (policy: Policy): Policy => ({ ...policy, model: 'gpt-4o' });

  it('finds what /context clear dropped, after a restart, in the daily file of that day', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-memory-clear-'));
    const dbFile = path.join(dataDir, 'ctxkit.db');
    let now = Date.UTC(2025, 5, 1, 12, 0, 0);
    const clock = () => (now += 1_000);
    try {
      const memory = createFileMemorySink({
        dir: dataDir,
        index: createSqliteMemoryIndex({ filename: dbFile }),
      });
      const manager = createContextManager({
        policy: withModel(PRESETS.default),
        clock,
        memory,
        blobs: createFsBlobStore({ dataDir }),
      });
      const transcript = loadCorpusSession('tau-bench__gpt-4o-airline_task33_trial0.jsonl');
      await manager.append('s', transcript.messages.map(asInput));
      await manager.clear('s');
      expect((await manager.stats('s')).messages.view).toBe(0);
      await memory.close();

      const restarted = createFileMemorySink({
        dir: dataDir,
        index: createSqliteMemoryIndex({ filename: dbFile }),
      });
      const found = await restarted.search('s', 'reservation');
      expect(found.length).toBeGreaterThan(0);
      expect(found[0]).toMatchObject({
        title: 'Cleared context',
        sessionId: 's',
        file: 'memory/2025-06-01.md',
      });
      expect(await fs.readFile(path.join(dataDir, 'memory', '2025-06-01.md'), 'utf8')).toContain(
        found[0]?.text,
      );
      expect(await fs.readFile(path.join(dataDir, 'MEMORY.md'), 'utf8')).toContain('Cleared context');
      await restarted.close();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
