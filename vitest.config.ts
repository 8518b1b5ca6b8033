import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that assert how fast others are served while a huge request is handled: they run after every
 * other file, on their own, so what they measure is the server and not the test files beside them.
 */
const RUN_ALONE = ['src/server/huge-request.test.ts'];
const TIMEOUTS = { testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'ctxkit',
          include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'consumer/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...RUN_ALONE],
          ...TIMEOUTS,
          // The compiled dist/ the CLI's tests run, built when stale; at most one embedded PostgreSQL per
          // run, started when a test first asks for it.
          globalSetup: [
            'src/cli/testing/build-dist-global-setup.ts',
            'src/store/testing/session-store-postgres-global-setup.ts',
          ],
        },
      },
      {
        // One file at a time, in the group vitest runs after all the others.
        test: { name: 'run-alone', include: RUN_ALONE, fileParallelism: false, ...TIMEOUTS },
      },
    ],
  },
});
