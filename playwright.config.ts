import { defineConfig } from '@playwright/test';
import { SERVER_NODE_FLAGS } from './scripts/node-flags.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './tests/helpers/chromium.ts';

const serverFlags = SERVER_NODE_FLAGS.join(' ');
const port = Number(process.env.E2E_PORT ?? 4399);
/** The address of the test wallet's fixed key (tests/helpers/wallet.ts). */
const MODERATOR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const dataDir = '.e2e-data';
const brokenPort = port + 1;
const closedPort = port + 2;
/** The archive that harvests in the tests: its records would change the counts other specs assert on the main one. */
const harvestPort = port + 4;

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: 1,
  forbidOnly: process.env.CI === 'true',
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${port}`,
    locale: 'es-DO',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  // The built archive on a fresh embedded database: the first start seeds the real catalogue.
  webServer: [
    {
      command: `rm -rf ${dataDir} && node ${serverFlags} scripts/start.ts`,
      url: `http://localhost:${port}/dashboard`,
      // The test wallet moderates (tests/helpers/wallet.ts); the other test wallet does not.
      env: { PORT: String(port), HOST: 'localhost', ARCHIVE_DATA_DIR: dataDir, DATABASE_URL: '', ARCHIVE_MODERATORS: MODERATOR },
      timeout: 180_000,
      reuseExistingServer: false,
      stdout: 'pipe',
    },
    // The spec's stated routing rule: everything but /auth/* needs a session.
    {
      command: `rm -rf ${dataDir}-closed && node ${serverFlags} scripts/start.ts`,
      url: `http://localhost:${closedPort}/auth/login`,
      env: { PORT: String(closedPort), HOST: 'localhost', ARCHIVE_DATA_DIR: `${dataDir}-closed`, DATABASE_URL: '', ARCHIVE_REQUIRE_LOGIN: 'true' },
      timeout: 180_000,
      reuseExistingServer: false,
    },
    // An archive of its own for harvesting (tests/e2e/harvest.spec.ts): it may fetch the test's
    // local portal on 127.0.0.1, without the pause between two requests to one host.
    {
      command: `rm -rf ${dataDir}-harvest && node ${serverFlags} scripts/start.ts`,
      url: `http://localhost:${harvestPort}/dashboard`,
      env: {
        PORT: String(harvestPort),
        HOST: 'localhost',
        ARCHIVE_DATA_DIR: `${dataDir}-harvest`,
        DATABASE_URL: '',
        ARCHIVE_MODERATORS: MODERATOR,
        ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true',
        ARCHIVE_CAPTURE_HOST_DELAY_MS: '0',
      },
      timeout: 180_000,
      reuseExistingServer: false,
    },
    // The same build with its database out of reach: what a visitor sees when the archive fails.
    {
      command: 'node dist/server/entry.mjs',
      url: `http://localhost:${brokenPort}/favicon.svg`,
      env: { PORT: String(brokenPort), HOST: 'localhost', DATABASE_URL: 'postgres://nadie@127.0.0.1:9/ninguna' },
      timeout: 60_000,
      reuseExistingServer: false,
    },
  ],
});

export const BROKEN_ARCHIVE_URL = `http://localhost:${brokenPort}`;
export const CLOSED_ARCHIVE_URL = `http://localhost:${closedPort}`;
export const HARVEST_ARCHIVE_URL = `http://localhost:${harvestPort}`;
export const E2E_DATA_DIR = dataDir;
