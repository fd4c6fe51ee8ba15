import { defineConfig } from 'vitest/config';
import { SlowestFirst } from './test/setup/slowest-first.js';

/**
 * Unit tests need no services, so they run in their own project without the global setup;
 * integration and e2e tests share one Redis and one MongoDB started by test/setup/global-setup.ts.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    // The machines this runs on have two cores; mongod under Wine needs one of them.
    maxWorkers: 2,
    testTimeout: 30_000,
    // Outbound network is blocked: tests talk only to loopback (stores, fakes, spawned processes).
    setupFiles: ['test/setup/block-network.ts'],
    hookTimeout: 120_000,
    // Slowest first, from measured durations: a fresh clone has no results cache to order by.
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        // Unit files share their workers' loaded modules: importing the code again for each
        // file cost more than the unit tests themselves.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'services',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          globalSetup: ['test/setup/global-setup.ts'],
          setupFiles: ['test/setup/spec-conformance.ts'],
        },
      },
    ],
  },
});
