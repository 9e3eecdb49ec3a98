/**
 * Opening the embedded PGlite on its own, with the archive's extensions and the lock on its
 * folder, and nothing else: the database process (scripts/embedded-db.ts) needs no drizzle.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { isProcessAlive } from '../process.ts';

export interface EmbeddedDatabase {
  client: PGlite;
  /** Closes PGlite (which checkpoints the folder), then releases the folder's lock. */
  close(): Promise<void>;
}

/** Another live process holds the embedded database's folder: its message says which, in Spanish, for the operator. */
export class EmbeddedDatabaseInUseError extends Error {
  override name = 'EmbeddedDatabaseInUseError';
}

/**
 * Opens PGlite in `dataDir`, or in memory when it is undefined (tests). `lockWaitMs`: how long to
 * wait while another live process holds the folder (default: not at all).
 */
export async function openPglite(dataDir: string | undefined, { lockWaitMs = 0 } = {}): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  let releaseLock = async () => {};
  if (dataDir) {
    await fs.mkdir(path.dirname(dataDir), { recursive: true });
    releaseLock = await lockFolder(`${dataDir}.lock`, lockWaitMs);
  }
  try {
    const client = await PGlite.create({ dataDir, extensions: { unaccent, pg_trgm } });
    return {
      client,
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
 * that no longer exists (a crash) is taken over. A live owner is waited for up to `waitMs`.
 */
async function lockFolder(lockFile: string, waitMs: number): Promise<() => Promise<void>> {
  const deadline = Date.now() + waitMs;
  for (let takenOver = false; ; ) {
    try {
      await fs.writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(await fs.readFile(lockFile, 'utf8').catch(() => ''));
    if (owner && isProcessAlive(owner)) {
      if (Date.now() >= deadline) {
        throw new EmbeddedDatabaseInUseError(
          `La base de datos embebida ${path.dirname(lockFile)} está en uso por el proceso ${owner}. ` +
            'Deténgalo antes (PGlite admite un solo proceso por carpeta) o use DATABASE_URL.',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    if (takenOver) throw new Error(`No se pudo bloquear ${lockFile}`);
    takenOver = true;
    await fs.rm(lockFile, { force: true });
  }
}
