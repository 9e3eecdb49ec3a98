/**
 * Counts and groupings for the API's Strapi-style connections (SPEC §7 `*Connection { groupBy …
 * aggregate { count totalCount } }`) of records and groups, and the batched reads GraphQL's nested
 * lists use (the imports' own are in `imports.ts`).
 *
 * Record counts are read from the running counts (`record_counts`, a few thousand rows however
 * large the archive) whenever the filter and the grouping only involve what those counts are kept
 * by: format, status, source, department and category. Anything else counts the records.
 */
import { and, asc, desc, inArray, isNotNull, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, deals, recordCounts, walletCounts } from '../db/schema.ts';
import { byDimension, DIMENSIONS, namesPublicRow } from './dimensions.ts';
import { countRecords, MAX_LIMIT, RECORD_SORT_FIELDS, type RecordSortField, type Window } from './find.ts';
import { groupCondition, type GroupFilter } from './groups.ts';
import { isRowId } from './paging.ts';
import { countsCondition, isCounted, recordCondition, type RecordFilter } from './record-filter.ts';
import { recordDetails, type RecordDetail } from './records.ts';

/** What a grouping answers: each distinct value (never null) and how many rows have it. */
export interface GroupCountRow<K extends string | number = string | number> {
  key: K;
  count: number;
}

// ---------------------------------------------------------------------------------------------
// Records

/** The fields records can be grouped by, as the API names them. */
export const RECORD_GROUP_FIELDS = ['id', 'cid', 'type', 'status', 'wallet_address', 'source', 'department', 'category'] as const;
export type RecordGroupField = (typeof RECORD_GROUP_FIELDS)[number];

const RECORD_GROUP_COLUMN = {
  id: alexandrias.id,
  cid: alexandrias.cid,
  type: alexandrias.type,
  status: alexandrias.status,
  wallet_address: alexandrias.walletAddress,
  ...byDimension('field', (dimension) => dimension.recordColumn),
} as const satisfies Record<RecordGroupField, AnyPgColumn>;

/** The fields the running counts are kept by, with their column there. */
const COUNTED_GROUP = {
  type: recordCounts.type,
  status: recordCounts.status,
  ...byDimension('field', (dimension) => dimension.countsColumn),
} as const;

