/**
 * Offloaded content on PostgreSQL, its own table `ctxkit_blobs`: what several `ctxkit serve` instances on
 * one database need, since a blob one instance offloaded must be readable by whichever instance serves the
 * session's next request. Names are checked as every blob store checks them (`blob-store-ids.ts`), so a
 * ref means the same in every backend; the content is kept as its UTF-8 bytes (`bytea`: PostgreSQL text
 * cannot hold NUL) with the sha256 recorded at `put`, and checked on every read.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { BlobIntegrityError, BlobNotFoundError, StoredDataInvalidError } from '../core/errors/index.ts';
import { sha256OfText } from '../core/sha256-of-text.ts';
import type { BlobInfo, BlobKind, BlobStore } from './blob-store.ts';
import { blobRef, parseBlobRef, validateBlobKind, validateBlobName } from './blob-store-ids.ts';
import { migratePostgres, openPostgres, type PostgresSource } from './postgres-source.ts';

export const BLOBS_TABLE = 'ctxkit_blobs';

/**
 * Keyed by a digest of session and ref, not by the two: a B-tree entry holds at most 2,704 bytes, and a
 * session id and a ref may be 2,048 and 4,096 bytes of UTF-8 (the longest ids any store accepts).
 */
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS ${BLOBS_TABLE} (
    key TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    content BYTEA NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS ${BLOBS_TABLE}_session ON ${BLOBS_TABLE} (md5(session_id))`,
];

/** A blob's row key: the sha256 of its session id and ref, apart. */
function blobKey(sessionId: string, ref: string): string {
  return createHash('sha256').update(`${sessionId.length}:${sessionId}\n${ref}`, 'utf8').digest('hex');
}

/** Rows are read by position, so a caller's client with column-name transforms reads them the same. */
const infoRowSchema = z.tuple([
  z.string(),
  z.enum(['large_tool_results', 'conversation_history']),
  z.string(),
  z.string().regex(/^[0-9a-f]{64}$/),
  z.coerce.number().int().nonnegative(),
]);
const contentRowSchema = z.tuple([z.string(), z.instanceof(Uint8Array)]);
const countSchema = z.tuple([z.coerce.number().int().nonnegative()]);

export async function createPostgresBlobStore(source: PostgresSource): Promise<BlobStore> {
  const connection = openPostgres(source);
  const { sql } = connection;
  try {
    await migratePostgres(sql, BLOBS_TABLE, SCHEMA);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const table = sql(BLOBS_TABLE);
  const location = `postgres://${sql.options.host[0] ?? 'localhost'}/${sql.options.database} (${BLOBS_TABLE})`;

  const parseRow = <T>(schema: z.ZodType<T>, row: unknown): T => {
    const parsed = schema.safeParse(row);
    if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
    return parsed.data;
  };
  const infoOf = (row: unknown): BlobInfo => {
    const [ref, kind, id, sha256, bytes] = parseRow(infoRowSchema, row);
    return { ref, kind, id, sha256, bytes };
  };
  const checked = (sessionId: string, ref: string): void => {
    validateBlobName('sessionId', sessionId);
    parseBlobRef(ref);
  };

  return {
    async put(sessionId, kind, id, content) {
      validateBlobName('sessionId', sessionId);
      validateBlobKind(kind);
      const ref = blobRef(kind, id);
      const bytes = Buffer.from(content, 'utf8');
      const info: BlobInfo = { ref, kind, id, sha256: sha256OfText(content), bytes: bytes.length };
      await sql`
        insert into ${table} (key, session_id, ref, kind, id, sha256, bytes, content)
        values (${blobKey(sessionId, ref)}, ${sessionId}, ${ref}, ${kind}, ${id}, ${info.sha256}, ${info.bytes}, ${bytes})
        on conflict (key) do update
        set sha256 = excluded.sha256, bytes = excluded.bytes, content = excluded.content`;
      return info;
    },

    async get(sessionId, ref, expectedSha256) {
      checked(sessionId, ref);
      const [row] = await sql`
        select sha256, content from ${table} where key = ${blobKey(sessionId, ref)}`.values();
      if (row === undefined) throw new BlobNotFoundError(sessionId, ref);
      const [recorded, bytes] = parseRow(contentRowSchema, row);
      const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
      const actual = sha256OfText(content);
      if (actual !== recorded) throw new BlobIntegrityError(sessionId, ref, recorded, actual);
      if (expectedSha256 !== undefined && actual !== expectedSha256)
        throw new BlobIntegrityError(sessionId, ref, expectedSha256, actual);
      return content;
    },

    async stat(sessionId, ref) {
      checked(sessionId, ref);
      const [row] = await sql`
        select ref, kind, id, sha256, bytes from ${table} where key = ${blobKey(sessionId, ref)}`.values();
      return row === undefined ? undefined : infoOf(row);
    },

    async list(sessionId, kind?: BlobKind) {
      validateBlobName('sessionId', sessionId);
      if (kind !== undefined) validateBlobKind(kind);
      // Ordered as the other stores order refs: by UTF-16 code unit, which `collate "C"` gives for the
      // ASCII refs are made of.
      const rows = await sql`
        select ref, kind, id, sha256, bytes from ${table}
        where md5(session_id) = md5(${sessionId}) and session_id = ${sessionId}
          ${kind === undefined ? sql`` : sql`and kind = ${kind}`}
        order by ref collate "C"`.values();
      return rows.map(infoOf).sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
    },

    async delete(sessionId, ref) {
      checked(sessionId, ref);
      const rows = await sql`
        delete from ${table} where key = ${blobKey(sessionId, ref)} returning 1`.values();
      return rows.length > 0;
    },

    async deleteSession(sessionId) {
      validateBlobName('sessionId', sessionId);
      const [row] = await sql`
        with deleted as (
          delete from ${table} where md5(session_id) = md5(${sessionId}) and session_id = ${sessionId}
          returning 1
        )
        select count(*) from deleted`.values();
      return parseRow(countSchema, row)[0];
    },

    close: () => connection.close(),
  };
}
