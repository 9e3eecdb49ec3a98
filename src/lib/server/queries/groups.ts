/**
 * Sources, departments and categories as groups of records (SPEC §2 /group and /collection):
 * the most recently updated first, each with how many records it holds, by format.
 */
import { desc, eq, inArray, sql } from 'drizzle-orm';
import { COUNTED_FORMAT, DASHBOARD_FORMATS, LIMITS, type AssetType, type DashboardFormat } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, sources } from '../db/schema.ts';
import { isRowId, pageWindow, toPage, type Page } from './paging.ts';
import { GROUP_COLUMN } from './stats.ts';

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
  switch (entity) {
    case 'src':
      return {
        table: sources,
        cols: {
          id: sources.id,
          name: sources.name,
          description: sources.description,
          url: sources.url,
          updatedAt: sources.updatedAt,
          acronym: sql<string | null>`null`,
          iconName: sql<string | null>`null`,
        },
      };
    case 'dep':
      return {
        table: departments,
        cols: {
          id: departments.id,
          name: departments.name,
          description: departments.desciption,
          url: departments.website,
          updatedAt: departments.updatedAt,
          acronym: departments.acronym,
          iconName: sql<string | null>`null`,
        },
      };
    case 'cat':
      return {
        table: categories,
        cols: {
          id: categories.id,
          name: categories.title,
          description: categories.description,
          url: sql<string | null>`null`,
          updatedAt: categories.updatedAt,
          acronym: sql<string | null>`null`,
          iconName: categories.iconName,
        },
      };
  }
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
  const column = GROUP_COLUMN[entity];
  const counts = await db
    .select({ groupId: column, type: alexandrias.type, count: sql<number>`count(*)::int` })
    .from(alexandrias)
    .where(inArray(column, rows.map((row) => row.id)))
    .groupBy(column, alexandrias.type);
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

/** A page of a group's items, most recently updated first (10 a page, SPEC §9). */
export async function listGroup(db: Db, entity: GroupEntity, page?: number): Promise<Page<GroupItem>> {
  const { table, cols } = groupColumns(entity);
  const window = pageWindow(page, LIMITS.groupList);
  const rows = await db
    .select(cols)
    .from(table)
    .orderBy(desc(cols.updatedAt), desc(cols.id))
    .limit(window.pageSize)
    .offset(window.offset);
  const [total] = await db.select({ n: sql<number>`count(*)::int` }).from(table);
  return toPage(await withCounts(db, entity, rows), total?.n ?? 0, window);
}

/** The groups with the most records, for the dashboard's tabbed overview cards. */
export async function largestGroups(db: Db, entity: GroupEntity, limit: number = LIMITS.overviewTabs): Promise<GroupItem[]> {
  const { table, cols } = groupColumns(entity);
  const records = sql<number>`count(${alexandrias.id})`;
  const rows = await db
    .select(cols)
    .from(table)
    .innerJoin(alexandrias, eq(GROUP_COLUMN[entity], cols.id))
    .groupBy(cols.id)
    .orderBy(desc(records), cols.name)
    .limit(limit);
  return withCounts(db, entity, rows);
}

/** One source, department or category, or null when there is none with that id. */
export async function getGroupItem(db: Db, entity: GroupEntity, id: number): Promise<GroupItem | null> {
  if (!isRowId(id)) return null;
  const { table, cols } = groupColumns(entity);
  const rows = await db.select(cols).from(table).where(eq(cols.id, id)).limit(1);
  const [item] = await withCounts(db, entity, rows);
  return item ?? null;
}