/** How many records match `filter`: from the running counts when it can, else by counting. */
export async function countRecordsFast(db: Db, filter: RecordFilter): Promise<number> {
  if (!isCounted(filter)) return countRecords(db, filter);
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${recordCounts.n}), 0)::int` })
    .from(recordCounts)
    .where(countsCondition(filter));
  return row?.n ?? 0;
}

/**
 * The records matching `filter`, grouped by `field`: each value and its count, largest first
 * (ties by value). Records without a value (no wallet, no category …) form no group, as in the
 * original service.
 */
export async function groupRecords(db: Db, filter: RecordFilter, field: RecordGroupField): Promise<GroupCountRow[]> {
  // A withheld source or institution is no group: its records count as having none.
  const dimension = Object.values(DIMENSIONS).find((one) => one.field === field);
  if (isCounted(filter) && Object.hasOwn(COUNTED_GROUP, field)) {
    const column = COUNTED_GROUP[field as keyof typeof COUNTED_GROUP];
    const count = sql<number>`sum(${recordCounts.n})::int`;
    return db
      .select({ key: sql<string | number>`${column}`, count })
      .from(recordCounts)
      .where(and(countsCondition(filter), isNotNull(column), dimension && namesPublicRow(dimension, column)))
      .groupBy(column)
      .having(sql`sum(${recordCounts.n}) > 0`)
      .orderBy(desc(count), asc(column));
  }
  if (field === 'wallet_address' && filter.status === 'on_line' && Object.entries(filter).every(([key, value]) => key === 'status' || value === undefined)) {
    // The contributor ranking (published records per wallet): straight from the running counts.
    return db
      .select({ key: walletCounts.walletAddress, count: walletCounts.n })
      .from(walletCounts)
      .orderBy(desc(walletCounts.n), asc(walletCounts.walletAddress));
  }
  const column = RECORD_GROUP_COLUMN[field];
  if (field === 'id') {
    // Every record is its own group: no grouping needed.
    const rows = await db.select({ key: alexandrias.id }).from(alexandrias).where(recordCondition(filter)).orderBy(asc(alexandrias.id));
    return rows.map((row) => ({ key: row.key, count: 1 }));
  }
  const count = sql<number>`count(*)::int`;
  return db
    .select({ key: sql<string | number>`${column}`, count })
    .from(alexandrias)
    .where(and(recordCondition(filter), isNotNull(column), dimension && namesPublicRow(dimension, column)))
    .groupBy(column)
    .orderBy(desc(count), asc(column));
}

/** What holds a record: a source, department, category or import. */
export type RecordParent = GroupEntity | 'imp';

/** The column that ties a record to its parent. */
function parentColumn(parent: RecordParent): AnyPgColumn {
  return parent === 'imp' ? alexandrias.importId : DIMENSIONS[parent].recordColumn;
}

/**
 * The records of several sources, departments, categories or imports at once, each with its own
 * window (`limit` records from `start`, in the window's order): one query that takes each
 * parent's window from the index (LATERAL), one for their details, one for their proofs. A list
 * of 10 categories with their first records costs three queries instead of twenty.
 */
export async function findRecordsOfParents(
  db: Db,
  parent: RecordParent,
  parentIds: number[],
  filter: RecordFilter,
  window: Window<RecordSortField>,
): Promise<Map<number, RecordDetail[]>> {
  const answer = new Map<number, RecordDetail[]>(parentIds.map((id) => [id, []]));
  const ids = [...new Set(parentIds.filter(isRowId))];
  const limit = Math.min(window.limit, MAX_LIMIT);
  if (ids.length === 0 || limit <= 0) return answer;
  const sort = window.sort ?? { field: 'updatedAt', direction: 'desc' };
  const direction = sort.direction === 'asc' ? sql.raw('asc') : sql.raw('desc');
  const condition = recordCondition(filter);
  const result = (await db.execute(sql`
    select g.parent_id, r.id
    from unnest(array[${sql.join(ids.map((id) => sql`${id}`), sql`, `)}]::int[]) as g(parent_id)
    cross join lateral (
      select ${alexandrias.id} as id from ${alexandrias}
      where ${parentColumn(parent)} = g.parent_id ${condition ? sql`and ${condition}` : sql``}
      order by ${RECORD_SORT_FIELDS[sort.field]} ${direction}, ${alexandrias.id} ${direction}
      limit ${limit} offset ${window.start}
    ) as r`)) as unknown as { rows: Array<{ parent_id: number; id: number }> };
  if (result.rows.length === 0) return answer;
  const parentOf = new Map(result.rows.map((row) => [Number(row.id), Number(row.parent_id)]));
  // Every parent's window is a run of the same order, so the details sorted once split in order.
  const order = sort.direction === 'asc' ? asc : desc;
  const records = await recordDetails(db, inArray(alexandrias.id, [...parentOf.keys()]), {
    orderBy: [order(RECORD_SORT_FIELDS[sort.field]), order(alexandrias.id)],
    limit: parentOf.size,
  });
  for (const record of records) answer.get(parentOf.get(record.id)!)?.push(record);
  return answer;
}

/** The storage deals of several CIDs at once, by CID. */
export async function dealsOfCids(db: Db, cids: string[]): Promise<Map<string, Array<{ dealId: string; storageProvider: string }>>> {
  const answer = new Map<string, Array<{ dealId: string; storageProvider: string }>>();
  if (cids.length === 0) return answer;
  const rows = await db
    .select({ cid: deals.cid, dealId: deals.dealId, storageProvider: deals.storageProvider })
    .from(deals)
    .where(inArray(deals.cid, cids))
    .orderBy(deals.id);
  for (const { cid, ...deal } of rows) answer.set(cid, [...(answer.get(cid) ?? []), deal]);
  return answer;
}

// ---------------------------------------------------------------------------------------------
// Sources, departments and categories

/** The fields groups can be grouped by: `id`, and `name` (a category's title). */
export type GroupGroupField = 'id' | 'name';

/** How many sources, departments or categories match `filter`. */
export async function countGroups(db: Db, entity: GroupEntity, filter: GroupFilter): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(DIMENSIONS[entity].table).where(groupCondition(entity, filter));
  return row?.n ?? 0;
}

/** The sources, departments or categories matching `filter`, grouped by id or name. */
export async function groupGroups(db: Db, entity: GroupEntity, filter: GroupFilter, field: GroupGroupField): Promise<GroupCountRow[]> {
  const group = DIMENSIONS[entity];
  const column = field === 'id' ? group.id : group.name;
  const count = sql<number>`count(*)::int`;
  return db
    .select({ key: sql<string | number>`${column}`, count })
    .from(group.table)
    .where(groupCondition(entity, filter))
    .groupBy(column)
    .orderBy(desc(count), asc(column));
}
