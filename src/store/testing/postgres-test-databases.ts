/**
 * Test support: one embedded PostgreSQL per test file (`startTestPostgres` from
 * `session-store-postgres-server.ts`, or the server `CTXKIT_TEST_POSTGRES_URL` names), and a
 * fresh database per test, so suites never see each other's tables.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { startTestPostgres, type TestPostgres } from './session-store-postgres-server.ts';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface TestDatabases {
  create(): Promise<TestDatabase>;
}

/** Call at the top level of a test file: starts the server before its tests and stops it after. */
export function usePostgresTestDatabases(): TestDatabases {
  let server: TestPostgres | undefined;
  let admin: postgres.Sql | undefined;
  beforeAll(async () => {
    server = await startTestPostgres({ fast: true });
    admin = postgres(server.url(), { onnotice: () => {}, max: 2 });
  });
  afterAll(async () => {
    await admin?.end({ timeout: 5 });
    await server?.stop();
  });
  return {
    async create() {
      if (!server || !admin) throw new Error('usePostgresTestDatabases: use databases inside tests');
      const sql = admin;
      const name = `ctxkit_test_${randomBytes(6).toString('hex')}`;
      await sql.unsafe(`CREATE DATABASE ${name}`);
      return {
        url: server.url(name),
        drop: async () => {
          await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
      };
    },
  };
}
