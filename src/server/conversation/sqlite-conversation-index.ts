/**
 * The conversation index in SQLite, so a restarted proxy still knows its conversations. Its tables can
 * share a file with the session store. A record is one `BEGIN IMMEDIATE` transaction (all prefixes and
 * the head, or nothing after a crash); it takes the write lock up front, so another process's writer is
 * waited for (busy_timeout) rather than failing mid-transaction.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { SchemaTooNewError, StoredDataInvalidError } from '../../core/errors/index.ts';
import { WorkSlices, yieldToEventLoop } from '../../core/work-slices.ts';
import { pendingMigrations, statementsFor } from '../../store/session-store-migrations.ts';
import { openSqlite, type SqliteSource } from '../../store/sqlite-source.ts';
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
  SESSIONS_HEAD_INDEX,
  SESSIONS_TABLE,
  type StoredConversationIndex,
} from './stored-conversation-index.ts';

const ownerRowSchema = z.object({
  session_id: z.string(),
  head: z.int().nonnegative(),
  head_hash: z.string(),
});
const headRowSchema = z.object({
  session_id: z.string(),
  head: z.int().nonnegative(),
  head_hash: z.string(),
  recorded_seq: z.int(),
});
const versionRowSchema = z.object({ version: z.int().nullable() });

/** Hashes one statement looks up, and prefixes one transaction claims: a few milliseconds' work. */
export const HASHES_PER_STATEMENT = 2_000;

export function createSqliteConversationIndex(source: SqliteSource): StoredConversationIndex {
  const connection = openSqlite(source);
  const { db } = connection;
  const location = `${'database' in source ? db.name : source.filename} (${PREFIXES_TABLE})`;
  try {
    migrate(db, location);
  } catch (error) {
    connection.close();
    throw error;
  }

  // A session whose record is under way (in pieces: recorded_at < 0, or no row yet) is found by no
  // prefix: its claims so far are not all of its conversation's shorter prefixes.
  const probe = db.prepare(
    `SELECT p.session_id, s.head, s.head_hash FROM ${PREFIXES_TABLE} p
     JOIN ${SESSIONS_TABLE} s ON s.owner = p.owner AND s.session_id = p.session_id
     WHERE p.owner = ? AND p.hash = ? AND s.recorded_at >= 0`,
  );
  const claim = db.prepare(
    `INSERT OR IGNORE INTO ${PREFIXES_TABLE} (owner, hash, session_id) VALUES (?, ?, ?)`,
  );
  // The record's place in the order is the greatest so far plus one: records hold the write lock, so
  // no two take the same.
  const setHead = db.prepare(
    `INSERT INTO ${SESSIONS_TABLE} (owner, session_id, head, head_hash, recorded_at, recorded_seq)
     VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(recorded_seq), 0) + 1 FROM ${SESSIONS_TABLE}))
     ON CONFLICT (owner, session_id) DO UPDATE
       SET head = excluded.head, head_hash = excluded.head_hash, recorded_at = excluded.recorded_at,
           recorded_seq = excluded.recorded_seq`,
  );
  /** Claims `hashes` from `from` on and makes them the session's conversation, in one transaction. */
  const recordAll = db.transaction(
    (owner: string, sessionId: string, hashes: readonly string[], from: number) => {
      for (let index = from; index < hashes.length; index++) claim.run(owner, hashes[index], sessionId);
      setHead.run(owner, sessionId, hashes.length, hashes.at(-1) ?? '', Date.now());
    },
  );
  const setHeadOnly = db.transaction((owner: string, sessionId: string, hashes: readonly string[]) => {
    setHead.run(owner, sessionId, hashes.length, hashes.at(-1) ?? '', Date.now());
  });
  const claimAll = db.transaction((owner: string, sessionId: string, hashes: readonly string[]) => {
    for (const hash of hashes) claim.run(owner, hash, sessionId);
  });
  const recordingStarts = db.prepare(
    `UPDATE ${SESSIONS_TABLE} SET recorded_at = -1 WHERE owner = ? AND session_id = ?`,
  );
  const startRecording = db.transaction((owner: string, sessionId: string) => {
    recordingStarts.run(owner, sessionId);
  });
  const headOf = db.prepare(
    `SELECT head, head_hash FROM ${SESSIONS_TABLE} WHERE owner = ? AND session_id = ?`,
  );

  /**
   * How many of `hashes` the session's last record claimed already: all its conversation's prefixes, when
   * this conversation continues it (its head hash is this one's at its head). 0 otherwise.
   */
  const recordedBefore = (owner: string, sessionId: string, hashes: readonly string[]): number => {
    const row = headOf.get(owner, sessionId) as { head?: unknown; head_hash?: unknown } | undefined;
    const head = typeof row?.head === 'number' ? row.head : 0;
    return head > 0 && head <= hashes.length && hashes[head - 1] === row?.head_hash ? head : 0;
  };

  // The hashes go as one JSON array, so a request's thousands of them are one statement, with no
  // bound on variables; each is a lookup on (owner, head_hash). INDEXED BY, since without statistics
  // the planner may rather scan all the owner's sessions by the primary key.
  const headsIn = db.prepare(
    `SELECT session_id, head, head_hash, recorded_seq FROM ${SESSIONS_TABLE} INDEXED BY ${SESSIONS_HEAD_INDEX}
     WHERE owner = ? AND head_hash IN (SELECT value FROM json_each(?))`,
  );

  const ownerOf = (owner: string, hash: string): PrefixOwner | undefined => {
    const row = probe.get(owner, hash);
    if (row === undefined) return undefined;
    const parsed = ownerRowSchema.safeParse(row);
    if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
    return { sessionId: parsed.data.session_id, head: parsed.data.head, headHash: parsed.data.head_hash };
  };

  return {
    find: (owner, hashes) => findByProbes(hashes, (hash) => ownerOf(owner, hash)),
    async heads(owner, hashes) {
      if (hashes.length === 0) return [];
      const found: ConversationHead[] = [];
      // A piece of the hashes per statement, the event loop getting a turn between two: a million
      // hashes in one held the thread for a second.
      for (let from = 0; from < hashes.length; from += HASHES_PER_STATEMENT) {
        if (from > 0) await yieldToEventLoop();
        const piece = hashes.slice(from, from + HASHES_PER_STATEMENT);
        for (const row of headsIn.all(owner, JSON.stringify(piece))) {
          const parsed = headRowSchema.safeParse(row);
          if (!parsed.success) throw new StoredDataInvalidError(location, z.prettifyError(parsed.error));
          const { session_id, head, head_hash, recorded_seq } = parsed.data;
          found.push({ sessionId: session_id, head, headHash: head_hash, recordedAt: recorded_seq });
        }
      }
      return found;
    },
    async record(owner, sessionId, hashes) {
      // What the session's last record claimed is claimed still: a request continuing its conversation
      // claims its new messages' prefixes only.
      const from = recordedBefore(owner, sessionId, hashes);
      const fresh = hashes.length - from;
      if (fresh <= HASHES_PER_STATEMENT) {
        recordAll.immediate(owner, sessionId, hashes, from);
        return;
      }
      // Many: a transaction a piece (2,000 claims, a few milliseconds), the event loop getting a turn
      // between two. The pieces go in hash order: each writes one stretch of the b-tree (in the
      // conversation's order every piece wrote all over it, and 400,000 took 7 s). Meanwhile `find`
      // sees none of the session's prefixes, so what it sees is still every prefix of whole records;
      // a record cut short leaves the session unseen by `find` until its next record (a label, not its
      // continuation: `heads` finds it by its head as before).
      startRecording.immediate(owner, sessionId);
      const sorted = await sortedInSlices(hashes.slice(from));
      for (let start = 0; start < sorted.length; start += HASHES_PER_STATEMENT) {
        await yieldToEventLoop();
        claimAll.immediate(owner, sessionId, sorted.slice(start, start + HASHES_PER_STATEMENT));
      }
      setHeadOnly.immediate(owner, sessionId, hashes);
    },
    async close() {
      connection.close();
    },
  };
}

