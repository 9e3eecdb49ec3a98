/**
 * Filtered, sorted, windowed reads for the open API (REST `getAll` calls and GraphQL's Strapi-style
 * `where`, `sort`, `limit`, `start`). Text filters are contains-matches that ignore case and
 * accents, so `educacion` finds "Educación"; they use the trigram indexes.
 */
import { asc, desc, sql } from 'drizzle-orm';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias } from '../db/schema.ts';
import { DIMENSIONS } from './dimensions.ts';
import { groupCondition, groupItemsByIds, largestGroupsOf, readingOrder, type GroupFilter, type GroupItem } from './groups.ts';
import { recordCondition, type RecordFilter } from './record-filter.ts';
import { recordDetails, type RecordDetail } from './records.ts';

export type { RecordFilter } from './record-filter.ts';

/** The most rows one API call answers (issue #4: limits are capped at 100). */
export const MAX_LIMIT = 100;

export type SortDirection = 'asc' | 'desc';

/**
 * What each record order sorts by. Titles in the order people read them, as the pages' A–Z
 * (`readingOrder`): a raw column would follow each server's collation ("Índice" after "Zona"
 * under `C`, PGlite's), so two engines, and the API and the pages, would disagree.
 */
export const RECORD_SORT_FIELDS = { createdAt: alexandrias.createdAt, updatedAt: alexandrias.updatedAt, title: readingOrder(alexandrias.title), id: alexandrias.id } as const;
export type RecordSortField = keyof typeof RECORD_SORT_FIELDS;

export interface Window<F extends string> {
  limit: number;
  start: number;
  sort?: { field: F; direction: SortDirection };
}

/** The ORDER BY of records sorted by `sort`, ties by id the same way. */
export function recordOrder(sort: { field: RecordSortField; direction: SortDirection }) {
  const direction = sort.direction === 'asc' ? asc : desc;
  return [direction(RECORD_SORT_FIELDS[sort.field]), direction(alexandrias.id)];
}

export function findRecords(db: Db, filter: RecordFilter, window: Window<RecordSortField>): Promise<RecordDetail[]> {
  return recordDetails(db, recordCondition(filter), {
    orderBy: recordOrder(window.sort ?? { field: 'updatedAt', direction: 'desc' }),
    limit: Math.min(window.limit, MAX_LIMIT),
    offset: window.start,
  });
}

export async function countRecords(db: Db, filter: RecordFilter): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(recordCondition(filter));
  return row?.n ?? 0;
}

export type GroupSortField = 'updatedAt' | 'name' | 'id' | 'records';

/**
 * Public sources, departments or categories whose name contains `name`, with their record counts.
 * Sorting by `records` ranks the largest first (the overview tabs, SPEC §7 "sorted by alexandrias").
 */
export async function findGroups(
  db: Db,
  entity: GroupEntity,
  filter: GroupFilter,
  window: Window<GroupSortField>,
): Promise<GroupItem[]> {
  const limit = Math.min(window.limit, MAX_LIMIT);
  const sort = window.sort ?? { field: 'updatedAt', direction: 'desc' };
  const group = DIMENSIONS[entity];
  const direction = sort.direction === 'asc' ? asc : desc;
  const where = groupCondition(entity, filter);
  if (sort.field === 'records' && sort.direction === 'desc' && !filter.name && filter.id === undefined) {
    // The overview tabs: the largest groups straight from the running counts, when there are
    // enough groups with records to fill the window.
    const ranked = (await largestGroupsOf(db, [entity], window.start + limit))[entity];
    if (ranked.length === window.start + limit) return ranked.slice(window.start);
  }
  if (sort.field === 'records') {
    // Ranked by size: every matching group (a few hundred at most) with its count, groups
    // without records included, ties in reading order (a stable sort of rows read in it); then the window.
    const rows = await db.select({ id: group.id }).from(group.table).where(where).orderBy(asc(readingOrder(group.name)), asc(group.id));
    const sizes = new Map((await largestGroupsOf(db, [entity], Number.MAX_SAFE_INTEGER))[entity].map((item) => [item.id, item.records]));
    const sign = sort.direction === 'asc' ? 1 : -1;
    rows.sort((a, b) => sign * ((sizes.get(a.id) ?? 0) - (sizes.get(b.id) ?? 0)));
    return groupItemsByIds(db, entity, rows.slice(window.start, window.start + limit).map((row) => row.id));
  }
  const column = sort.field === 'name' ? readingOrder(group.name) : sort.field === 'id' ? group.id : group.updatedAt;
  const ids = await db
    .select({ id: group.id })
    .from(group.table)
    .where(where)
    .orderBy(direction(column), direction(group.id))
    .limit(limit)
    .offset(window.start);
  return groupItemsByIds(db, entity, ids.map((row) => row.id));
}
