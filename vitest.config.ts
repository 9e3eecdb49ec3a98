import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Playwright's specs live in tests/e2e and run under Playwright, never here.
    include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
    // Migrates and seeds the databases once per run; each test file copies them (tests/helpers/database.ts).
    globalSetup: ['tests/setup/database-templates.ts'],
    // One test file per core (vitest's default leaves one core to itself): the files spend much of
    // their time waiting on PGlite's disk, child processes, workers and timers, and the main process
    // little. On a 2-core machine this halves the run.
    maxWorkers: os.availableParallelism(),
    // Opening PGlite (WebAssembly PostgreSQL) and migrating takes seconds on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
