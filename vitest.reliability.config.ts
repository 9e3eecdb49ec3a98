import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability` (issue #10): load, crash and hostile-input tests against the built
 * server on PostgreSQL. Kept apart from `npm run test:unit` (its own include glob) and from
 * Playwright (tests/e2e). The parts run one after another: each starts its own server, and the
 * load test needs the machine to itself.
 */
export default defineConfig({
  test: {
    include: ['tests/reliability/**/*.test.ts'],
    globalSetup: ['tests/reliability/support/global-setup.ts'],
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 300_000,
    hookTimeout: 180_000,
    reporters: ['verbose'],
  },
});
