/**
 * The gate's own check (.ci/run copies this into src/ and runs it through `npm test`): a run with a failing
 * test must exit non-zero. It first brings up the test run's PostgreSQL, since a package that hooks
 * process exit once turned every failing run into exit code 0 that way.
 */
import { expect, it } from 'vitest';
import { startTestPostgres } from './store/testing/session-store-postgres-server.ts';

it('fails on purpose, after PostgreSQL has started', async () => {
  const server = await startTestPostgres({ fast: true });
  await server.stop();
  expect(1).toBe(2);
});
