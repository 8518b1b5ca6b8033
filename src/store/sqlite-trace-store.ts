import { z } from 'zod';
import { StoredDataInvalidError } from '../core/errors/index.ts';
import { openSqlite, type SqliteSource } from './sqlite-source.ts';
import { createTraceStore, type TraceRow, type TraceStore } from './trace-store.ts';

/** The trace on SQLite: its own table, `ctxkit_trace_events`, in any database file (the sessions' one is fine). */
const TABLE = 'ctxkit_trace_events';

const SCHEMA = [
  // AUTOINCREMENT: a seq is never reused, even after the newest rows are deleted, so exports stay ordered.
  `CREATE TABLE IF NOT EXISTS ${TABLE} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    at REAL NOT NULL,
    type TEXT NOT NULL,
    event TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS ${TABLE}_session ON ${TABLE} (session_id, seq)`,
];

const pageRowSchema = z.object({ seq: z.int().positive(), event: z.string() });
const countSchema = z.object({ n: z.int().nonnegative() });

export function createSqliteTraceStore(source: SqliteSource): TraceStore {
  const connection = openSqlite(source);
  const { db } = connection;
  db.transaction(() => {
    for (const statement of SCHEMA) db.exec(statement);
  }).immediate();
  const location = 'database' in source ? `${db.name} (${TABLE})` : `${source.filename} (${TABLE})`;

  const insert = db.prepare(`INSERT INTO ${TABLE} (session_id, at, type, event) VALUES (?, ?, ?, ?)`);
  const insertAll = db.transaction((rows: readonly TraceRow[]) => {
    for (const row of rows) insert.run(row.sessionId, row.at, row.type, row.json);
  });
  const page = db.prepare(
    `SELECT seq, event FROM ${TABLE}
     WHERE seq > @afterSeq
       AND (@session IS NULL OR session_id = @session)
       AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))
       AND (@since IS NULL OR at >= @since)
       AND (@until IS NULL OR at < @until)
     ORDER BY seq LIMIT @limit`,
  );
  const count = db.prepare(`SELECT count(*) AS n FROM ${TABLE} WHERE session_id = ?`);
  const remove = db.prepare(`DELETE FROM ${TABLE} WHERE session_id = ?`);

  return createTraceStore({
    location,
    async insert(rows) {
      insertAll.immediate(rows);
    },
    async page(request) {
      const rows = page.all({
        afterSeq: request.afterSeq,
        session: request.sessionId ?? null,
        types: request.types === undefined ? null : JSON.stringify(request.types),
        since: request.since ?? null,
        until: request.until ?? null,
        limit: request.limit,
      });
      return rows.map((row) => {
        const parsed = pageRowSchema.safeParse(row);
        if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
        return { seq: parsed.data.seq, json: parsed.data.event };
      });
    },
    async count(sessionId) {
      return countSchema.parse(count.get(sessionId)).n;
    },
    async deleteSession(sessionId) {
      return remove.run(sessionId).changes;
    },
    async close() {
      connection.close();
    },
  });
}
