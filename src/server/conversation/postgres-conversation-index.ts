/**
 * The conversation index in PostgreSQL, shared by every proxy instance on the database: a conversation
 * one instance recorded is recognized by the others. A record is one transaction: prefixes claimed with
 * `ON CONFLICT DO NOTHING` (the first committed claim wins; a concurrent claimer of the same prefix waits
 * for it, then leaves it), then the head upserted. Records of different conversations claim the prefixes
 * they share in the same order (a conversation's own), so they queue rather than deadlock.
 */
import type postgres from 'postgres';
import { z } from 'zod';
import { SchemaTooNewError, StoredDataInvalidError } from '../../core/errors/index.ts';
import { openPostgres, type PostgresSource } from '../../store/postgres-source.ts';
import { pendingMigrations, statementsFor } from '../../store/session-store-migrations.ts';
import type { ConversationHead } from './conversation-index.ts';
import {
  CONVERSATION_INDEX_MIGRATIONS,
  CONVERSATION_INDEX_SCHEMA_VERSION,
  CONVERSATION_MIGRATIONS_TABLE,
  CREATE_CONVERSATION_MIGRATIONS_TABLE,
} from './conversation-index-migrations.ts';
import {
  findByProbes,
  PREFIXES_TABLE,
  type PrefixOwner,
  RECORDINGS_SEQUENCE,
  SESSIONS_TABLE,
  type StoredConversationIndex,
} from './stored-conversation-index.ts';

/** Prefixes per INSERT: the hashes go as one array parameter, so this bounds a statement's size only. */
export const PREFIX_INSERT_BATCH = 1_000;

/** Rows are read by position, so a caller's client with column-name transforms reads them the same. */
const ownerRowSchema = z.tuple([z.string(), z.int().nonnegative(), z.string()]);
const headRowSchema = z.tuple([z.string(), z.int().nonnegative(), z.string(), z.int()]);
const versionRowSchema = z.tuple([z.int().nullable()]);

export async function createPostgresConversationIndex(
  source: PostgresSource,
): Promise<StoredConversationIndex> {
  const connection = openPostgres(source);
  const { sql } = connection;
  const location = `postgres://${sql.options.host[0] ?? 'localhost'}/${sql.options.database} (${PREFIXES_TABLE})`;
  try {
    await migrate(sql, location);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const prefixes = sql(PREFIXES_TABLE);
  const sessions = sql(SESSIONS_TABLE);

  const ownerOf = async (owner: string, hash: string): Promise<PrefixOwner | undefined> => {
    const [row] = await sql`
      select p.session_id, s.head, s.head_hash from ${prefixes} p
      join ${sessions} s on s.owner = p.owner and s.session_id = p.session_id
      where p.owner = ${owner} and p.hash = ${hash}`.values();
    if (row === undefined) return undefined;
    const parsed = ownerRowSchema.safeParse(row);
    if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
    return { sessionId: parsed.data[0], head: parsed.data[1], headHash: parsed.data[2] };
  };

  return {
    find: (owner, hashes) => findByProbes(hashes, (hash) => ownerOf(owner, hash)),
    async heads(owner, hashes) {
      if (hashes.length === 0) return [];
      // One statement, the hashes as one array: an index lookup on (owner, head_hash) each. recorded_seq
      // is a bigint, which the client gives as a string: float8 holds it exactly (below 2^53).
      const rows = await sql`
        select session_id, head, head_hash, recorded_seq::float8 from ${sessions}
        where owner = ${owner} and head_hash = any(${hashes}::text[])`.values();
      return rows.map((row): ConversationHead => {
        const parsed = headRowSchema.safeParse(row);
        if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
        const [sessionId, head, headHash, recordedAt] = parsed.data;
        return { sessionId, head, headHash, recordedAt };
      });
    },
    async record(owner, sessionId, hashes) {
      await sql.begin(async (tx) => {
        for (let start = 0; start < hashes.length; start += PREFIX_INSERT_BATCH) {
          const batch = hashes.slice(start, start + PREFIX_INSERT_BATCH);
          await tx`
            insert into ${prefixes} (owner, hash, session_id)
            select ${owner}::text, hash, ${sessionId}::text from unnest(${batch}::text[]) as hash
            on conflict do nothing`;
        }
        // The sequence numbers records on several instances at once without making them wait on each
        // other; of two records at once, either may count as the later, as either may commit last.
        await tx`
          insert into ${sessions} (owner, session_id, head, head_hash, recorded_at, recorded_seq)
          values (${owner}, ${sessionId}, ${hashes.length}, ${hashes.at(-1) ?? ''}, ${Date.now()},
            nextval(${RECORDINGS_SEQUENCE}::regclass))
          on conflict (owner, session_id) do update
            set head = excluded.head, head_hash = excluded.head_hash, recorded_at = excluded.recorded_at,
              recorded_seq = excluded.recorded_seq`;
      });
    },
    async close() {
      await connection.close();
    },
  };
}

/**
 * Brings the tables to the current schema in one transaction. `create … if not exists` alone races on
 * PostgreSQL's catalogs, so instances opening at once take turns on an advisory lock: the first applies
 * what is pending, the others find it done.
 */
async function migrate(sql: postgres.Sql, location: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${CONVERSATION_MIGRATIONS_TABLE}))`;
    // Checked first, since `if not exists` on an existing table sends a notice a caller's client may log.
    const [exists] = await tx`select to_regclass(${CONVERSATION_MIGRATIONS_TABLE}) is not null`.values();
    if (exists?.[0] !== true) await tx.unsafe(CREATE_CONVERSATION_MIGRATIONS_TABLE);
    const [row] = await tx.unsafe(`select max(version) from ${CONVERSATION_MIGRATIONS_TABLE}`).values();
    const [version] = versionRowSchema.parse(row);
    const current = version ?? 0;
    if (current > CONVERSATION_INDEX_SCHEMA_VERSION) {
      throw new SchemaTooNewError(location, current, CONVERSATION_INDEX_SCHEMA_VERSION);
    }
    for (const migration of pendingMigrations(current, CONVERSATION_INDEX_MIGRATIONS)) {
      for (const statement of statementsFor(migration, 'postgres')) await tx.unsafe(statement);
      await tx.unsafe(
        `insert into ${CONVERSATION_MIGRATIONS_TABLE} (version, name, applied_at) values ($1, $2, $3)`,
        [migration.version, migration.name, Date.now()],
      );
    }
  });
}
