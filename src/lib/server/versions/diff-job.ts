/**
 * The `version-diff` job: what changed between a version and the one before it, kept on the newer
 * version (`record_versions.diff`) for the record page and the versions API. Size and type for
 * every file; columns and rows for tables (`table-diff.ts`).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { recordVersions, type VersionDiff } from '../db/schema.ts';
import type { JobHandler, NewJob } from '../jobs/index.ts';
import type { ContentStore } from '../storage/index.ts';
import { compareTables, DEFAULT_TABLE_DIFF_BOUNDS, isTable, type TableDiffBounds } from './table-diff.ts';

export const VERSION_DIFF_JOB = 'version-diff';

export interface VersionDiffPayload {
  /** The newer version's row (`record_versions.id`). */
  versionId: number;
}

export function versionDiffJob(versionId: number): NewJob {
  const payload: VersionDiffPayload = { versionId };
  return { kind: VERSION_DIFF_JOB, payload, dedupeKey: `version-diff:${versionId}`, maxAttempts: 3 };
}

/** The handler of `version-diff` jobs. */
export function versionDiffHandler(store: ContentStore): JobHandler {
  return async (job, { db }) => {
    const { versionId } = job.payload as VersionDiffPayload;
    const [after] = await db.select().from(recordVersions).where(eq(recordVersions.id, versionId));
    if (!after || after.number < 2) return;
    const [before] = await db
      .select()
      .from(recordVersions)
      .where(and(eq(recordVersions.alexandriaId, after.alexandriaId), eq(recordVersions.number, after.number - 1)));
    if (!before) return;
    let diff: VersionDiff;
    try {
      diff = await compareVersions(store, before, after);
    } catch (error) {
      // The last attempt: the page stops saying the comparison is pending.
      if (job.attempts >= job.maxAttempts) await failVersionDiff(db, versionId);
      throw error;
    }
    await db.update(recordVersions).set({ diff, diffStatus: 'done' }).where(eq(recordVersions.id, versionId));
  };
}

type VersionRow = typeof recordVersions.$inferSelect;

/**
 * What changed from `before` to `after`: their sizes and types, and for two tables (CSV, XLSX,
 * ODS) their columns and rows (`table-diff.ts`); a table that could not be compared says why in
 * `note`.
 */
export async function compareVersions(
  store: ContentStore,
  before: VersionRow,
  after: VersionRow,
  bounds: TableDiffBounds = DEFAULT_TABLE_DIFF_BOUNDS,
): Promise<VersionDiff> {
  const file: VersionDiff = { kind: 'file', sizeBefore: before.size, sizeAfter: after.size, typeBefore: before.type, typeAfter: after.type };
  if (!isTable(before.type) || !isTable(after.type)) return file;
  const table = await compareTables(store, before, after, bounds);
  if (!table.compared) return { ...file, note: table.note };
  return { ...file, kind: 'table', ...table.changes };
}

/** Marks a comparison that could not be made, so the page stops saying it is pending. */
async function failVersionDiff(db: Db, versionId: number): Promise<void> {
  await db.update(recordVersions).set({ diffStatus: 'failed' }).where(eq(recordVersions.id, versionId));
}
