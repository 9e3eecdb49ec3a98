import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Playwright's specs live in tests/e2e and run under Playwright, never here.
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    // Opening PGlite (WebAssembly PostgreSQL) and migrating takes seconds on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
