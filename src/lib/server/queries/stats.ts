/**
 * Counts for the dashboard and the API's grouped connections (SPEC §7 `*Connection { groupBy …
 * aggregate { count } }`): records by format, status, wallet, source, department and category.
 */
import { desc, eq, sql, type SQL } from 'drizzle-orm';
import { COUNTED_FORMAT, DASHBOARD_FORMATS, type AssetStatus, type AssetType, type DashboardFormat } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { recordCounts, walletCounts } from '../db/schema.ts';
import { DIMENSIONS } from './dimensions.ts';
import { countsCondition, scopeFilter, type RecordScope } from './record-filter.ts';

/** Sum of the running counts: a record count, read from `record_counts` instead of a scan. */
const total = sql<number>`coalesce(sum(${recordCounts.n}), 0)::int`;
const totalWhere = (condition: SQL) => sql<number>`coalesce(sum(${recordCounts.n}) filter (where ${condition}), 0)::int`;

/** The running counts of a scope's records, or of every record. */
function scopeCondition(scope: RecordScope | undefined): SQL | undefined {
  return scope ? countsCondition(scopeFilter(scope)) : undefined;
}

export interface FormatCount {
  format: DashboardFormat;
  /** Catalogue entries (records) of the format, with a file archived or not. */
  total: number;
  /** Records still `under_review`: what the dashboard calls unprocessed. */
  unprocessed: number;
  /** Records whose file the archive holds (a CID): the files really deposited. */
  archived: number;
}

/**
 * Records per dashboard format (xls and xlsx together), every format present even at zero, with
 * how many of them have their file archived: most catalogue entries are only described until a
 * capture or a contribution brings the file (issue #20: the two numbers are told apart).
 */
export async function countRecordsByFormat(db: Db, scope?: RecordScope): Promise<FormatCount[]> {
  const rows = await db
    .select({
      type: recordCounts.type,
      total,
      unprocessed: totalWhere(sql`${recordCounts.status} = 'under_review'`),
      archived: totalWhere(sql`${recordCounts.archived}`),
    })
    .from(recordCounts)
    .where(scopeCondition(scope))
    .groupBy(recordCounts.type);
  const counts = new Map<DashboardFormat, FormatCount>(
    DASHBOARD_FORMATS.map((format) => [format, { format, total: 0, unprocessed: 0, archived: 0 }]),
  );
  for (const row of rows) {
    const count = counts.get(COUNTED_FORMAT[row.type as AssetType]);
    if (!count) continue;
    count.total += row.total;
    count.unprocessed += row.unprocessed;
    count.archived += row.archived;
  }
  return [...counts.values()];
}

/** Records per status (SPEC §4), every status present even at zero. */
export async function countRecordsByStatus(db: Db, scope?: RecordScope): Promise<Record<AssetStatus, number>> {
  const rows = await db
    .select({ status: recordCounts.status, count: total })
    .from(recordCounts)
    .where(scopeCondition(scope))
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

/** Records per public source, department or category, largest first; groups without records are left out. */
export async function countRecordsByGroup(db: Db, entity: GroupEntity, limit?: number): Promise<GroupCount[]> {
  const group = DIMENSIONS[entity];
  const query = db
    .select({ id: group.id, name: group.name, count: total })
    .from(group.table)
    .innerJoin(recordCounts, eq(group.countsColumn, group.id))
    .where(group.visible)
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
  const countOf = async (entity: GroupEntity) =>
    (await db.select({ n: sql<number>`count(*)::int` }).from(DIMENSIONS[entity].table).where(DIMENSIONS[entity].visible))[0]?.n ?? 0;
  return {
    records: records?.records ?? 0,
    archived: records?.archived ?? 0,
    online: records?.online ?? 0,
    sources: await countOf('src'),
    departments: await countOf('dep'),
    categories: await countOf('cat'),
  };
}
