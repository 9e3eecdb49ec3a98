/**
 * The documents whose source disappeared (issue #19, `/desaparecidos`): harvested records whose
 * URL is "desaparecido en origen" (`harvested_records.gone_since`, set by `harvest/watch.ts`), or
 * that their catalogue no longer lists, "retirado del catálogo" (`withdrawn_at`, set by
 * `harvest/run.ts`): a publisher that takes a dataset out of its portal has taken it from the
 * public as surely as one whose link breaks, and that is what an archive is there to show. Newest
 * first (by the later of the two dates), filtered by institution, category and reason. The
 * archive keeps serving their copy, so only records with a file are listed, and not those a
 * moderator blocked. Institutions are named only when the public sees them (`visibility.ts`).
 */
import { and, count, desc, eq, isNotNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type { AssetType, AssetStatus } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, harvestedRecords } from '../db/schema.ts';
import type { DisappearedReason } from '../../watch-paths.ts';
import { pageWindow, toPage, type Page } from './paging.ts';
import { publicDepartment, recordDepartmentJoin } from './visibility.ts';

export interface DisappearedFilters {
  departmentId?: number | undefined;
  categoryId?: number | undefined;
  /** Only the documents gone for this reason; both when not given. */
  reason?: DisappearedReason | undefined;
}

export interface DisappearedRow {
  id: number;
  cid: string;
  title: string;
  type: AssetType;
  status: AssetStatus;
  /** The first failed check of the URL that then lasted the threshold; null while it answers. */
  goneSince: Date | null;
  /** When its catalogue stopped listing it; null while it still does. */
  withdrawnAt: Date | null;
  /** The URL it was captured from (which no longer answers, when `goneSince` is set). */
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
  /** The institutions, categories and reasons that have disappeared documents, for the filters. */
  choices: { departments: DisappearedChoice[]; categories: DisappearedChoice[]; reasons: Record<DisappearedReason, number> };
}

/** The records gone for `reason`, or for either. */
function goneFor(reason: DisappearedReason | undefined): SQL {
  if (reason === 'origen') return isNotNull(harvestedRecords.goneSince);
  if (reason === 'catalogo') return isNotNull(harvestedRecords.withdrawnAt);
  return or(isNotNull(harvestedRecords.goneSince), isNotNull(harvestedRecords.withdrawnAt))!;
}

/** The records `/desaparecidos` lists for `reason` (both when not given), whatever the other filters. */
export function disappearedCondition(reason?: DisappearedReason): SQL {
  return and(goneFor(reason), isNotNull(alexandrias.cid), ne(alexandrias.status, 'blocked'))!;
}

/** When a listed record disappeared for `reason`; for either, the later of its two dates (`greatest` passes over a null). */
export function disappearedAt(reason?: DisappearedReason): SQL {
  if (reason === 'origen') return sql`${harvestedRecords.goneSince}`;
  if (reason === 'catalogo') return sql`${harvestedRecords.withdrawnAt}`;
  return sql`greatest(${harvestedRecords.goneSince}, ${harvestedRecords.withdrawnAt})`;
}

function filterCondition(filters: DisappearedFilters): SQL {
  return and(
    disappearedCondition(filters.reason),
    // An institution the public does not see cannot be filtered on: it matches nothing.
    filters.departmentId !== undefined
      ? and(eq(alexandrias.departmentId, filters.departmentId), sql`exists (select 1 from ${departments} where ${departments.id} = ${filters.departmentId} and ${publicDepartment})`)
      : undefined,
    filters.categoryId !== undefined ? eq(alexandrias.categoryId, filters.categoryId) : undefined,
  )!;
}

/**
 * How many documents have disappeared from their source, for `reason` or for either: both are the
 * dashboard's figure; the preservation record counts the addresses gone (`origen`) beside those it watches.
 */
export async function countDisappeared(db: Db, reason?: DisappearedReason): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(disappearedCondition(reason));
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
      withdrawnAt: harvestedRecords.withdrawnAt,
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
    .orderBy(desc(disappearedAt(filters.reason)), desc(alexandrias.id))
    .limit(window.pageSize)
    .offset(window.offset);
  const items = rows.map(({ departmentId, departmentName, categoryId, categoryTitle, ...row }) => ({
    ...row,
    cid: row.cid!,
    department: departmentId !== null && departmentName !== null ? { id: departmentId, name: departmentName } : null,
    category: categoryId !== null && categoryTitle !== null ? { id: categoryId, title: categoryTitle } : null,
  }));
  return { ...toPage(items, counted?.n ?? 0, window), choices: await disappearedChoices(db, filters) };
}

/**
 * The filters' choices, each counted under the other filters (as a shop's facets): the
 * institutions that hold a disappeared document of the chosen category and reason, the categories
 * of the chosen institution and reason, and each reason's count for the chosen institution and
 * category. A chosen institution or category stays a choice when the others leave it none.
 */
async function disappearedChoices(db: Db, filters: DisappearedFilters): Promise<DisappearedPage['choices']> {
  const [departmentChoices, categoryChoices, reasons] = await Promise.all([
    disappearedDepartments(db, filterCondition({ ...filters, departmentId: undefined })),
    disappearedCategories(db, filterCondition({ ...filters, categoryId: undefined })),
    disappearedReasons(db, filterCondition({ ...filters, reason: undefined })),
  ]);
  const kept = async (choices: DisappearedChoice[], id: number | undefined, label: () => Promise<string | undefined>) => {
    if (id === undefined || choices.some((choice) => choice.id === id)) return choices;
    const name = await label();
    return name === undefined ? choices : [...choices, { id, label: name, count: 0 }].sort((a, b) => a.label.localeCompare(b.label, 'es'));
  };
  return {
    departments: await kept(departmentChoices, filters.departmentId, async () =>
      (await db.select({ name: departments.name }).from(departments).where(and(eq(departments.id, filters.departmentId!), publicDepartment)))[0]?.name,
    ),
    categories: await kept(categoryChoices, filters.categoryId, async () => (await db.select({ title: categories.title }).from(categories).where(eq(categories.id, filters.categoryId!)))[0]?.title),
    reasons,
  };
}

/** Every public institution that holds a disappeared document under `where`, with its count. */
function disappearedDepartments(db: Db, where: SQL) {
  return db
    .select({ id: departments.id, label: departments.name, count: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .innerJoin(departments, recordDepartmentJoin)
    .where(where)
    .groupBy(departments.id, departments.name)
    .orderBy(departments.name);
}

/** Every category that holds a disappeared document under `where`, with its count. */
function disappearedCategories(db: Db, where: SQL) {
  return db
    .select({ id: categories.id, label: categories.title, count: count() })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .innerJoin(categories, eq(categories.id, alexandrias.categoryId))
    .where(where)
    .groupBy(categories.id, categories.title)
    .orderBy(categories.title);
}

/** How many disappeared documents under `where` each reason lists (a record may be both gone and withdrawn). */
async function disappearedReasons(db: Db, where: SQL): Promise<Record<DisappearedReason, number>> {
  const [byReason] = await db
    .select({
      origen: sql<number>`count(${harvestedRecords.goneSince})::int`,
      catalogo: sql<number>`count(${harvestedRecords.withdrawnAt})::int`,
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(where);
  return { origen: byReason?.origen ?? 0, catalogo: byReason?.catalogo ?? 0 };
}
