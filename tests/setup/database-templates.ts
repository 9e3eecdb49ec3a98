/**
 * Vitest's global setup for `npm run test:unit`: the databases every test file copies, built once per
 * run. Creating a database costs seconds (PGlite's initdb alone about two on a shared 2-core
 * machine, migrating and seeding the real catalogue one or two more), and some thirty files each
 * need one; copying a ready one costs a fraction of a second. So, once:
 * - PGlite: a migrated, empty data folder, and a copy of it with the seed;
 * - PostgreSQL, when TEST_DATABASE_URL names a server: the same two as databases on it, which a
 *   file copies with `CREATE DATABASE … TEMPLATE`;
 * - the content store the seed filled, which every seeded copy gets a copy of.
 * tests/helpers/database.ts makes the copies; the names reach it with `inject('databaseTemplates')`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrateDatabase, openDatabase, type Db, type Engine } from '../../src/lib/server/db/index.ts';
import { seedArchive, type SeedReport } from '../../src/lib/server/seed/index.ts';
import { createContentStore, createStagingArea, databaseFileGuard, type ContentStore, type StagingArea } from '../../src/lib/server/storage/index.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../drizzle');

/** Where each engine's two templates are: PGlite data folders, or database names on the server. */
export interface EngineTemplates {
  empty: string;
  seeded: string;
  report: SeedReport;
}

export interface DatabaseTemplates {
  engines: Partial<Record<Engine, EngineTemplates>>;
  /** The content store the seed filled (blockstore-fs folder). */
  blocks: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
  }
}

export default async function setup(project: TestProject) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-test-templates-'));
  const dropDatabases: Array<() => Promise<void>> = [];
  const teardown = async () => {
    for (const drop of dropDatabases) await drop();
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    const blocks = path.join(dir, 'blocks');
    const store = createContentStore({ dir: blocks });
    // The seed's sheet previews are staged beside the store, and committed under each database's file guard.
    const storage: SeedStorage = (db) => ({ store, staging: createStagingArea({ storeDir: blocks, dir: path.join(dir, 'staging'), guard: databaseFileGuard(db) }) });
    const engines: DatabaseTemplates['engines'] = { pglite: await pgliteTemplates(dir, storage) };
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (serverUrl) engines.postgres = await postgresTemplates(serverUrl, storage, dropDatabases);
    project.provide('databaseTemplates', { engines, blocks });
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

/** The content store every template's seed fills, and a staging area into it for the seeding database. */
type SeedStorage = (db: Db) => { store: ContentStore; staging: StagingArea };

async function pgliteTemplates(dir: string, storage: SeedStorage): Promise<EngineTemplates> {
  const empty = path.join(dir, 'pglite-empty');
  const seeded = path.join(dir, 'pglite-seeded');
  const migrating = await openDatabase({ dataDir: empty });
  await migrateDatabase(migrating, MIGRATIONS_DIR).finally(() => migrating.close());
  // Closed, the folder is a consistent cluster (PGlite checkpoints on close): copying it is cloning it.
  await fs.cp(empty, seeded, { recursive: true });
  const seeding = await openDatabase({ dataDir: seeded });
  const report = await seedArchive({ db: seeding.db, ...storage(seeding.db), fixturesDir: FIXTURES_DIR }).finally(() => seeding.close());
  return { empty, seeded, report };
}

async function postgresTemplates(serverUrl: string, storage: SeedStorage, drops: Array<() => Promise<void>>): Promise<EngineTemplates> {
  const run = randomUUID().replaceAll('-', '').slice(0, 12);
  const empty = `archivo_template_${run}_empty`;
  const seeded = `archivo_template_${run}_seeded`;
  await adminQuery(serverUrl, `CREATE DATABASE ${empty}`);
  drops.unshift(() => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${empty}`));
  const migrating = await openDatabase({ url: databaseUrl(serverUrl, empty) });
  await migrateDatabase(migrating, MIGRATIONS_DIR).finally(() => migrating.close());
  await adminQuery(serverUrl, `CREATE DATABASE ${seeded} TEMPLATE ${empty}`);
  drops.unshift(() => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${seeded}`));
  const seeding = await openDatabase({ url: databaseUrl(serverUrl, seeded) });
  // The same store: adding a file that is already there is a no-op, so the blocks stay one set.
  const report = await seedArchive({ db: seeding.db, ...storage(seeding.db), fixturesDir: FIXTURES_DIR }).finally(() => seeding.close());
  return { empty, seeded, report };
}

/** The URL of database `name` on the server `serverUrl` points at. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** One statement on the database TEST_DATABASE_URL names, on a connection of its own: a database is created, copied and dropped from outside it. */
export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
