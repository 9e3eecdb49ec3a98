/**
 * The Import behind each upload (DECISIONS: Contribution): it appears `in_progress` as soon as the
 * upload is under way (the dashboard's timeline shows "importando 1 documento"), becomes `done`
 * in the same transaction that creates the record, and is removed if the upload fails.
 *
 * A process killed mid-upload cannot remove its import, so every running upload touches its
 * import now and then, and imports nobody has touched for a while are swept. With the embedded
 * database the process owns the data folder alone, so at start-up every unfinished upload import
 * is an orphan.
 */
import { and, eq, lt, notExists, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, imports } from '../db/schema.ts';

/** How often a running upload touches its import. */
export const HEARTBEAT_MS = 15_000;
/** An upload import untouched for this long belongs to a process that is gone. */
export const STALE_AFTER_MS = 8 * HEARTBEAT_MS;

/** Opens the import of one upload by `wallet`. */
export async function startUploadImport(db: Db, wallet: string): Promise<number> {
  const [row] = await db
    .insert(imports)
    .values({ type: 'single', status: 'in_progress', documents: 1, walletAddress: wallet })
    .returning({ id: imports.id });
  if (!row) throw new Error('The upload import was not created');
  return row.id;
}

/** Keeps the import of a running upload from being taken for an orphan; stop it when done. */
export function keepAlive(db: Db, importId: number): () => void {
  const timer = setInterval(() => {
    db.update(imports)
      .set({ updatedAt: sql`now()` })
      .where(eq(imports.id, importId))
      .catch((error: unknown) => console.error('No se pudo renovar la importación en curso', importId, error));
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Removes the import of an upload that failed (it brought nothing). */
export async function dropUploadImport(db: Db, importId: number): Promise<void> {
  await db.delete(imports).where(and(eq(imports.id, importId), eq(imports.status, 'in_progress')));
}

/**
 * Removes upload imports left `in_progress` by uploads that died with their process: those
 * untouched for `STALE_AFTER_MS`, or all of them when `all` (the caller alone owns the database).
 */
export async function sweepInterruptedUploads(db: Db, { all = false, now = new Date() } = {}): Promise<number> {
  const removed = await db
    .delete(imports)
    .where(
      and(
        eq(imports.type, 'single'),
        eq(imports.status, 'in_progress'),
        all ? undefined : lt(imports.updatedAt, new Date(now.getTime() - STALE_AFTER_MS)),
        notExists(db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.importId, imports.id))),
      ),
    )
    .returning({ id: imports.id });
  return removed.length;
}
