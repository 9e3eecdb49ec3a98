/** The imports timeline (SPEC §2 dashboard, §7 `imports (limit 5, sorted updatedAt desc)`). */
import { desc, eq, inArray, sql } from 'drizzle-orm';
import { LIMITS, type AssetType, type ImportStatus, type ImportType } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, imports, sources } from '../db/schema.ts';

export interface ImportSummary {
  id: number;
  type: ImportType;
  status: ImportStatus;
  documents: number;
  documentsFailed: number;
  walletAddress: string | null;
  source: { id: number; name: string } | null;
  updatedAt: Date;
  /** Records of this import per format, for its badges. */
  formats: Array<{ type: AssetType; count: number }>;
  /** The newest record of the import that has a CID, to link to (SPEC: linked from the timeline). */
  sample: { id: number; cid: string; title: string } | null;
}

/** The latest imports, newest first. */
export async function latestImports(db: Db, limit: number = LIMITS.latestImports): Promise<ImportSummary[]> {
  const rows = await db
    .select({
      id: imports.id,
      type: imports.type,
      status: imports.status,
      documents: imports.documents,
      documentsFailed: imports.documentsFailed,
      walletAddress: imports.walletAddress,
      sourceId: sources.id,
      sourceName: sources.name,
      updatedAt: imports.updatedAt,
    })
    .from(imports)
    .leftJoin(sources, eq(imports.sourceId, sources.id))
    .orderBy(desc(imports.updatedAt), desc(imports.id))
    .limit(limit);
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);

  const formatRows = await db
    .select({ importId: alexandrias.importId, type: alexandrias.type, count: sql<number>`count(*)::int` })
    .from(alexandrias)
    .where(inArray(alexandrias.importId, ids))
    .groupBy(alexandrias.importId, alexandrias.type);
  const samples = await db
    .selectDistinctOn([alexandrias.importId], {
      importId: alexandrias.importId,
      id: alexandrias.id,
      cid: alexandrias.cid,
      title: alexandrias.title,
    })
    .from(alexandrias)
    .where(sql`${inArray(alexandrias.importId, ids)} and ${alexandrias.cid} is not null`)
    .orderBy(alexandrias.importId, desc(alexandrias.updatedAt), desc(alexandrias.id));

  return rows.map((row) => {
    const sample = samples.find((s) => s.importId === row.id);
    return {
      id: row.id,
      type: row.type,
      status: row.status,
      documents: row.documents,
      documentsFailed: row.documentsFailed,
      walletAddress: row.walletAddress,
      source: row.sourceId !== null && row.sourceName !== null ? { id: row.sourceId, name: row.sourceName } : null,
      updatedAt: row.updatedAt,
      formats: formatRows
        .filter((f) => f.importId === row.id)
        .map((f) => ({ type: f.type, count: f.count }))
        .sort((a, b) => b.count - a.count),
      sample: sample?.cid ? { id: sample.id, cid: sample.cid, title: sample.title } : null,
    };
  });
}