/**
 * `texts` in ascending order, sorted in slices: bucketed by their first two characters (a hash's: 256
 * buckets of alike size), each bucket sorted on its own.
 */
async function sortedInSlices(texts: readonly string[]): Promise<string[]> {
  const slices = new WorkSlices();
  const buckets = new Map<string, string[]>();
  for (const text of texts) {
    const key = text.slice(0, 2);
    const bucket = buckets.get(key);
    if (bucket) bucket.push(text);
    else buckets.set(key, [text]);
    if (slices.due()) await slices.next();
  }
  const sorted: string[] = [];
  for (const key of [...buckets.keys()].sort()) {
    for (const text of (buckets.get(key) as string[]).sort()) sorted.push(text);
    if (slices.due()) await slices.next();
  }
  return sorted;
}

/**
 * Brings the tables to the current schema in one immediate transaction, so processes opening the same
 * file at once take turns: the first applies what is pending, the others find it done.
 */
function migrate(db: Database.Database, location: string): void {
  db.transaction(() => {
    db.exec(CREATE_CONVERSATION_MIGRATIONS_TABLE);
    const { version } = versionRowSchema.parse(
      db.prepare(`SELECT MAX(version) AS version FROM ${CONVERSATION_MIGRATIONS_TABLE}`).get(),
    );
    const current = version ?? 0;
    if (current > CONVERSATION_INDEX_SCHEMA_VERSION) {
      throw new SchemaTooNewError(location, current, CONVERSATION_INDEX_SCHEMA_VERSION);
    }
    const applied = db.prepare(
      `INSERT INTO ${CONVERSATION_MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`,
    );
    for (const migration of pendingMigrations(current, CONVERSATION_INDEX_MIGRATIONS)) {
      for (const statement of statementsFor(migration, 'sqlite')) db.exec(statement);
      applied.run(migration.version, migration.name, Date.now());
    }
  }).immediate();
}
