import { z } from 'zod';
import { StoredDataInvalidError } from '../core/errors/index.ts';
import { migratePostgres, openPostgres, type PostgresSource } from './postgres-source.ts';
import { createTraceStore, type TraceStore } from './trace-store.ts';

/**
 * The trace on PostgreSQL: its own table, `ctxkit_trace_events`. The event is kept as text (not jsonb),
 * so it comes back, and exports, byte for byte as it was appended.
 */
const TABLE = 'ctxkit_trace_events';
/** Rows per INSERT: four parameters each, well under PostgreSQL's 65,535 per statement. */
const INSERT_BATCH = 1_000;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${TABLE} (
    seq BIGSERIAL PRIMARY KEY,
    session_id TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    type TEXT NOT NULL,
    event TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS ${TABLE}_session ON ${TABLE} (session_id, seq)`,
];

/** Rows are read by position, so a caller's client with column-name transforms reads them the same. */
const pageRowSchema = z.tuple([z.coerce.number().int().positive(), z.string()]);
const countSchema = z.tuple([z.coerce.number().int().nonnegative()]);

export async function createPostgresTraceStore(source: PostgresSource): Promise<TraceStore> {
  const connection = openPostgres(source);
  const { sql } = connection;
  await migratePostgres(sql, TABLE, SCHEMA);
  const table = sql(TABLE);
  const url = new URL(
    'url' in source ? source.url : `postgres://${sql.options.host[0] ?? 'localhost'}/${sql.options.database}`,
  );
  const location = `postgres://${url.host}${url.pathname} (${TABLE})`;

  return createTraceStore({
    location,
    async insert(rows) {
      await sql.begin(async (tx) => {
        for (let start = 0; start < rows.length; start += INSERT_BATCH) {
          const batch = rows.slice(start, start + INSERT_BATCH).map((row) => ({
            session_id: row.sessionId,
            at: row.at,
            type: row.type,
            event: row.json,
          }));
          await tx`insert into ${table} ${tx(batch, 'session_id', 'at', 'type', 'event')}`;
        }
      });
    },
    async page(request) {
      const rows = await sql`
        select seq, event from ${table}
        where seq > ${request.afterSeq}
          ${request.sessionId === undefined ? sql`` : sql`and session_id = ${request.sessionId}`}
          ${request.types === undefined ? sql`` : sql`and type = any(${sql.array([...request.types])})`}
          ${request.since === undefined ? sql`` : sql`and at >= ${request.since}`}
          ${request.until === undefined ? sql`` : sql`and at < ${request.until}`}
        order by seq limit ${request.limit}`.values();
      return rows.map((row) => {
        const parsed = pageRowSchema.safeParse(row);
        if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
        return { seq: parsed.data[0], json: parsed.data[1] };
      });
    },
    async count(sessionId) {
      const [row] = await sql`select count(*) from ${table} where session_id = ${sessionId}`.values();
      return countSchema.parse(row)[0];
    },
    async deleteSession(sessionId) {
      const result = await sql`delete from ${table} where session_id = ${sessionId}`;
      return result.count;
    },
    async close() {
      await connection.close();
    },
  });
}
