import { z } from 'zod';
import { StoredDataInvalidError } from '../core/errors/index.ts';
import type { MemoryIndex, MemoryIndexSearch, StoredMemoryEntry } from './memory-index.ts';
import { toFts5Query } from './memory-query.ts';
import { openSqlite, type SqliteSource } from './sqlite-source.ts';

/**
 * Memory search on SQLite: entries in `ctxkit_memory_entries`, indexed by an FTS5 table over their title
 * and text (external content, kept in step by triggers). Words are stemmed (Porter) and diacritics
 * folded, so `migrations` finds `migration` and `resume` finds `résumé`.
 */
export const SQLITE_MEMORY_TOKENIZER = 'porter unicode61 remove_diacritics 2';

const ENTRIES = 'ctxkit_memory_entries';
const FTS = 'ctxkit_memory_fts';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${ENTRIES} (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    at REAL NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    file TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS ${ENTRIES}_session_at ON ${ENTRIES} (session_id, at)`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS ${FTS} USING fts5(
    title, text, content='${ENTRIES}', content_rowid='seq', tokenize='${SQLITE_MEMORY_TOKENIZER}'
  )`,
  `CREATE TRIGGER IF NOT EXISTS ${ENTRIES}_ai AFTER INSERT ON ${ENTRIES} BEGIN
    INSERT INTO ${FTS} (rowid, title, text) VALUES (new.seq, new.title, new.text);
  END`,
  `CREATE TRIGGER IF NOT EXISTS ${ENTRIES}_ad AFTER DELETE ON ${ENTRIES} BEGIN
    INSERT INTO ${FTS} (${FTS}, rowid, title, text) VALUES ('delete', old.seq, old.title, old.text);
  END`,
  `CREATE TRIGGER IF NOT EXISTS ${ENTRIES}_au AFTER UPDATE ON ${ENTRIES} BEGIN
    INSERT INTO ${FTS} (${FTS}, rowid, title, text) VALUES ('delete', old.seq, old.title, old.text);
    INSERT INTO ${FTS} (rowid, title, text) VALUES (new.seq, new.title, new.text);
  END`,
];

const rowSchema = z.object({
  id: z.string(),
  session_id: z.string(),
  at: z.number(),
  title: z.string(),
  text: z.string(),
  file: z.string(),
});
const countSchema = z.object({ n: z.int().nonnegative() });

function toEntry(row: unknown): StoredMemoryEntry {
  const parsed = rowSchema.safeParse(row);
  if (!parsed.success) throw new StoredDataInvalidError(ENTRIES, z.prettifyError(parsed.error));
  const { id, session_id, at, title, text, file } = parsed.data;
  return { id, sessionId: session_id, at, title, text, file };
}

const COLUMNS = 'e.id, e.session_id, e.at, e.title, e.text, e.file';

export function createSqliteMemoryIndex(source: SqliteSource): MemoryIndex {
  const connection = openSqlite(source);
  const { db } = connection;
  db.transaction(() => {
    for (const statement of SCHEMA) db.exec(statement);
  }).immediate();

  const upsert = db.prepare(
    `INSERT INTO ${ENTRIES} (id, session_id, at, title, text, file) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, at = excluded.at,
       title = excluded.title, text = excluded.text, file = excluded.file`,
  );
  const insertAll = db.transaction((entries: readonly StoredMemoryEntry[]) => {
    for (const e of entries) upsert.run(e.id, e.sessionId, e.at, e.title, e.text, e.file);
  });
  const replaceAll = db.transaction((entries: readonly StoredMemoryEntry[]) => {
    db.prepare(`DELETE FROM ${ENTRIES}`).run();
    for (const e of entries) upsert.run(e.id, e.sessionId, e.at, e.title, e.text, e.file);
  });
  const order = 'ORDER BY e.at DESC, e.seq DESC LIMIT @limit';
  const sessionFilter = '(@session IS NULL OR e.session_id = @session)';
  const recent = db.prepare(`SELECT ${COLUMNS} FROM ${ENTRIES} e WHERE ${sessionFilter} ${order}`);
  const matching = db.prepare(
    `SELECT ${COLUMNS} FROM ${FTS} f JOIN ${ENTRIES} e ON e.seq = f.rowid
     WHERE ${FTS} MATCH @match AND ${sessionFilter} ${order}`,
  );
  const notMatching = db.prepare(
    `SELECT ${COLUMNS} FROM ${ENTRIES} e
     WHERE e.seq NOT IN (SELECT rowid FROM ${FTS} WHERE ${FTS} MATCH @match) AND ${sessionFilter} ${order}`,
  );
  const count = db.prepare(`SELECT count(*) AS n FROM ${ENTRIES}`);

  return {
    async add(entries) {
      insertAll(entries);
    },

    async search({ parsed, sessionId, limit }: MemoryIndexSearch) {
      const params = { session: sessionId ?? null, limit };
      if (parsed.clauses.length === 0) return recent.all(params).map(toEntry);
      const fts = toFts5Query(parsed);
      if (fts === undefined) return [];
      const rows =
        'match' in fts
          ? matching.all({ ...params, match: fts.match })
          : notMatching.all({ ...params, match: fts.excludeOnly });
      return rows.map(toEntry);
    },

    async replaceAll(entries) {
      replaceAll(entries);
    },

    async count() {
      return countSchema.parse(count.get()).n;
    },

    async close() {
      connection.close();
    },
  };
}
