/**
 * The conformance suite and PostgreSQL specifics against a real server: the run's shared embedded
 * PostgreSQL (see testing/session-store-postgres-server.ts; this file starts its own when run without the
 * global setup), a database for this file and a schema per test.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numbered, user } from '../testing/build-messages.ts';
import { createPostgresSessionStore } from './postgres-session-store.ts';
import { describeSessionStoreConformance, type SessionDatabase } from './session-store.conformance.ts';
import type { SessionStore } from './session-store.ts';
import {
  CREATE_MIGRATIONS_TABLE,
  MIGRATIONS_TABLE,
  SESSION_STORE_MIGRATIONS,
  SESSION_STORE_SCHEMA_VERSION,
  statementsFor,
  TABLE_PREFIX,
} from './session-store-migrations.ts';
import { expectMigratedV1Session, V1_MESSAGES } from './testing/schema-v1-session.ts';
import { startTestPostgres, type TestPostgres } from './testing/session-store-postgres-server.ts';

const DATABASE = `ctxkit_session_store_${randomBytes(4).toString('hex')}`;
let server: TestPostgres | undefined;
let admin: postgres.Sql | undefined;
let url = '';

beforeAll(async () => {
  server = await startTestPostgres({ fast: true });
  const root = postgres(server.url(), { onnotice: () => {}, max: 1 });
  try {
    await root.unsafe(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await root.end();
  }
  url = server.url(DATABASE);
  admin = postgres(url, { onnotice: () => {}, max: 2 });
});

afterAll(async () => {
  await admin?.end();
  if (server && !server.embedded) {
    const root = postgres(server.url(), { onnotice: () => {}, max: 1 });
    await root.unsafe(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).finally(() => root.end());
  }
  await server?.stop();
});

const adminSql = (): postgres.Sql => {
  if (!admin) throw new Error('PostgreSQL did not start');
  return admin;
};

/** A client whose tables resolve to one schema: what a caller sharing a database would pass as `sql`. */
const clientFor = (schema: string, max = 4): postgres.Sql =>
  postgres(url, { onnotice: () => {}, max, connection: { search_path: schema } });

async function freshSchema(): Promise<SessionDatabase & { schema: string }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await adminSql().unsafe(`CREATE SCHEMA ${schema}`);
  const clients: postgres.Sql[] = [];
  return {
    schema,
    async open(): Promise<SessionStore> {
      const sql = clientFor(schema);
      clients.push(sql);
      return createPostgresSessionStore({ sql });
    },
    persistent: true,
    tamper: {
      async setMessageBody(sessionId, seq, body) {
        await adminSql().unsafe(
          `UPDATE ${schema}.${TABLE_PREFIX}messages SET body = $1 WHERE session_id = $2 AND seq = $3`,
          [body, sessionId, seq],
        );
      },
      async setEditBody(sessionId, position, body) {
        await adminSql().unsafe(
          `UPDATE ${schema}.${TABLE_PREFIX}edits SET body = $1 WHERE session_id = $2 AND position = $3`,
          [body, sessionId, position],
        );
      },
      async setPolicyOverride(sessionId, text) {
        await adminSql().unsafe(
          `UPDATE ${schema}.${TABLE_PREFIX}sessions SET policy_override = $1 WHERE id = $2`,
          [text, sessionId],
        );
      },
      async setLastRequest(sessionId, text) {
        await adminSql().unsafe(
          `UPDATE ${schema}.${TABLE_PREFIX}sessions SET last_request = $1 WHERE id = $2`,
          [text, sessionId],
        );
      },
      async setSchemaVersion(version) {
        await adminSql().unsafe(
          `INSERT INTO ${schema}.${MIGRATIONS_TABLE} (version, name, applied_at) VALUES ($1, $2, $3)`,
          [version, 'from a newer ctxkit', Date.now()],
        );
      },
    },
    async dispose() {
      await Promise.all(clients.map((sql) => sql.end({ timeout: 5 })));
      await adminSql().unsafe(`DROP SCHEMA ${schema} CASCADE`);
    },
  };
}

describeSessionStoreConformance('postgres', { fresh: freshSchema, durable: true });

describe('createPostgresSessionStore', () => {
  it('opens its own pool from a URL and ends it on close', async () => {
    const schema = `u_${randomBytes(6).toString('hex')}`;
    await adminSql().unsafe(`CREATE SCHEMA ${schema}`);
    const withSchema = new URL(url);
    withSchema.searchParams.set('search_path', schema);
    const store = await createPostgresSessionStore({ url: withSchema.toString(), max: 2 });
    try {
      await store.appendMessages('s1', numbered([user('a')]), 0, 1);
      expect((await store.load('s1'))?.log).toHaveLength(1);
    } finally {
      await store.close();
    }
    const [row] = await adminSql().unsafe(`SELECT count(*)::int AS n FROM ${schema}.${TABLE_PREFIX}messages`);
    expect(row?.n).toBe(1);
    await adminSql().unsafe(`DROP SCHEMA ${schema} CASCADE`);
  });

  it('migrates once when several instances open an empty database at the same moment', async () => {
    const db = await freshSchema();
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => db.open()));
      await Promise.all(
        stores.map((store, index) => store.appendMessages(`s${index}`, numbered([user('a')]), 0, 1)),
      );
      for (const store of stores) await store.close();
      const rows = await adminSql().unsafe(
        `SELECT version FROM ${db.schema}.${MIGRATIONS_TABLE} ORDER BY version`,
      );
      // Each version recorded once, whichever instance applied it.
      expect(rows.map((row) => row.version)).toEqual(
        Array.from({ length: SESSION_STORE_SCHEMA_VERSION }, (_, index) => index + 1),
      );
    } finally {
      await db.dispose();
    }
  });

  it('migrates a version-1 database: ids read from the bodies, content ids left empty, nothing lost', async () => {
    const db = await freshSchema();
    try {
      const messages = V1_MESSAGES;
      const old = clientFor(db.schema, 1);
      try {
        const [first] = SESSION_STORE_MIGRATIONS;
        if (!first) throw new Error('no migrations');
        await old.unsafe(CREATE_MIGRATIONS_TABLE);
        for (const statement of statementsFor(first, 'postgres')) await old.unsafe(statement);
        await old.unsafe(`INSERT INTO ${MIGRATIONS_TABLE} VALUES (1, $1, 0)`, [first.name]);
        await old.unsafe(`INSERT INTO ${TABLE_PREFIX}sessions VALUES ('s1', 1, 1, 3, 0)`);
        for (const message of messages) {
          await old.unsafe(
            `INSERT INTO ${TABLE_PREFIX}messages (session_id, seq, body) VALUES ('s1', $1, $2)`,
            [message.seq, JSON.stringify(message)],
          );
        }
      } finally {
        await old.end();
      }
      const store = await db.open();
      try {
        await expectMigratedV1Session(store);
      } finally {
        await store.close();
      }
    } finally {
      await db.dispose();
    }
  });

  it('needs a url or a client', async () => {
    await expect(createPostgresSessionStore({})).rejects.toMatchObject({ code: 'invalid_store_options' });
  });
});
