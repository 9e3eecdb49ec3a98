/**
 * Opening the database: embedded PGlite under the data folder by default, or a PostgreSQL server
 * when a connection string is given. Both get the same schema from the same migrations folder.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema.ts';
import { isProcessAlive } from '../process.ts';

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
    // An idle connection can die under us (server restart, failover, an administrator ending it).
    // pg re-emits that on the pool, and an 'error' event nobody listens to would kill the process:
    // log it instead; the pool replaces the connection on the next query.
    pool.on('error', (error) => console.error('PostgreSQL: conexión inactiva perdida:', error.message));
    const db = drizzle(pool, { schema }) as unknown as Db;
    return { db, engine: 'postgres', close: () => pool.end() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { drizzle } = await import('drizzle-orm/pglite');
  let releaseLock = async () => {};
  if (options.dataDir) {
    await fs.mkdir(path.dirname(options.dataDir), { recursive: true });
    releaseLock = await lockFolder(`${options.dataDir}.lock`);
  }
  try {
    const client = await PGlite.create({ dataDir: options.dataDir, extensions: { unaccent, pg_trgm } });
    const db = drizzle(client, { schema }) as unknown as Db;
    return {
      db,
      engine: 'pglite',
      close: async () => {
        await client.close();
        await releaseLock();
      },
    };
  } catch (error) {
    await releaseLock();
    throw error;
  }
}

/**
 * PGlite is PostgreSQL in one process: two processes on one folder would corrupt it, and PGlite
 * itself does not stop them. A lock file holding the owner's pid does; a lock left by a process
 * that no longer exists (a crash) is taken over.
 */
async function lockFolder(lockFile: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await fs.writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(await fs.readFile(lockFile, 'utf8').catch(() => ''));
      if (owner && isProcessAlive(owner)) {
        throw new Error(
          `La base de datos embebida ${path.dirname(lockFile)} está en uso por el proceso ${owner}. ` +
            'Deténgalo antes (PGlite admite un solo proceso por carpeta) o use DATABASE_URL.',
        );
      }
      await fs.rm(lockFile, { force: true });
    }
  }
  throw new Error(`No se pudo bloquear ${lockFile}`);
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
