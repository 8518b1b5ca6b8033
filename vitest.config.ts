import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'consumer/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The compiled dist/ the CLI's tests run, built when stale; at most one embedded PostgreSQL per run,
    // started when a test first asks for it.
    globalSetup: [
      'src/cli/testing/build-dist-global-setup.ts',
      'src/store/testing/session-store-postgres-global-setup.ts',
    ],
  },
});
