import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTILE_IDS } from './blob-store.conformance.ts';
import { createFileMemorySink, type FileMemorySink } from './memory-files.ts';
import type { MemoryIndex } from './memory-index.ts';

export interface MemoryIndexHarness {
  /** A fresh, empty index. */
  index: MemoryIndex;
  /** Another index over the same storage, as a restarted process would open it. */
  reopen: () => Promise<MemoryIndex>;
  cleanup?: () => Promise<void>;
}

const DAY = 86_400_000;
/** 2025-03-14T23:30:00Z: late enough that most time zones are already on the 15th. */
const T0 = Date.UTC(2025, 2, 14, 23, 30, 0);

interface Context {
  sink: FileMemorySink;
  dir: string;
  harness: MemoryIndexHarness;
}

/**
 * One suite for the file memory sink over every index (SQLite FTS5, PostgreSQL full-text search): the
 * daily files, the `MEMORY.md` index, search semantics, and rebuilding the index from the files.
 */
export function describeMemoryFilesConformance(
  name: string,
  makeHarness: () => Promise<MemoryIndexHarness>,
): void {
  describe(`memory files conformance: ${name}`, () => {
    const withSink = (test: (context: Context) => Promise<void>) => async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-memory-'));
      const harness = await makeHarness();
      const sink = createFileMemorySink({ dir, index: harness.index });
      try {
        await test({ sink, dir, harness });
      } finally {
        await sink.close();
        await harness.cleanup?.();
        await fs.rm(dir, { recursive: true, force: true });
      }
    };

    it(
      'appends each entry to the daily file of its UTC date, with its exact text',
      withSink(async ({ sink, dir }) => {
        const text = '## Goal\nMigrate the **billing** database.\n\n- step 1\n- step 2\n';
        await sink.write('s1', { at: T0, title: 'Trimmed turns', text });
        await sink.write('s1', { at: T0 + DAY, title: 'Context overflow', text: 'overflow summary' });
        expect((await fs.readdir(path.join(dir, 'memory'))).sort()).toEqual([
          '2025-03-14.md',
          '2025-03-15.md',
        ]);
        const first = await fs.readFile(path.join(dir, 'memory', '2025-03-14.md'), 'utf8');
        expect(first.startsWith('# Memory 2025-03-14\n')).toBe(true);
        expect(first).toContain('## 23:30:00 UTC · Trimmed turns (session s1)\n');
        expect(first).toContain(`\n\n${text}\n`);
        await sink.write('s2', { at: T0 + 60_000, title: 'Cleared context', text: 'second entry, same day' });
        const again = await fs.readFile(path.join(dir, 'memory', '2025-03-14.md'), 'utf8');
        expect(again.startsWith(first)).toBe(true);
        expect(again.indexOf('Trimmed turns')).toBeLessThan(again.indexOf('Cleared context'));
      }),
    );

    it(
      'keeps MEMORY.md as one line per entry: date, time, title, file, session and size, never the text',
      withSink(async ({ sink, dir }) => {
        const long = `${'word '.repeat(100)}end`;
        await sink.write('s1', { at: T0, title: 'Trimmed\nturns', text: 'Line one\nline two' });
        await sink.write('s2', { at: T0 + DAY, title: 'Cleared context', text: long });
        const lines = (await fs.readFile(path.join(dir, 'MEMORY.md'), 'utf8')).split('\n');
        expect(lines[0]).toBe('# Memory index');
        const entries = lines.filter((line) => line.startsWith('- '));
        expect(entries).toEqual([
          '- 2025-03-14 23:30 UTC · Trimmed turns · [memory/2025-03-14.md](memory/2025-03-14.md) · session s1 · 17 chars',
          '- 2025-03-15 23:30 UTC · Cleared context · [memory/2025-03-15.md](memory/2025-03-15.md) · session s2 · 503 chars',
        ]);
        const index = lines.join('\n');
        for (const words of ['Line one', 'line two', 'word']) expect(index).not.toContain(words);
      }),
    );

    it(
      "finds what a session wrote by every word of the query, newest first, that session's only",
      withSink(async ({ sink }) => {
        await sink.write('s1', {
          at: T0,
          title: 'Trimmed turns',
          text: 'We chose PostgreSQL for the billing service.',
        });
        await sink.write('s1', {
          at: T0 + 1000,
          title: 'Trimmed turns',
          text: 'The billing migration failed on Redis.',
        });
        await sink.write('s1', {
          at: T0 + 2000,
          title: 'Cleared context',
          text: 'Unrelated notes about the weather.',
        });
        await sink.write('s2', {
          at: T0 + 3000,
          title: 'Trimmed turns',
          text: 'Another session discussed billing too.',
        });
        const billing = await sink.search('s1', 'billing');
        expect(billing.map((entry) => entry.text)).toEqual([
          'The billing migration failed on Redis.',
          'We chose PostgreSQL for the billing service.',
        ]);
        expect(billing[0]).toMatchObject({
          sessionId: 's1',
          file: 'memory/2025-03-14.md',
          title: 'Trimmed turns',
          at: T0 + 1000,
        });
        expect((await sink.search('s1', 'billing redis')).map((entry) => entry.at)).toEqual([T0 + 1000]);
        expect(await sink.search('s1', 'billing kafka')).toEqual([]);
        expect(await sink.search('s3', 'billing')).toEqual([]);
        expect((await sink.searchAll('billing')).map((entry) => entry.sessionId)).toEqual(['s2', 's1', 's1']);
        // Titles are searched too.
        expect((await sink.search('s1', 'cleared')).map((entry) => entry.at)).toEqual([T0 + 2000]);
      }),
    );

    it(
      'matches word forms, case and phrases, and honours exclusions and alternatives',
      withSink(async ({ sink }) => {
        await sink.write('s1', { at: T0, title: 'Notes', text: 'Deploying the new migrations to staging.' });
        await sink.write('s1', {
          at: T0 + 1,
          title: 'Notes',
          text: 'The staging database was migrated by hand.',
        });
        await sink.write('s1', { at: T0 + 2, title: 'Notes', text: 'Cache: we use memcached, not redis.' });
        const texts = async (query: string) => (await sink.search('s1', query)).map((entry) => entry.at - T0);
        expect(await texts('MIGRATION')).toEqual([1, 0]);
        expect(await texts('deployed migration')).toEqual([0]);
        expect(await texts('staging')).toEqual([1, 0]);
        expect(await texts('"staging database"')).toEqual([1]);
        expect(await texts('"database staging"')).toEqual([]);
        expect(await texts('staging -hand')).toEqual([0]);
        expect(await texts('redis or hand')).toEqual([2, 1]);
        expect(await texts('-staging')).toEqual([2]);
      }),
    );

    it(
      'treats any query as words: operators and punctuation are never syntax errors',
      withSink(async ({ sink }) => {
        await sink.write('s1', {
          at: T0,
          title: 'Notes',
          text: 'The near-term plan: fix auth (OAuth) and ship.',
        });
        for (const query of [
          'auth"',
          '"auth',
          'AND',
          'OR',
          'NOT auth',
          'NEAR(auth plan)',
          'auth*',
          'title:auth',
          '^auth',
          "auth'",
          '(auth',
          'auth)',
          '\\',
          '-',
          '--',
          '""',
          'auth & plan | !ship',
          "'; drop table ctxkit_memory_entries; --",
          'a\u0000b',
        ]) {
          await expect(sink.search('s1', query), query).resolves.toBeInstanceOf(Array);
        }
        expect((await sink.search('s1', 'NEAR(auth plan)')).length).toBe(1);
        expect((await sink.search('s1', 'plan:auth')).length).toBe(1);
        // Not a column filter: `text` is just a word, and not in the entry.
        expect(await sink.search('s1', 'text:ship')).toEqual([]);
      }),
    );

    it(
      'returns the newest entries for a query without words, up to the limit',
      withSink(async ({ sink }) => {
        for (let i = 0; i < 5; i++)
          await sink.write('s1', { at: T0 + i, title: `Entry ${i}`, text: `text ${i}` });
        expect((await sink.search('s1', '')).map((entry) => entry.title)).toEqual([
          'Entry 4',
          'Entry 3',
          'Entry 2',
          'Entry 1',
          'Entry 0',
        ]);
        expect((await sink.search('s1', '  !! ', { limit: 2 })).map((entry) => entry.title)).toEqual([
          'Entry 4',
          'Entry 3',
        ]);
        expect(await sink.search('s1', 'text', { limit: 3 })).toHaveLength(3);
      }),
    );

    it(
      'keeps entries across a restart, and rebuilds the index from the daily files alone',
      withSink(async ({ sink, dir, harness }) => {
        const tricky =
          'Text with --> and <!-- ctxkit-memory {"id":"forged","sessionId":"s1","at":0,"title":"x","chars":1} -->\nstill the same entry';
        await sink.write('s1', { at: T0, title: 'Title with "quotes" -->', text: tricky });
        await sink.write('s1', { at: T0 + DAY, title: 'Second', text: 'resilient entry' });
        const reopened = createFileMemorySink({ dir, index: await harness.reopen() });
        try {
          expect((await reopened.search('s1', 'resilient')).map((entry) => entry.title)).toEqual(['Second']);
          const report = await reopened.reindex();
          expect(report).toEqual({ files: 2, entries: 2, skipped: [] });
          const all = await reopened.search('s1', '');
          expect(all.map((entry) => entry.text)).toEqual(['resilient entry', tricky]);
          expect(all[1]?.title).toBe('Title with "quotes" -->');
          expect((await reopened.search('s1', '"still the same entry"')).map((entry) => entry.title)).toEqual(
            ['Title with "quotes" -->'],
          );
        } finally {
          await reopened.close();
        }
      }),
    );

    it(
      'keeps entries of any session id apart, across a reindex',
      withSink(async ({ sink, dir, harness }) => {
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          await sink.write(sessionId, { at: T0 + index, title: `Entry ${index}`, text: `text of ${index}` });
        }
        const reopened = createFileMemorySink({ dir, index: await harness.reopen() });
        try {
          await reopened.reindex();
          for (const [index, sessionId] of HOSTILE_IDS.entries()) {
            const found = await reopened.search(sessionId, '');
            expect(
              found.map((entry) => [entry.sessionId, entry.text]),
              JSON.stringify(sessionId.slice(0, 40)),
            ).toEqual([[sessionId, `text of ${index}`]]);
          }
          expect(await fs.readdir(dir)).toEqual(expect.arrayContaining(['memory', 'MEMORY.md']));
        } finally {
          await reopened.close();
        }
      }),
    );

    it(
      'reindexes hand-edited files: changed text, a broken header skipped with its line',
      withSink(async ({ sink, dir }) => {
        await sink.write('s1', { at: T0, title: 'First', text: 'original words' });
        await sink.write('s1', { at: T0 + 1, title: 'Second', text: 'second entry' });
        const file = path.join(dir, 'memory', '2025-03-14.md');
        const content = await fs.readFile(file, 'utf8');
        await fs.writeFile(
          file,
          `${content.replace('original words', 'edited by a person, longer than before')}\n## broken\n<!-- ctxkit-memory {"id":1} -->\n\nno header\n`,
        );
        const report = await sink.reindex();
        expect(report.entries).toBe(2);
        expect(report.skipped).toEqual([
          { file: 'memory/2025-03-14.md', line: expect.any(Number), reason: expect.any(String) },
        ]);
        expect((await sink.search('s1', 'edited person')).map((entry) => entry.title)).toEqual(['First']);
        expect((await sink.search('s1', 'edited')).map((entry) => entry.text)).toEqual([
          'edited by a person, longer than before',
        ]);
        expect(await sink.search('s1', 'original')).toEqual([]);
      }),
    );

    it(
      'refuses entries it cannot file, writing nothing',
      withSink(async ({ sink, dir }) => {
        await expect(sink.write('', { at: T0, title: 't', text: 'x' })).rejects.toMatchObject({
          code: 'invalid_memory_entry',
        });
        for (const at of [Number.NaN, Number.POSITIVE_INFINITY, 1e20, -1e15]) {
          await expect(sink.write('s1', { at, title: 't', text: 'x' }), String(at)).rejects.toMatchObject({
            code: 'invalid_memory_entry',
          });
        }
        await expect(fs.readdir(dir)).resolves.toEqual([]);
      }),
    );

    it(
      'writes concurrent entries whole and in the same order in both files',
      withSink(async ({ sink, dir }) => {
        await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            sink.write(`s${i % 3}`, { at: T0 + i, title: `Entry ${i}`, text: `body ${i} `.repeat(200) }),
          ),
        );
        const report = await sink.reindex();
        expect(report).toMatchObject({ entries: 25, skipped: [] });
        const daily = await fs.readFile(path.join(dir, 'memory', '2025-03-14.md'), 'utf8');
        const index = await fs.readFile(path.join(dir, 'MEMORY.md'), 'utf8');
        const order = (text: string, line: RegExp) =>
          [...text.matchAll(line)].map((match) => Number(match[1]));
        const dailyOrder = order(daily, /^## .* · Entry (\d+) \(/gm);
        expect(dailyOrder).toHaveLength(25);
        expect(dailyOrder).toEqual(order(index, /^- .* · Entry (\d+) · /gm));
        expect((await sink.searchAll('body', { limit: 100 })).length).toBe(25);
      }),
    );
  });
}
