/**
 * The Import behind each upload (DECISIONS: Contribution): it appears `in_progress` as soon as the
 * upload is under way (the dashboard's timeline shows "importando 1 documento"), becomes `done`
 * in the same transaction that creates the record, and is removed if the upload fails.
 *
 * A process killed mid-upload cannot remove its import. Each upload import names its owner
 * (`host:pid`), so a starting process removes those whose owner on this host is gone; and every
 * running upload touches its import now and then, so imports of another host that nobody has
 * touched for a while are swept too, at start-up and every minute.
 */
import os from 'node:os';
import { and, eq, like, lt, notExists, or, sql } from 'drizzle-orm';
import { isProcessAlive } from '../process.ts';
import { likeLiteral } from '../queries/record-filter.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, imports } from '../db/schema.ts';

/** How often a running upload touches its import. */
export const HEARTBEAT_MS = 15_000;
/** An upload import untouched for this long belongs to a process that is gone. */
export const STALE_AFTER_MS = 8 * HEARTBEAT_MS;

/** This process, as upload imports name their owner. */
const OWNER = `${os.hostname()}:${process.pid}`;

/** Opens the import of one upload by `wallet`. */
export async function startUploadImport(db: Db, wallet: string): Promise<number> {
  const [row] = await db
    .insert(imports)
    .values({ type: 'single', status: 'in_progress', documents: 1, walletAddress: wallet, owner: OWNER })
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
 * Removes upload imports left `in_progress` by uploads that died with their process: those whose
 * owner on this host is no longer running, those untouched for `STALE_AFTER_MS`, or all of them
 * when `all` (the caller alone owns the database). `hostname` is this machine's, as owners name
 * it; matched as written, so that `my_host` does not take `myXhost`'s imports for its own.
 */
export async function sweepInterruptedUploads(db: Db, { all = false, now = new Date(), hostname = os.hostname() } = {}): Promise<number> {
  const unfinished = and(
    eq(imports.type, 'single'),
    eq(imports.status, 'in_progress'),
    notExists(db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.importId, imports.id))),
  );
  const host = `${hostname}:`;
  const local = await db
    .select({ id: imports.id, owner: imports.owner })
    .from(imports)
    .where(and(unfinished, like(imports.owner, `${likeLiteral(host)}%`)));
  const deadHere = local.filter((row) => !isProcessAlive(Number(row.owner!.slice(host.length)))).map((row) => row.id);
  const removed = await db
    .delete(imports)
    .where(
      and(
        unfinished,
        all
          ? undefined
          : or(
              lt(imports.updatedAt, new Date(now.getTime() - STALE_AFTER_MS)),
              deadHere.length ? sql`${imports.id} in (${sql.join(deadHere.map((id) => sql`${id}`), sql`, `)})` : sql`false`,
            ),
      ),
    )
    .returning({ id: imports.id });
  return removed.length;
}

/** Sweeps now and then while the server runs (the timer never keeps the process alive). */
export function sweepPeriodically(db: Db, everyMs = 60_000): { stop(): void } {
  const timer = setInterval(() => {
    sweepInterruptedUploads(db).catch((error: unknown) => console.error('No se pudieron limpiar las subidas interrumpidas', error));
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
