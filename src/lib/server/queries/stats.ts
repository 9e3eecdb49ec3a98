/**
 * Counts for the dashboard and the API's grouped connections (SPEC §7 `*Connection { groupBy …
 * aggregate { count } }`): records by format, status, wallet, source, department and category.
 */
import { desc, eq, sql, type SQL } from 'drizzle-orm';
import { COUNTED_FORMAT, DASHBOARD_FORMATS, type AssetStatus, type AssetType, type DashboardFormat } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, recordCounts, sources, walletCounts } from '../db/schema.ts';
import { isRowId } from './paging.ts';
import { publicDepartment, publicGroup, publicSource } from './visibility.ts';

export const GROUP_COLUMN = {
  src: alexandrias.sourceId,
  dep: alexandrias.departmentId,
  cat: alexandrias.categoryId,
} as const;

/** The same grouping columns in the running counts (schema `recordCounts`). */
export const COUNTS_COLUMN = {
  src: recordCounts.sourceId,
  dep: recordCounts.departmentId,
  cat: recordCounts.categoryId,
} as const;

/** Sum of the running counts: a record count, read from `record_counts` instead of a scan. */
const total = sql<number>`coalesce(sum(${recordCounts.n}), 0)::int`;
const totalWhere = (condition: SQL) => sql<number>`coalesce(sum(${recordCounts.n}) filter (where ${condition}), 0)::int`;

/** A filter on the records of one source, department or category. */
export interface RecordScope {
  entity: GroupEntity;
  id: number;
}

function scopeFilter(scope: RecordScope | undefined): SQL | undefined {
  if (!scope) return undefined;
  // An id that cannot exist matches nothing, rather than reaching the database as an error.
  return isRowId(scope.id) ? eq(COUNTS_COLUMN[scope.entity], scope.id) : sql`false`;
}

export interface FormatCount {
  format: DashboardFormat;
  total: number;
  /** Records still `under_review`: what the dashboard calls unprocessed. */
  unprocessed: number;
}

/** Records per dashboard format (xls and xlsx together), every format present even at zero. */
export async function countRecordsByFormat(db: Db, scope?: RecordScope): Promise<FormatCount[]> {
  const rows = await db
    .select({
      type: recordCounts.type,
      total,
      unprocessed: totalWhere(sql`${recordCounts.status} = 'under_review'`),
    })
    .from(recordCounts)
    .where(scopeFilter(scope))
    .groupBy(recordCounts.type);
  const counts = new Map<DashboardFormat, FormatCount>(
    DASHBOARD_FORMATS.map((format) => [format, { format, total: 0, unprocessed: 0 }]),
  );
  for (const row of rows) {
    const count = counts.get(COUNTED_FORMAT[row.type as AssetType]);
    if (!count) continue;
    count.total += row.total;
    count.unprocessed += row.unprocessed;
  }
  return [...counts.values()];
}

/** Records per status (SPEC §4), every status present even at zero. */
export async function countRecordsByStatus(db: Db, scope?: RecordScope): Promise<Record<AssetStatus, number>> {
  const rows = await db
    .select({ status: recordCounts.status, count: total })
    .from(recordCounts)
    .where(scopeFilter(scope))
    .groupBy(recordCounts.status);
  const counts: Record<AssetStatus, number> = { under_review: 0, on_line: 0, blocked: 0, broken: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

export interface Contributor {
  walletAddress: string;
  count: number;
}

/** The 'Achievements' ranking: contributors by published (on_line) records, most first (from the running counts). */
export async function contributorRanking(db: Db, limit = 10): Promise<Contributor[]> {
  return db
    .select({ walletAddress: walletCounts.walletAddress, count: walletCounts.n })
    .from(walletCounts)
    .orderBy(desc(walletCounts.n), walletCounts.walletAddress)
    .limit(Math.max(0, limit));
}

export interface GroupCount {
  id: number;
  name: string;
  count: number;
}

const GROUP_NAME = {
  src: { table: sources, id: sources.id, name: sources.name },
  dep: { table: departments, id: departments.id, name: departments.name },
  cat: { table: categories, id: categories.id, name: categories.title },
} as const;

/** Records per public source, department or category, largest first; groups without records are left out. */
export async function countRecordsByGroup(db: Db, entity: GroupEntity, limit?: number): Promise<GroupCount[]> {
  const group = GROUP_NAME[entity];
  const query = db
    .select({ id: group.id, name: group.name, count: total })
    .from(group.table)
    .innerJoin(recordCounts, eq(COUNTS_COLUMN[entity], group.id))
    .where(publicGroup(entity))
    .groupBy(group.id, group.name)
    .orderBy(desc(total), group.name);
  return limit !== undefined ? query.limit(Math.max(0, limit)) : query;
}

export interface ArchiveTotals {
  records: number;
  /** Records whose file is archived (they have a CID). */
  archived: number;
  online: number;
  sources: number;
  departments: number;
  categories: number;
}

/** The headline numbers of the archive. */
export async function archiveTotals(db: Db): Promise<ArchiveTotals> {
  const [records] = await db
    .select({
      records: total,
      archived: totalWhere(sql`${recordCounts.archived}`),
      online: totalWhere(sql`${recordCounts.status} = 'on_line'`),
    })
    .from(recordCounts);
  // Sources and institutions the public sees: one waiting for review is not counted yet.
  const countOf = async (table: typeof sources | typeof departments | typeof categories, where?: SQL) =>
    (await db.select({ n: sql<number>`count(*)::int` }).from(table).where(where))[0]?.n ?? 0;
  return {
    records: records?.records ?? 0,
    archived: records?.archived ?? 0,
    online: records?.online ?? 0,
    sources: await countOf(sources, publicSource),
    departments: await countOf(departments, publicDepartment),
    categories: await countOf(categories),
  };
}
