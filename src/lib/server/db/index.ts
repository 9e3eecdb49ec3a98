/**
 * Opening the database: embedded PGlite under the data folder by default, or a PostgreSQL server
 * when a connection string is given. Both get the same schema from the same migrations folder.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
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
}

/** Opens (without migrating) the database described by `options`. */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const pool = new pg.Pool({ connectionString: options.url, max: 10 });
    const db = drizzle(pool, { schema }) as unknown as Db;
    return { db, engine: 'postgres', close: () => pool.end() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  if (options.dataDir) await fs.mkdir(path.dirname(options.dataDir), { recursive: true });
  const client = await PGlite.create({ dataDir: options.dataDir, extensions: { unaccent, pg_trgm } });
  const db = drizzle(client, { schema }) as unknown as Db;
  return { db, engine: 'pglite', close: () => client.close() };
}

/** Applies every pending migration; a no-op when the schema is current. */
export async function migrateDatabase(handle: DatabaseHandle, migrationsFolder: string): Promise<void> {
  if (handle.engine === 'postgres') {
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    await migrate(handle.db as never, { migrationsFolder });
  } else {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(handle.db as never, { migrationsFolder });
  }
}
