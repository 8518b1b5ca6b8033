import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SessionDatabase, SessionStoreHarness } from '../session-store.conformance.ts';
import { MIGRATIONS_TABLE, TABLE_PREFIX } from '../session-store-migrations.ts';
import { createSqliteSessionStore, sqliteSessionStorePath } from '../sqlite-session-store.ts';

/** A temporary data directory per test, removed afterwards; tampering goes through a second connection. */
export const sqliteHarness: SessionStoreHarness = {
  async fresh(): Promise<SessionDatabase> {
    const dataDir = mkdtempSync(join(tmpdir(), 'ctxkit-sqlite-'));
    const path = sqliteSessionStorePath({ dataDir });
    const raw = (work: (db: Database.Database) => void): void => {
      const db = new Database(path);
      try {
        work(db);
      } finally {
        db.close();
      }
    };
    return {
      open: () => createSqliteSessionStore({ dataDir }),
      persistent: true,
      tamper: {
        async setMessageBody(sessionId, seq, body) {
          raw((db) =>
            db
              .prepare(`UPDATE ${TABLE_PREFIX}messages SET body = ? WHERE session_id = ? AND seq = ?`)
              .run(body, sessionId, seq),
          );
        },
        async setEditBody(sessionId, position, body) {
          raw((db) =>
            db
              .prepare(`UPDATE ${TABLE_PREFIX}edits SET body = ? WHERE session_id = ? AND position = ?`)
              .run(body, sessionId, position),
          );
        },
        async setPolicyOverride(sessionId, text) {
          raw((db) =>
            db
              .prepare(`UPDATE ${TABLE_PREFIX}sessions SET policy_override = ? WHERE id = ?`)
              .run(text, sessionId),
          );
        },
        async setLastRequest(sessionId, text) {
          raw((db) =>
            db
              .prepare(`UPDATE ${TABLE_PREFIX}sessions SET last_request = ? WHERE id = ?`)
              .run(text, sessionId),
          );
        },
        async setSchemaVersion(version) {
          raw((db) =>
            db
              .prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`)
              .run(version, 'from a newer ctxkit', Date.now()),
          );
        },
      },
      async dispose() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
  durable: true,
};
