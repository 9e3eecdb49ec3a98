/**
 * Imports (harvests, uploads, batches): the API's list with `where`, `sort`, `limit`, `start`, its
 * counts and groupings, and the dashboard's timeline (SPEC §2 dashboard, §7 `imports (limit 5,
 * sorted updatedAt desc)`).
 */
import { and, asc, desc, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import { LIMITS, type AssetType, type ImportStatus, type ImportType } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, harvestSources, importFormatCounts, imports, sources } from '../db/schema.ts';
import type { GroupCountRow } from './connections.ts';
import { MAX_LIMIT, type Window } from './find.ts';
import { idEquals } from './record-filter.ts';
import { publicSource } from './visibility.ts';

export interface ImportFilter {
  id?: number;
  type?: ImportType;
  status?: ImportStatus;
  sourceId?: number;
  wallet?: string;
  /** Leave out the harvest runs that ended having changed nothing: nothing new, updated, withdrawn or failed. */
  broughtSomething?: boolean;
}

export const IMPORT_SORT_FIELDS = {
  createdAt: imports.createdAt,
  updatedAt: imports.updatedAt,
  documents: imports.documents,
  id: imports.id,
} as const;
export type ImportSortField = keyof typeof IMPORT_SORT_FIELDS;

export const IMPORT_GROUP_FIELDS = ['id', 'type', 'status', 'source', 'wallet'] as const;
export type ImportGroupField = (typeof IMPORT_GROUP_FIELDS)[number];

const IMPORT_GROUP_COLUMN = {
  id: imports.id,
  type: imports.type,
  status: imports.status,
  source: imports.sourceId,
  wallet: imports.walletAddress,
} as const;

export interface ImportRow {
  id: number;
  type: ImportType;
  status: ImportStatus;
  documents: number;
  documentsFailed: number;
  walletAddress: string | null;
  source: { id: number; name: string } | null;
  /**
   * A harvest run's catalogue, by the name its moderators gave it (public, as record pages name it
   * in their provenance): two catalogues of one site feed one public source, and the timeline tells
   * their runs apart by it (a first run of a mistyped address failed under the name of the portal
   * whose runs succeed). Null when the public source is not shown (under review or refused).
   */
  catalogue: string | null;
  createdAt: Date;
  updatedAt: Date;
}

function importCondition(filter: ImportFilter): SQL | undefined {
  return and(
    idEquals(imports.id, filter.id),
    filter.type !== undefined ? eq(imports.type, filter.type) : undefined,
    filter.status !== undefined ? eq(imports.status, filter.status) : undefined,
    idEquals(imports.sourceId, filter.sourceId),
    filter.wallet !== undefined ? eq(imports.walletAddress, filter.wallet.toLowerCase()) : undefined,
    filter.broughtSomething
      ? sql`not (${imports.type} = 'harvest' and ${imports.status} = 'done' and ${imports.documents} = 0 and ${imports.documentsFailed} = 0
              and coalesce((${imports.harvestCounts} ->> 'withdrawn')::int, 0) = 0)`
      : undefined,
  );
}

/** Imports matching `filter`, most recently updated first unless sorted otherwise. */
export async function findImports(db: Db, filter: ImportFilter, window: Window<ImportSortField>): Promise<ImportRow[]> {
  const sort = window.sort ?? { field: 'updatedAt', direction: 'desc' };
  const direction = sort.direction === 'asc' ? asc : desc;
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
      // Only beside a public source: a catalogue feeding a withheld one is named by neither.
      catalogue: sql<string | null>`case when ${sources.id} is not null then ${harvestSources.name} end`,
      createdAt: imports.createdAt,
      updatedAt: imports.updatedAt,
    })
    .from(imports)
    // An upload's import names its source only once a moderator accepted it.
    .leftJoin(sources, and(eq(imports.sourceId, sources.id), publicSource))
    .leftJoin(harvestSources, eq(imports.harvestSourceId, harvestSources.id))
    .where(importCondition(filter))
    .orderBy(direction(IMPORT_SORT_FIELDS[sort.field]), direction(imports.id))
    .limit(Math.min(window.limit, MAX_LIMIT))
    .offset(window.start);
  return rows.map(({ sourceId, sourceName, ...row }) => ({
    ...row,
    source: sourceId !== null && sourceName !== null ? { id: sourceId, name: sourceName } : null,
  }));
}

export async function countImports(db: Db, filter: ImportFilter): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(imports).where(importCondition(filter));
  return row?.n ?? 0;
}

/** Imports matching `filter`, grouped by `field` (imports without a value form no group). */
export async function groupImports(db: Db, filter: ImportFilter, field: ImportGroupField): Promise<GroupCountRow[]> {
  const column = IMPORT_GROUP_COLUMN[field];
  const count = sql<number>`count(*)::int`;
  return db
    .select({ key: sql<string | number>`${column}`, count })
    .from(imports)
    .where(and(importCondition(filter), isNotNull(column)))
    .groupBy(column)
    .orderBy(desc(count), asc(column));
}


export interface ImportSummary extends Omit<ImportRow, 'createdAt'> {
  /** Records of this import per format, for its badges. */
  formats: Array<{ type: AssetType; count: number }>;
  /** The newest record of the import that has a CID, to link to (SPEC: linked from the timeline). */
  sample: { id: number; cid: string; title: string } | null;
}

/**
 * The latest imports, newest first: the dashboard's timeline of what came in. A scheduled harvest
 * that found nothing new or changed is not news there ("0 documentos importados" every day would
 * push the uploads off it); the moderators' page and the API keep every run.
 */
export async function latestImports(db: Db, limit: number = LIMITS.latestImports): Promise<ImportSummary[]> {
  const rows = await findImports(db, { broughtSomething: true }, { limit, start: 0 });
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
