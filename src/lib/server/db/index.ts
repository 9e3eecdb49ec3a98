/**
 * Opening the database: embedded PGlite under the data folder by default, or a PostgreSQL server
 * when a connection string is given. Both get the same schema from the same migrations folder.
 */
import { sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { openPglite } from './pglite.ts';
import * as schema from './schema.ts';

export { schema };
export type Schema = typeof schema;
/** The drizzle database, whichever engine is behind it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Engine = 'pglite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL connection string; takes precedence over `dataDir`. */
  url?: string | undefined;
  /** Folder of a persistent PGlite database; omit both for an in-memory one (tests). */
  dataDir?: string | undefined;
  /**
   * Most connections the pool opens to `url` (10 by default). The embedded database served over a
   * socket takes one at a time, so its pool must be 1 (`DATABASE_POOL_MAX`, set by `npm start`).
   */
  poolMax?: number | undefined;
  /** How long to wait for the embedded database's folder while another process holds it (see openPglite). */
  lockWaitMs?: number | undefined;
  /**
   * What to do when an idle connection to `url` dies (logged by default). A command that reports
   * the database going away itself (`commands.ts`) passes one that says nothing: its next query says it.
   */
  onIdleError?: ((error: Error) => void) | undefined;
}

/** Opens (without migrating) the database described by `options`. */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolMax ?? 10 });
    // An idle connection can die under us (server restart, failover, an administrator ending it).
    // pg re-emits that on the pool, and an 'error' event nobody listens to would kill the process:
    // log it instead; the pool replaces the connection on the next query.
    pool.on('error', options.onIdleError ?? ((error) => console.error('Base de datos: conexión inactiva perdida:', error.message)));
    const db = drizzle(pool, { schema }) as unknown as Db;
    return { db, engine: 'postgres', close: () => pool.end() };
  }
  const { drizzle } = await import('drizzle-orm/pglite');
  const embedded = await openPglite(options.dataDir, { lockWaitMs: options.lockWaitMs });
  const db = drizzle(embedded.client, { schema }) as unknown as Db;
  return { db, engine: 'pglite', close: embedded.close };
}

/**
 * Applies every pending migration; a no-op when the schema is current. Whoever opens the archive
 * first makes sure no process of an older version still runs on it (`archive.ts`).
 *
 * @throws {NewerSchemaError} when the database holds migrations newer than this version's: a
 *   server left behind by an upgrade must not work on a schema it does not know (it would, for
 *   example, commit files without the lock newer servers take), so it stops at its start instead.
 */
export async function migrateDatabase(handle: DatabaseHandle, migrationsFolder: string): Promise<void> {
  if (handle.engine === 'postgres') {
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    await migrate(handle.db as never, { migrationsFolder });
  } else {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(handle.db as never, { migrationsFolder });
  }
  await refuseNewerSchema(handle.db, migrationsFolder);
}

/** Rows of `query`, whichever engine ran it. */
async function rowsOf<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Whether the table `name` (`schema.table`) exists: a database an older version migrated may lack it. */
export async function tableExists(db: Db, name: string): Promise<boolean> {
  const [row] = await rowsOf<{ exists: boolean }>(db, sql`select to_regclass(${name}) is not null as exists`);
  return row?.exists === true;
}

/**
 * How many of this version's migrations the database has not applied (all of them on a new
 * database): drizzle's own rule, a migration newer than the last one its ledger records.
 */
export async function pendingMigrations(db: Db, migrationsFolder: string): Promise<number> {
  const { readMigrationFiles } = await import('drizzle-orm/migrator');
  const known = readMigrationFiles({ migrationsFolder });
  if (!(await tableExists(db, 'drizzle.__drizzle_migrations'))) return known.length;
  const [last] = await rowsOf<{ at: string | null }>(db, sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`);
  const lastApplied = Number(last?.at ?? 0);
  return known.filter((migration) => migration.folderMillis > lastApplied).length;
}

export class NewerSchemaError extends Error {
  override name = 'NewerSchemaError';
}

/**
 * drizzle's migrator applies only migrations newer than the last one the database recorded, so on
 * a database an upgrade migrated it quietly applies nothing: the versions are compared here.
 */
async function refuseNewerSchema(db: Db, migrationsFolder: string): Promise<void> {
  const { readMigrationFiles } = await import('drizzle-orm/migrator');
  const newestKnown = Math.max(0, ...readMigrationFiles({ migrationsFolder }).map((migration) => migration.folderMillis));
  const [result] = await rowsOf<{ unknown: number }>(db, sql`select count(*)::int as unknown from drizzle.__drizzle_migrations where created_at > ${newestKnown}`);
  const unknown = Number(result?.unknown ?? 0);
  if (unknown > 0) {
    throw new NewerSchemaError(
      `La base de datos tiene ${unknown} migración(es) más nueva(s) que esta versión del archivo: otro servidor ya la actualizó. ` +
        'Arranque este servidor con la misma versión que los demás (una versión vieja y una nueva no trabajan a la vez sobre la misma base).',
    );
  }
}
