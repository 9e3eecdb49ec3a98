/**
 * Seeded records made into watched, harvested ones for the tests of what the watch tells the public
 * (/desaparecidos, the feeds, /preservacion): each gets a harvested_records row with a URL, and the
 * archive's own watch code (`recordCheck`, `addVersion`) records a disappearance or a new version,
 * so the dates and history lines are the ones a real check writes.
 */
import { asc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../src/lib/server/db/index.ts';
import { alexandrias, harvestedRecords } from '../../src/lib/server/db/schema.ts';
import { registerHarvestSource } from '../../src/lib/server/harvest/index.ts';
import { recordCheck } from '../../src/lib/server/harvest/watch.ts';
import { addVersion } from '../../src/lib/server/versions/index.ts';

export interface SeededRecord {
  id: number;
  cid: string;
  title: string;
  departmentId: number | null;
  categoryId: number | null;
  fileSize: number | null;
}

/** The seeded records that have a file, in id order. */
export async function recordsWithFiles(db: Db): Promise<SeededRecord[]> {
  const rows = await db
    .select({ id: alexandrias.id, cid: alexandrias.cid, title: alexandrias.title, departmentId: alexandrias.departmentId, categoryId: alexandrias.categoryId, fileSize: alexandrias.fileSize })
    .from(alexandrias)
    .where(isNotNull(alexandrias.cid))
    .orderBy(asc(alexandrias.id));
  return rows.map((row) => ({ ...row, cid: row.cid! }));
}

/** Files `records` as harvested from a catalogue at `base` (each its own URL), watched from now. */
export async function watchRecords(db: Db, records: readonly SeededRecord[], base = 'http://127.0.0.1:9/portal'): Promise<void> {
  const { harvestSource } = await registerHarvestSource(db, { url: `${base}/api/3/action/package_search`, kind: 'ckan', name: 'Portal de prueba' });
  await db.insert(harvestedRecords).values(
    records.map((record) => ({
      alexandriaId: record.id,
      harvestSourceId: harvestSource.id,
      datasetIdentifier: `dataset-${record.id}`,
      distributionKey: 'file',
      distributionUrl: `${base}/files/${record.id}.csv`,
      nextCheckAt: sql`now() + interval '1 day'`,
    })),
  );
}

/** A failed check of `record`'s URL with a threshold of 0 days: at once "desaparecido en origen". */
export async function markGone(db: Db, record: SeededRecord): Promise<Date> {
  await recordCheck(
    db,
    { minIntervalDays: 1, maxIntervalDays: 30, goneAfterDays: 0 },
    { alexandriaId: record.id, requestedUrl: `http://127.0.0.1:9/portal/files/${record.id}.csv`, status: 404, errorReason: 'HTTP 404' },
    { kind: 'missing', reason: 'el servidor respondió 404' },
  );
  const [row] = await db.select({ goneSince: harvestedRecords.goneSince }).from(harvestedRecords).where(eq(harvestedRecords.alexandriaId, record.id));
  if (!row?.goneSince) throw new Error(`record ${record.id} did not become gone`);
  return row.goneSince;
}

/** Sets when `record` disappeared, to order a list by it. */
export async function setGoneSince(db: Db, record: SeededRecord, date: Date): Promise<void> {
  await db.update(harvestedRecords).set({ goneSince: date, failingSince: date }).where(eq(harvestedRecords.alexandriaId, record.id));
}

/** Marks `record` as withdrawn from its catalogue at `date` ("retirado del catálogo"), as a harvest run would. */
export async function setWithdrawn(db: Db, record: SeededRecord, date: Date): Promise<void> {
  await db.update(harvestedRecords).set({ withdrawnAt: date }).where(eq(harvestedRecords.alexandriaId, record.id));
}

/** Records v1 (the record's file) and a v2 with `cid` as the record's versions; returns v2's number. */
export async function addSecondVersion(db: Db, record: SeededRecord, cid: string, size: number): Promise<number> {
  return db.transaction(async (tx) => {
    const version = { alexandriaId: record.id, sha256: '0'.repeat(64), type: 'csv' as const, mimeType: 'text/csv', fileName: `${record.id}.csv`, captureId: null };
    await addVersion(tx, { ...version, cid: record.cid, size: record.fileSize ?? 1 });
    return addVersion(tx, { ...version, cid, size });
  });
}
