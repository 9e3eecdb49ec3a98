/**
 * The documents whose source disappeared (issue #19, `/desaparecidos`): harvested records whose
 * URL is "desaparecido en origen" (`harvested_records.gone_since`, set by `harvest/watch.ts`),
 * newest disappearance first, filtered by institution and category. The archive keeps serving
 * their copy, so only records with a file are listed, and not those a moderator blocked.
 * Institutions are named only when the public sees them (`visibility.ts`).
 */
import { and, count, desc, eq, isNotNull, ne, type SQL, sql } from 'drizzle-orm';
import type { AssetType, AssetStatus } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, harvestedRecords } from '../db/schema.ts';
import { pageWindow, toPage, type Page } from './paging.ts';
import { publicDepartment, recordDepartmentJoin } from './visibility.ts';

export interface DisappearedFilters {
  departmentId?: number | undefined;
  categoryId?: number | undefined;
}

export interface DisappearedRow {
  id: number;
  cid: string;
  title: string;
  type: AssetType;
  status: AssetStatus;
  /** The first failed check of the URL that then lasted the threshold. */
  goneSince: Date;
  /** The URL that no longer answers. */
  url: string | null;
  department: { id: number; name: string } | null;
  category: { id: number; title: string } | null;
}

/** A filter's choice, with how many disappeared documents it holds. */
export interface DisappearedChoice {
  id: number;
  label: string;
  count: number;
}

export interface DisappearedPage extends Page<DisappearedRow> {
  /** The institutions and categories that have disappeared documents, for the filters. */
  choices: { departments: DisappearedChoice[]; categories: DisappearedChoice[] };
}

/** The records `/desaparecidos` lists, whatever the filters. */
export const disappearedCondition: SQL = and(isNotNull(harvestedRecords.goneSince), isNotNull(alexandrias.cid), ne(alexandrias.status, 'blocked'))!;

function filterCondition(filters: DisappearedFilters): SQL {
  return and(
    disappearedCondition,
    // An institution the public does not see cannot be filtered on: it matches nothing.
    filters.departmentId !== undefined
      ? and(eq(alexandrias.departmentId, filters.departmentId), sql`exists (select 1 from ${departments} where ${departments.id} = ${filters.departmentId} and ${publicDepartment})`)
      : undefined,
    filters.categoryId !== undefined ? eq(alexandrias.categoryId, filters.categoryId) : undefined,
  )!;
}

/** How many documents have disappeared from their source (the dashboard's figure). */
export async function countDisappeared(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(disappearedCondition);
  return row?.n ?? 0;
}

/** A page of the disappeared documents, newest disappearance first, with the filters' choices. */
export async function listDisappeared(db: Db, filters: DisappearedFilters = {}, page?: number): Promise<DisappearedPage> {
  const window = pageWindow(page);
  const where = filterCondition(filters);
  const [counted] = await db
    .select({ n: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(where);
  const rows = await db
    .select({
      id: alexandrias.id,
      cid: alexandrias.cid,
      title: alexandrias.title,
      type: alexandrias.type,
      status: alexandrias.status,
      goneSince: harvestedRecords.goneSince,
      url: harvestedRecords.distributionUrl,
      departmentId: departments.id,
      departmentName: departments.name,
      categoryId: categories.id,
      categoryTitle: categories.title,
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .leftJoin(departments, recordDepartmentJoin)
    .leftJoin(categories, eq(categories.id, alexandrias.categoryId))
    .where(where)
    .orderBy(desc(harvestedRecords.goneSince), desc(alexandrias.id))
    .limit(window.pageSize)
    .offset(window.offset);
  const items = rows.map(({ departmentId, departmentName, categoryId, categoryTitle, ...row }) => ({
    ...row,
    cid: row.cid!,
    goneSince: row.goneSince!,
    department: departmentId !== null && departmentName !== null ? { id: departmentId, name: departmentName } : null,
    category: categoryId !== null && categoryTitle !== null ? { id: categoryId, title: categoryTitle } : null,
  }));
  return { ...toPage(items, counted?.n ?? 0, window), choices: await disappearedChoices(db) };
}

/** Every public institution and every category that holds a disappeared document, with its count. */
async function disappearedChoices(db: Db): Promise<DisappearedPage['choices']> {
  const byDepartment = await db
    .select({ id: departments.id, label: departments.name, count: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .innerJoin(departments, recordDepartmentJoin)
    .where(disappearedCondition)
    .groupBy(departments.id, departments.name)
    .orderBy(departments.name);
  const byCategory = await db
    .select({ id: categories.id, label: categories.title, count: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .innerJoin(categories, eq(categories.id, alexandrias.categoryId))
    .where(disappearedCondition)
    .groupBy(categories.id, categories.title)
    .orderBy(categories.title);
  return { departments: byDepartment, categories: byCategory };
}
