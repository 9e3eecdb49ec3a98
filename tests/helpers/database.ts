/**
 * Real databases for tests: PGlite always, and a throwaway database on the PostgreSQL server named
 * by TEST_DATABASE_URL when there is one (CI starts one; it must, see below). Each is a copy of a
 * template that tests/setup/database-templates.ts migrated (and seeded) once for the whole run: a
 * copied PGlite data folder, or `CREATE DATABASE … TEMPLATE` on PostgreSQL.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrateDatabase, openDatabase, type DatabaseHandle, type Engine } from '../../src/lib/server/db/index.ts';
import { createContentStore, createStagingArea, databaseFileGuard, type ContentStore } from '../../src/lib/server/storage/index.ts';
import { adminQuery, databaseUrl, MIGRATIONS_DIR, type EngineTemplates } from '../setup/database-templates.ts';

export { MIGRATIONS_DIR };

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

function templatesOf(engine: Engine): EngineTemplates {
  const templates = inject('databaseTemplates')?.engines[engine];
  if (!templates) {
    throw new Error(
      `No ${engine} template database: tests/setup/database-templates.ts builds them as vitest.config.ts's globalSetup` +
        (engine === 'postgres' ? ', on the server TEST_DATABASE_URL names.' : '.'),
    );
  }
  return templates;
}

/** A fresh, migrated database on `engine`: empty, or with the real catalogue when `template` is 'seeded'. */
export async function createTestDatabase(engine: Engine, template: 'empty' | 'seeded' = 'empty'): Promise<TestDatabase> {
  const source = templatesOf(engine)[template];
  if (engine === 'pglite') {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-test-db-'));
    const dataDir = path.join(dir, 'pgdata');
    await fs.cp(source, dataDir, { recursive: true });
    const handle = await openDatabase({ dataDir });
    return {
      ...handle,
      destroy: async () => {
        await handle.close();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `archivo_test_${randomUUID().replaceAll('-', '')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name} TEMPLATE ${source}`);
  const handle = await openDatabase({ url: databaseUrl(serverUrl, name) });
  return {
    ...handle,
    destroy: async () => {
      await handle.close();
      // Without FORCE: the pool is closed, so nothing should still be connected; FORCE would
      // terminate a straggler with 57P01, which surfaces as an unhandled error in the test run.
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name}`);
    },
  };
}

/** A temporary content store, removed by `destroy`; `from` copies a store's folder into it first. */
export async function createTestStore(from?: string): Promise<{ store: ContentStore; dir: string; destroy(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-blocks-'));
  if (from) await fs.cp(from, dir, { recursive: true });
  const store = createContentStore({ dir });
  return { store, dir, destroy: () => fs.rm(dir, { recursive: true, force: true }) };
}

/**
 * A database seeded with the real catalogue and files: copies of the run's seeded templates, and a
 * staging area committing into that store under the database's file guard.
 */
export async function createSeededDatabase(engine: Engine) {
  const database = await createTestDatabase(engine, 'seeded');
  const blocks = await createTestStore(inject('databaseTemplates').blocks);
  const stagingDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
  return {
    ...database,
    store: blocks.store,
    staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(database.db) }),
    report: templatesOf(engine).report,
    destroy: async () => {
      await database.destroy();
      await blocks.destroy();
      await fs.rm(stagingDir, { recursive: true, force: true });
    },
  };
}

/**
 * The migrations of a next version of the archive: this checkout's and one more, dated a year
 * ahead, which only creates the table `next_version_ran`. For tests of an upgrade.
 */
export async function nextVersionMigrations(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-next-version-'));
  await fs.cp(MIGRATIONS_DIR, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(await fs.readFile(journalFile, 'utf8')) as { entries: Array<Record<string, unknown>> };
  journal.entries.push({ idx: journal.entries.length, version: '7', when: Date.now() + 365 * 24 * 3600_000, tag: '9999_next_version', breakpoints: true });
  await fs.writeFile(journalFile, JSON.stringify(journal));
  await fs.writeFile(path.join(dir, '9999_next_version.sql'), 'create table next_version_ran (id integer);\n');
  return { dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

/**
 * Applies this checkout's migrations again from the one whose tag starts with `tag` (its number,
 * "0031"), as on a database the version before it left: for tests of a data migration over rows
 * a test wrote as that version would have. Returns how many were applied again.
 */
export async function reapplyMigrationsFrom(database: DatabaseHandle, tag: string): Promise<number> {
  const journal = JSON.parse(await fs.readFile(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string; when: number }> };
  const from = journal.entries.findIndex((entry) => entry.tag.startsWith(`${tag}_`));
  if (from < 0) throw new Error(`No migration ${tag} in ${MIGRATIONS_DIR}`);
  await database.db.execute(sql`delete from drizzle.__drizzle_migrations where created_at >= ${journal.entries[from]!.when}`);
  await migrateDatabase(database, MIGRATIONS_DIR);
  return journal.entries.length - from;
}
