/**
 * Sources, departments and categories as groups of records (SPEC §2 /group and /collection):
 * the most recently updated first (or A–Z, or largest first), each with how many records it
 * holds, by format.
 */
import { and, asc, desc, eq, inArray, notInArray, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { COUNTED_FORMAT, DASHBOARD_FORMATS, LIMITS, type AssetType, type DashboardFormat } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { GroupOrder, ListView } from '../../list-view.ts';
import type { Db } from '../db/index.ts';
import { categories, recordCounts } from '../db/schema.ts';
import { DIMENSIONS } from './dimensions.ts';
import { isRowId, pageWindow, toPage, type Page } from './paging.ts';
import { containsFolded, folded, idEquals } from './record-filter.ts';

export interface GroupItem {
  entity: GroupEntity;
  id: number;
  name: string;
  description: string | null;
  url: string | null;
  updatedAt: Date;
  /** Extra facts worth showing: a department's acronym, a category's icon. */
  acronym: string | null;
  iconName: string | null;
  records: number;
  byFormat: Record<DashboardFormat, number>;
}

/** One column set for the three tables, so every caller gets the same shape. */
function groupColumns(entity: GroupEntity) {
  const group = DIMENSIONS[entity];
  const none = sql<string | null>`null`;
  return {
    table: group.table,
    visible: group.visible,
    cols: {
      id: group.id,
      name: group.name,
      description: group.description,
      url: group.url ?? none,
      updatedAt: group.updatedAt,
      acronym: group.acronym ?? none,
      iconName: group.iconName ?? none,
    },
  };
}

/** What the API's `where` names a group by: its id, or a part of its name (a category's title). */
export interface GroupFilter {
  id?: number;
  name?: string;
  /** Groups left out (those a search listed already). */
  exceptIds?: readonly number[];
}

/** The public groups of `entity` matching `filter`. */
export function groupCondition(entity: GroupEntity, filter: GroupFilter): SQL | undefined {
  const group = DIMENSIONS[entity];
  return and(
    group.visible,
    idEquals(group.id, filter.id),
    filter.name ? containsFolded(group.name, filter.name) : undefined,
    filter.exceptIds?.length ? notInArray(group.id, [...filter.exceptIds]) : undefined,
  );
}

function emptyFormats(): Record<DashboardFormat, number> {
  return Object.fromEntries(DASHBOARD_FORMATS.map((format) => [format, 0])) as Record<DashboardFormat, number>;
}

async function withCounts(
  db: Db,
  entity: GroupEntity,
  rows: Array<Omit<GroupItem, 'entity' | 'records' | 'byFormat'>>,
): Promise<GroupItem[]> {
  if (rows.length === 0) return [];
  const column = DIMENSIONS[entity].countsColumn;
  const counts = await db
    .select({ groupId: column, type: recordCounts.type, count: sql<number>`sum(${recordCounts.n})::int` })
    .from(recordCounts)
    .where(inArray(column, rows.map((row) => row.id)))
    .groupBy(column, recordCounts.type);
  return rows.map((row) => {
    const byFormat = emptyFormats();
    let records = 0;
    for (const count of counts) {
      if (count.groupId !== row.id) continue;
      byFormat[COUNTED_FORMAT[count.type as AssetType]] += count.count;
      records += count.count;
    }
    return { entity, ...row, records, byFormat };
  });
}

/**
 * Names in the order people read them: by their letters and digits, case, accents and punctuation
 * aside ("Ágora" between "Agua" and "Azúcar"; "Balance General, 2016" before "Balance General
 * Mensual"), compared character by character (`C`) so every server, whatever its locale, gives
 * the same order. Accents go first: under a `C` locale `lower()` leaves "Ó" as it is. «ñ» is a
 * letter of its own, after «n» ("Anuario" before "Año"): it becomes «n{», «{» coming after «z».
 */
export function readingOrder(column: AnyPgColumn | SQL): SQL<string> {
  return sql<string>`regexp_replace(lower(archivo_unaccent(replace(replace(${column}, 'ñ', 'n{'), 'Ñ', 'n{'))), '[^a-z0-9 {]', '', 'g') collate "C"`;
}

/** The public groups whose name (or a department's acronym: "MINERD") contains `text`, case and accents aside. */
function nameMatches(entity: GroupEntity, text: string): SQL | undefined {
  if (!text) return undefined;
  const group = DIMENSIONS[entity];
  return or(containsFolded(group.name, text), group.acronym ? containsFolded(group.acronym, text) : undefined);
}

/**
 * Whether a group is named exactly `text` (its name, or a department's acronym), case and accents
 * aside: «ONE» filters fifteen institutions whose names contain it, the ONE among them.
 */
function namedExactly(entity: GroupEntity, text: string): SQL {
  const group = DIMENSIONS[entity];
  const typed = folded(sql`${text.trim()}::text`);
  // No acronym is not a match: a null would sort first in a descending order.
  return sql`coalesce(${folded(group.name)} = ${typed}${group.acronym ? sql` or ${folded(group.acronym)} = ${typed}` : sql``}, false)`;
}

/**
 * A page of a group's items, 10 a page (SPEC §9): most recently updated first (the spec's order),
 * A–Z by name, or the groups with most records first; only those whose name contains `view.q`,
 * the one named exactly that (a name, an acronym) first. Every order ends on the id, so no item
 * shows on two pages.
 */
export async function listGroup(
  db: Db,
  entity: GroupEntity,
  page?: number,
  view: Partial<ListView<GroupOrder>> = {},
): Promise<Page<GroupItem>> {
  const { table, cols, visible } = groupColumns(entity);
  const window = pageWindow(page, LIMITS.groupList);
  const where = and(visible, nameMatches(entity, view.q ?? ''));
  const countsColumn = DIMENSIONS[entity].countsColumn;
  // Records per group from the running counts, for the "más registros" order only.
  const counted = db
    .select({ groupId: sql<number>`${countsColumn}`.as('group_id'), records: sql<number>`sum(${recordCounts.n})`.as('records') })
    .from(recordCounts)
    .groupBy(countsColumn)
    .as('counted');
  const order = view.order ?? 'recientes';
  const query = db.select(cols).from(table).$dynamic();
  if (order === 'registros') query.leftJoin(counted, eq(counted.groupId, cols.id));
  const orderBy = {
    recientes: [desc(cols.updatedAt), desc(cols.id)],
    az: [asc(readingOrder(cols.name)), asc(cols.id)],
    registros: [desc(sql`coalesce(${counted.records}, 0)`), asc(readingOrder(cols.name)), asc(cols.id)],
  } satisfies Record<GroupOrder, SQL[]>;
  const exactFirst = view.q?.trim() ? [desc(namedExactly(entity, view.q))] : [];
  const rows = await query
    .where(where)
    .orderBy(...exactFirst, ...orderBy[order])
    .limit(window.pageSize)
    .offset(window.offset);
  const [total] = await db.select({ n: sql<number>`count(*)::int` }).from(table).where(where);
  return toPage(await withCounts(db, entity, rows), total?.n ?? 0, window);
}

/** The groups with the most records, for the dashboard's tabbed overview cards. */
export async function largestGroups(db: Db, entity: GroupEntity, limit: number = LIMITS.overviewTabs): Promise<GroupItem[]> {
  return (await largestGroupsOf(db, [entity], limit))[entity];
}

/**
 * The largest groups of several kinds at once: one pass over the running counts sums them per
 * source, per department and per category (GROUPING SETS), a single query for the dashboard's
 * three overview cards.
 */
export async function largestGroupsOf<E extends GroupEntity>(
  db: Db,
  entities: readonly E[],
  limit: number = LIMITS.overviewTabs,
): Promise<Record<E, GroupItem[]>> {
  // Column names written into SQL: the schema's, never input.
  const columns = entities.map((entity) => DIMENSIONS[entity].countsColumn.name);
  const result = (await db.execute(sql`
    select ${sql.raw(entities.map((entity, index) => `${columns[index]} as ${entity}`).join(', '))},
           type, sum(n)::int as n, grouping(${sql.raw(columns.join(', '))})::int as g
    from record_counts
    group by grouping sets (${sql.raw(columns.map((column) => `(${column}, type)`).join(', '))})`)) as unknown as {
    rows: Array<Record<E, number | null> & { type: AssetType; n: number; g: number }>;
  };
  // grouping() sets a bit for each listed column left out of the row's set (the first column is
  // the highest bit): the rows counted by the i-th entity have every bit but the i-th set.
  const all = (1 << columns.length) - 1;
  const setOf = (index: number) => all - (1 << (columns.length - 1 - index));

  const answer = {} as Record<E, GroupItem[]>;
  for (const [index, entity] of entities.entries()) {
    const counts = new Map<number, Record<DashboardFormat, number>>();
    for (const row of result.rows) {
      const id = row[entity];
      if (row.g !== setOf(index) || id === null) continue;
      const byFormat = counts.get(id) ?? emptyFormats();
      byFormat[COUNTED_FORMAT[row.type]] += row.n;
      counts.set(id, byFormat);
    }
    const { table, cols, visible } = groupColumns(entity);
    // The groups the public may see, read before ranking: one withheld (under review, refused)
    // must leave its place to the next, not an empty slot.
    // Each with its reading key, so that ties read as every list's A–Z does (`readingOrder`).
    const rows = counts.size && limit > 0
      ? await db.select({ ...cols, readingKey: readingOrder(cols.name) }).from(table).where(and(inArray(cols.id, [...counts.keys()]), visible))
      : [];
    const shown = new Set(rows.map((row) => row.id));
    const totals = [...counts]
      .filter(([id]) => shown.has(id))
      .map(([id, byFormat]) => ({ id, byFormat, records: Object.values(byFormat).reduce((a, b) => a + b, 0) }));
    totals.sort((a, b) => b.records - a.records);
    // Keep every group tied with the last place, so ties can be broken by name like the lists are.
    const floor = totals[limit - 1]?.records ?? 0;
    const candidates = limit > 0 ? totals.filter((total) => total.records >= floor) : [];
    // The keys compared code unit by code unit, as `collate "C"` compares them; then the id.
    const byReading = (a: { readingKey: string; id: number }, b: { readingKey: string; id: number }) =>
      a.readingKey < b.readingKey ? -1 : a.readingKey > b.readingKey ? 1 : a.id - b.id;
    answer[entity] = candidates
      .flatMap((total) => {
        const row = rows.find((candidate) => candidate.id === total.id);
        return row ? [{ ...row, records: total.records, byFormat: total.byFormat }] : [];
      })
      .sort((a, b) => b.records - a.records || byReading(a, b))
      .slice(0, limit)
      .map(({ readingKey: _readingKey, ...row }) => ({ entity, ...row }));
  }
  return answer;
}

/** Public items by id, in the order of `ids`, with their counts: two queries whatever the number. */
export async function groupItemsByIds(db: Db, entity: GroupEntity, ids: number[]): Promise<GroupItem[]> {
  if (ids.length === 0) return [];
  const { table, cols, visible } = groupColumns(entity);
  const rows = await db.select(cols).from(table).where(and(inArray(cols.id, ids), visible));
  const items = await withCounts(db, entity, rows);
  return ids.flatMap((id) => items.filter((item) => item.id === id));
}

/** One source, department or category, or null when there is none the public may see with that id. */
export async function getGroupItem(db: Db, entity: GroupEntity, id: number): Promise<GroupItem | null> {
  if (!isRowId(id)) return null;
  const { table, cols, visible } = groupColumns(entity);
  const rows = await db.select(cols).from(table).where(and(eq(cols.id, id), visible)).limit(1);
  const [item] = await withCounts(db, entity, rows);
  return item ?? null;
}

export interface CategoryChoice {
  id: number;
  title: string;
}

/** The categories a contributor can file a document under, by title (the upload wizard's choices). */
export async function categoryChoices(db: Db): Promise<CategoryChoice[]> {
  return db
    .select({ id: categories.id, title: categories.title })
    .from(categories)
    .where(eq(categories.enabled, true))
    .orderBy(asc(readingOrder(categories.title)), asc(categories.id));
}
