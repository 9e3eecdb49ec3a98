/** The imports timeline (SPEC §2 dashboard, §7 `imports (limit 5, sorted updatedAt desc)`). */
import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import { LIMITS, type AssetType } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, importFormatCounts } from '../db/schema.ts';
import { findImports, type ImportRow } from './connections.ts';

export interface ImportSummary extends Omit<ImportRow, 'createdAt'> {
  /** Records of this import per format, for its badges. */
  formats: Array<{ type: AssetType; count: number }>;
  /** The newest record of the import that has a CID, to link to (SPEC: linked from the timeline). */
  sample: { id: number; cid: string; title: string } | null;
}

/** The latest imports, newest first. */
export async function latestImports(db: Db, limit: number = LIMITS.latestImports): Promise<ImportSummary[]> {
  const rows = await findImports(db, {}, { limit, start: 0 });
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);

  // Counted as records are written (migration 0017): a harvest's tens of thousands of records
  // are not recounted on every visit to the dashboard.
  const formatRows = await db
    .select({ importId: importFormatCounts.importId, type: importFormatCounts.type, count: importFormatCounts.n })
    .from(importFormatCounts)
    .where(inArray(importFormatCounts.importId, ids));
  // One probe of alexandrias_import_sample_idx per import, newest archived record first.
  const samples = (
    await Promise.all(
      ids.map((importId) =>
        db
          .select({ importId: alexandrias.importId, id: alexandrias.id, cid: alexandrias.cid, title: alexandrias.title })
          .from(alexandrias)
          .where(and(eq(alexandrias.importId, importId), isNotNull(alexandrias.cid)))
          .orderBy(desc(alexandrias.updatedAt), desc(alexandrias.id))
          .limit(1),
      ),
    )
  ).flat();

  return rows.map((row) => {
    const sample = samples.find((s) => s.importId === row.id);
    const { createdAt: _createdAt, ...summary } = row;
    return {
      ...summary,
      formats: formatRows
        .filter((f) => f.importId === row.id)
        .map((f) => ({ type: f.type, count: f.count }))
        .sort((a, b) => b.count - a.count),
      sample: sample?.cid ? { id: sample.id, cid: sample.cid, title: sample.title } : null,
    };
  });
}
