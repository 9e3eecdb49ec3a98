/**
 * Real databases for tests: an in-memory PGlite always, and a throwaway database on the PostgreSQL
 * server named by TEST_DATABASE_URL when there is one (CI starts one; it must, see below).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrateDatabase, openDatabase, type DatabaseHandle, type Engine } from '../../src/lib/server/db/index.ts';
import { seedArchive } from '../../src/lib/server/seed/index.ts';
import { createContentStore, type ContentStore } from '../../src/lib/server/storage/index.ts';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../drizzle');
export const FIXTURES_DIR = path.resolve(
  import.meta.dirname,
  '../..',
  process.env.ARCHIVE_FIXTURES_DIR ?? '../shared/fixtures',
);

/** The engines every database test runs on. In CI, PostgreSQL is required, never silently dropped. */
export function testEngines(): Engine[] {
  if (process.env.TEST_DATABASE_URL) return ['pglite', 'postgres'];
  if (process.env.CI === 'true') {
    throw new Error('CI must test PostgreSQL too: .ci/run sets TEST_DATABASE_URL to the server it starts.');
  }
  return ['pglite'];
}

export interface TestDatabase extends DatabaseHandle {
  /** Closes the connection and removes the throwaway database. */
  destroy(): Promise<void>;
}

/** A fresh, migrated, empty database on `engine`. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const handle = await openDatabase({});
    await migrateDatabase(handle, MIGRATIONS_DIR);
    return { ...handle, destroy: () => handle.close() };
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `archivo_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ url: url.href });
  await migrateDatabase(handle, MIGRATIONS_DIR);
  return {
    ...handle,
    destroy: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      // Without FORCE: the pool is closed, so nothing should still be connected; FORCE would
      // terminate a straggler with 57P01, which surfaces as an unhandled error in the test run.
      await cleanup.query(`DROP DATABASE IF EXISTS ${name}`);
      await cleanup.end();
    },
  };
}

/** A temporary content store, removed by `destroy`. */
export async function createTestStore(): Promise<{ store: ContentStore; dir: string; destroy(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-blocks-'));
  const store = createContentStore({ dir });
  return { store, dir, destroy: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** A database seeded with the real catalogue and files. */
export async function createSeededDatabase(engine: Engine) {
  const database = await createTestDatabase(engine);
  const blocks = await createTestStore();
  const report = await seedArchive({ db: database.db, store: blocks.store, fixturesDir: FIXTURES_DIR });
  return {
    ...database,
    store: blocks.store,
    report,
    destroy: async () => {
      await database.destroy();
      await blocks.destroy();
    },
  };
}
