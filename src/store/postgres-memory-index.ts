import type postgres from 'postgres';
import { z } from 'zod';
import { StoredDataInvalidError } from '../core/errors/index.ts';
import type { MemoryIndex, MemoryIndexSearch, StoredMemoryEntry } from './memory-index.ts';
import { migratePostgres, openPostgres, type PostgresSource } from './postgres-source.ts';

/**
 * Memory search on PostgreSQL: entries in `ctxkit_memory_entries`, with a stored `tsvector` over title
 * (weighted A) and text in a GIN index, matched with `websearch_to_tsquery` (the syntax `memory-query.ts`
 * describes). Words are stemmed and stop words dropped by the `english` configuration.
 */
export const POSTGRES_MEMORY_TEXT_SEARCH_CONFIG = 'english';

const ENTRIES = 'ctxkit_memory_entries';
/** Rows per INSERT: six parameters each, well under PostgreSQL's 65,535 per statement. */
const INSERT_BATCH = 1_000;
const CONFIG = `'${POSTGRES_MEMORY_TEXT_SEARCH_CONFIG}'::regconfig`;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${ENTRIES} (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    file TEXT NOT NULL,
    search TSVECTOR GENERATED ALWAYS AS (
      setweight(to_tsvector(${CONFIG}, title), 'A') || to_tsvector(${CONFIG}, text)
    ) STORED
  )`,
  `CREATE INDEX IF NOT EXISTS ${ENTRIES}_search ON ${ENTRIES} USING gin (search)`,
  `CREATE INDEX IF NOT EXISTS ${ENTRIES}_session_at ON ${ENTRIES} (session_id, at DESC)`,
];

/** Rows are read by position, so a caller's client with column-name transforms reads them the same. */
const rowSchema = z.tuple([z.string(), z.string(), z.number(), z.string(), z.string(), z.string()]);
const countSchema = z.tuple([z.coerce.number().int().nonnegative()]);

function toEntry(row: unknown): StoredMemoryEntry {
  const parsed = rowSchema.safeParse(row);
  if (!parsed.success) throw new StoredDataInvalidError(ENTRIES, z.prettifyError(parsed.error));
  const [id, sessionId, at, title, text, file] = parsed.data;
  return { id, sessionId, at, title, text, file };
}

/** PostgreSQL text cannot hold NUL; the index keeps a replacement character (the daily file keeps all). */
const pgText = (text: string): string => text.replaceAll('\u0000', '\uFFFD');

const rowOf = (e: StoredMemoryEntry) => ({
  id: e.id,
  session_id: pgText(e.sessionId),
  at: e.at,
  title: pgText(e.title),
  text: pgText(e.text),
  file: e.file,
});

export async function createPostgresMemoryIndex(source: PostgresSource): Promise<MemoryIndex> {
  const connection = openPostgres(source);
  const { sql } = connection;
  await migratePostgres(sql, ENTRIES, SCHEMA);
  const table = sql(ENTRIES);

  const upsert = async (tx: postgres.TransactionSql, entries: readonly StoredMemoryEntry[]) => {
    for (let start = 0; start < entries.length; start += INSERT_BATCH) {
      const rows = entries.slice(start, start + INSERT_BATCH).map(rowOf);
      await tx`
        insert into ${table} ${tx(rows, 'id', 'session_id', 'at', 'title', 'text', 'file')}
        on conflict (id) do update set session_id = excluded.session_id, at = excluded.at,
          title = excluded.title, text = excluded.text, file = excluded.file`;
    }
  };

  return {
    async add(entries) {
      await sql.begin((tx) => upsert(tx, entries));
    },

    async search({ text, parsed, sessionId, limit }: MemoryIndexSearch) {
      const session = sessionId === undefined ? sql`` : sql`and session_id = ${pgText(sessionId)}`;
      const match =
        parsed.clauses.length === 0
          ? sql``
          : sql`and search @@ websearch_to_tsquery(${POSTGRES_MEMORY_TEXT_SEARCH_CONFIG}::regconfig, ${pgText(text)})`;
      const rows = await sql`
        select id, session_id, at, title, text, file from ${table}
        where true ${session} ${match}
        order by at desc, seq desc limit ${limit}`.values();
      return rows.map(toEntry);
    },

    async replaceAll(entries) {
      await sql.begin(async (tx) => {
        await tx`delete from ${table}`;
        await upsert(tx, entries);
      });
    },

    async count() {
      const [row] = await sql`select count(*) from ${table}`.values();
      return countSchema.parse(row)[0];
    },

    async close() {
      await connection.close();
    },
  };
}
