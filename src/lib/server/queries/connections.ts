/**
 * Counts and groupings for the API's Strapi-style connections (SPEC §7 `*Connection { groupBy …
 * aggregate { count totalCount } }`), and the imports list with `where`, `sort`, `limit`, `start`.
 *
 * Record counts are read from the running counts (`record_counts`, a few thousand rows however
 * large the archive) whenever the filter and the grouping only involve what those counts are kept
 * by: format, status, source, department and category. Anything else counts the records.
 */
import { and, asc, desc, eq, inArray, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { ImportStatus, ImportType } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, deals, departments, imports, recordCounts, sources, walletCounts } from '../db/schema.ts';
import {
  containsFolded,
  countRecords,
  idEquals,
  MAX_LIMIT,
  recordCondition,
  RECORD_SORT_FIELDS,
  type RecordFilter,
  type RecordSortField,
  type Window,
} from './find.ts';
import { isRowId } from './paging.ts';
import { recordDetails, type RecordDetail } from './records.ts';
import { publicGroup, publicSource } from './visibility.ts';

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
  source: alexandrias.sourceId,
  department: alexandrias.departmentId,
  category: alexandrias.categoryId,
} as const;

/** The filter fields the running counts are kept by, with their column there. */
const COUNTED_FILTER = {
  type: recordCounts.type,
  status: recordCounts.status,
  sourceId: recordCounts.sourceId,
  departmentId: recordCounts.departmentId,
  categoryId: recordCounts.categoryId,
} as const;

const COUNTED_GROUP = {
  type: recordCounts.type,
  status: recordCounts.status,
  source: recordCounts.sourceId,
  department: recordCounts.departmentId,
  category: recordCounts.categoryId,
} as const;

/** The running-counts condition for `filter`, or null when the filter needs the records themselves. */
function countedCondition(filter: RecordFilter): { where: SQL | undefined } | null {
  const conditions: Array<SQL | undefined> = [];
  for (const [field, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(COUNTED_FILTER, field)) return null;
    const column = COUNTED_FILTER[field as keyof typeof COUNTED_FILTER];
    if (field === 'type' || field === 'status') conditions.push(eq(column, value));
    else conditions.push(idEquals(column, value as number));
  }
  return { where: and(...conditions) };
}

/** How many records match `filter`: from the running counts when it can, else by counting. */
export async function countRecordsFast(db: Db, filter: RecordFilter): Promise<number> {
  const counted = countedCondition(filter);
  if (!counted) return countRecords(db, filter);
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${recordCounts.n}), 0)::int` })
    .from(recordCounts)
    .where(counted.where);
  return row?.n ?? 0;
}

/**
 * The records matching `filter`, grouped by `field`: each value and its count, largest first
 * (ties by value). Records without a value (no wallet, no category …) form no group, as in the
 * original service.
 */
export async function groupRecords(db: Db, filter: RecordFilter, field: RecordGroupField): Promise<GroupCountRow[]> {
  const counted = countedCondition(filter);
  if (counted && Object.hasOwn(COUNTED_GROUP, field)) {
    const column = COUNTED_GROUP[field as keyof typeof COUNTED_GROUP];
    const count = sql<number>`sum(${recordCounts.n})::int`;
    return db
      .select({ key: sql<string | number>`${column}`, count })
      .from(recordCounts)
      .where(and(counted.where, isNotNull(column)))
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
    .where(and(recordCondition(filter), isNotNull(column)))
    .groupBy(column)
    .orderBy(desc(count), asc(column));
}

/** The columns that tie a record to what holds it: a source, department, category or import. */
const PARENT_COLUMN = {
  src: alexandrias.sourceId,
  dep: alexandrias.departmentId,
  cat: alexandrias.categoryId,
  imp: alexandrias.importId,
} as const;
export type RecordParent = keyof typeof PARENT_COLUMN;

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
      where ${PARENT_COLUMN[parent]} = g.parent_id ${condition ? sql`and ${condition}` : sql``}
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

export interface GroupFilter {
  id?: number;
  name?: string;
}

/** The fields groups can be grouped by: `id`, and `name` (a category's title). */
export type GroupGroupField = 'id' | 'name';

const GROUP_TABLE = {
  src: { table: sources, id: sources.id, name: sources.name },
  dep: { table: departments, id: departments.id, name: departments.name },
  cat: { table: categories, id: categories.id, name: categories.title },
} as const;

function groupCondition(entity: GroupEntity, filter: GroupFilter): SQL | undefined {
  const group = GROUP_TABLE[entity];
  return and(publicGroup(entity), idEquals(group.id, filter.id), filter.name ? containsFolded(group.name, filter.name) : undefined);
}

/** How many sources, departments or categories match `filter`. */
export async function countGroups(db: Db, entity: GroupEntity, filter: GroupFilter): Promise<number> {
  const group = GROUP_TABLE[entity];
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(group.table).where(groupCondition(entity, filter));
  return row?.n ?? 0;
}

/** The sources, departments or categories matching `filter`, grouped by id or name. */
export async function groupGroups(db: Db, entity: GroupEntity, filter: GroupFilter, field: GroupGroupField): Promise<GroupCountRow[]> {
  const group = GROUP_TABLE[entity];
  const column = field === 'id' ? group.id : group.name;
  const count = sql<number>`count(*)::int`;
  return db
    .select({ key: sql<string | number>`${column}`, count })
    .from(group.table)
    .where(groupCondition(entity, filter))
    .groupBy(column)
    .orderBy(desc(count), asc(column));
}

// ---------------------------------------------------------------------------------------------
// Imports

export interface ImportFilter {
  id?: number;
  type?: ImportType;
  status?: ImportStatus;
  sourceId?: number;
  wallet?: string;
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
      createdAt: imports.createdAt,
      updatedAt: imports.updatedAt,
    })
    .from(imports)
    // An upload's import names its source only once a moderator accepted it.
    .leftJoin(sources, and(eq(imports.sourceId, sources.id), publicSource))
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
