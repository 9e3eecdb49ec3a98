/**
 * Search in Spanish (issue #7), one engine for the results page, the search modal's REST calls and
 * GraphQL's text filters:
 *
 * - full text in the `archivo_es` configuration (Spanish stemming after accent folding):
 *   "educacion" finds "Educación", "presupuestos" finds "Presupuesto";
 * - records whose own words match come first, ranked title before description (weights A, B);
 *   then the records of every source, institution (name or acronym: "MINERD") and category whose
 *   words match, newest first;
 * - when nothing matches, each unknown word is replaced by its closest word of the catalogue's
 *   vocabulary (`search_words`, by trigram similarity), and the corrected query is searched.
 *
 * The two tiers are read separately, so neither needs ranking every record of a large category:
 * direct hits through the GIN index, group hits through the per-group indexes, and the totals and
 * facets of the group tier from the running counts (`record_counts`).
 */
import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { LIMITS, type AssetStatus, type AssetType } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, categories, departments, recordCounts, searchWords, sources } from '../db/schema.ts';
import { pageWindow, toPage, type Page } from './paging.ts';
import { rowColumns, toRow, type RecordRow } from './records.ts';
import { publicGroup, recordDepartmentJoin } from './visibility.ts';

/** Longest query we search for; longer input is cut, not refused. */
const MAX_QUERY = 200;

/** The query as PostgreSQL can take it: no NUL (text cannot hold one), trimmed, bounded. */
function clean(query: string): string {
  return query.replaceAll('\0', ' ').trim().slice(0, MAX_QUERY);
}

const tsquery = (q: string) => sql`websearch_to_tsquery('archivo_es', ${q})`;

export interface SearchFilters {
  type?: AssetType;
  status?: AssetStatus;
  departmentId?: number;
  categoryId?: number;
  sourceId?: number;
}

/** The sources, institutions and categories whose own words match: their records match too. */
interface MatchedGroups {
  src: number[];
  dep: number[];
  cat: number[];
}

async function matchedGroups(db: Db, q: string): Promise<MatchedGroups> {
  const query = tsquery(q);
  // Only public groups lend their words: an unreviewed name must not pull records into a search.
  const ids = async (entity: GroupEntity, table: typeof sources | typeof departments | typeof categories) =>
    (await db.select({ id: table.id }).from(table).where(and(sql`${table.search} @@ ${query}`, publicGroup(entity))).limit(200)).map((row) => row.id);
  const [src, dep, cat] = await Promise.all([ids('src', sources), ids('dep', departments), ids('cat', categories)]);
  return { src, dep, cat };
}

interface GroupColumns {
  src: AnyPgColumn;
  dep: AnyPgColumn;
  cat: AnyPgColumn;
}
interface FilterColumns extends GroupColumns {
  type: AnyPgColumn;
  status: AnyPgColumn;
}
const RECORD_COLUMNS: FilterColumns = {
  type: alexandrias.type,
  status: alexandrias.status,
  src: alexandrias.sourceId,
  dep: alexandrias.departmentId,
  cat: alexandrias.categoryId,
};
/** The same dimensions in the running counts, which answer the group tier's totals. */
const COUNT_COLUMNS: FilterColumns = {
  type: recordCounts.type,
  status: recordCounts.status,
  src: recordCounts.sourceId,
  dep: recordCounts.departmentId,
  cat: recordCounts.categoryId,
};

function groupCondition(groups: MatchedGroups, columns: GroupColumns = RECORD_COLUMNS): SQL | undefined {
  const parts = [
    groups.src.length ? inArray(columns.src, groups.src) : undefined,
    groups.dep.length ? inArray(columns.dep, groups.dep) : undefined,
    groups.cat.length ? inArray(columns.cat, groups.cat) : undefined,
  ].filter((part): part is SQL => part !== undefined);
  return parts.length ? or(...parts) : undefined;
}

function filterCondition(filters: SearchFilters, columns: FilterColumns = RECORD_COLUMNS): SQL[] {
  return [
    filters.type ? eq(columns.type, filters.type) : undefined,
    filters.status ? eq(columns.status, filters.status) : undefined,
    filters.departmentId ? eq(columns.dep, filters.departmentId) : undefined,
    filters.categoryId ? eq(columns.cat, filters.categoryId) : undefined,
    filters.sourceId ? eq(columns.src, filters.sourceId) : undefined,
  ].filter((part): part is SQL => part !== undefined);
}

/** One facet value and how many results have it. */
export interface FacetValue {
  value: string;
  label: string;
  count: number;
}

export interface SearchFacets {
  type: FacetValue[];
  status: FacetValue[];
  department: FacetValue[];
  category: FacetValue[];
  source: FacetValue[];
}

export interface SearchResults extends Page<RecordRow> {
  query: string;
  /** The query actually searched when the typed one matched nothing and was corrected. */
  corrected: string | null;
  facets: SearchFacets;
}

const FACET_DIMENSIONS = ['type', 'status', 'department', 'category', 'source'] as const;
type FacetDimension = (typeof FACET_DIMENSIONS)[number];

/** Adds `rows` of `{ key, n }` into `into`, with a sign (to take an overlap away). */
function accumulate(into: Map<string, number>, rows: Array<{ key: string | number | null; n: number }>, sign = 1): void {
  for (const row of rows) {
    if (row.key === null) continue;
    const key = String(row.key);
    into.set(key, (into.get(key) ?? 0) + sign * row.n);
  }
}

/**
 * Corrects each word of `q` that is not in the catalogue's vocabulary to its closest word there,
 * or null when no word needed (or found) a correction.
 */
export async function correctQuery(db: Db, q: string): Promise<string | null> {
  const words = q.split(/\s+/).filter(Boolean);
  let changed = false;
  const corrected: string[] = [];
  for (const word of words) {
    const folded = word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    if (folded.length < 4 || !/^[a-z0-9ñ]+$/.test(folded)) {
      corrected.push(word);
      continue;
    }
    const [known] = await db.select({ word: searchWords.word }).from(searchWords).where(eq(searchWords.word, folded)).limit(1);
    if (known) {
      corrected.push(word);
      continue;
    }
    const [closest] = await db
      .select({ word: searchWords.word })
      .from(searchWords)
      .where(sql`${searchWords.word} % ${folded}`)
      .orderBy(desc(sql`similarity(${searchWords.word}, ${folded})`), searchWords.word)
      .limit(1);
    if (closest) changed = true;
    corrected.push(closest?.word ?? word);
  }
  return changed ? corrected.join(' ') : null;
}

export interface SearchOptions {
  page?: number;
  pageSize?: number;
  filters?: SearchFilters;
  /** Compute the facets (the results page); the modal and the API need only the rows. */
  facets?: boolean;
}

/** The archive's search: a page of records matching `query`, best first, with totals and facets. */
export async function searchArchive(db: Db, query: string, options: SearchOptions = {}): Promise<SearchResults> {
  const typed = clean(query);
  const window = pageWindow(options.page, options.pageSize ?? LIMITS.pageSize);
  const empty: SearchResults = { ...toPage([], 0, window), query: typed, corrected: null, facets: { type: [], status: [], department: [], category: [], source: [] } };
  if (!typed) return empty;

  let q = typed;
  let corrected: string | null = null;
  let tiers = await countTiers(db, q, options.filters ?? {});
  if (tiers.direct + tiers.grouped === 0) {
    corrected = await correctQuery(db, typed);
    if (corrected === null) return empty;
    q = corrected;
    tiers = await countTiers(db, q, options.filters ?? {});
  }

  const filters = filterCondition(options.filters ?? {});
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const items: RecordRow[] = [];
  if (window.offset < tiers.direct) {
    const rows = await db
      .select(rowColumns)
      .from(alexandrias)
      .leftJoin(departments, recordDepartmentJoin)
      .where(and(match, ...filters))
      .orderBy(desc(sql`ts_rank(${alexandrias.search}, ${tsquery(q)})`), desc(alexandrias.updatedAt), desc(alexandrias.id))
      .limit(window.pageSize)
      .offset(window.offset);
    items.push(...rows.map(toRow));
  }
  const grouped = groupCondition(tiers.groups);
  if (items.length < window.pageSize && grouped) {
    const rows = await db
      .select(rowColumns)
      .from(alexandrias)
      .leftJoin(departments, recordDepartmentJoin)
      .where(and(grouped, sql`not (${match})`, ...filters))
      .orderBy(desc(alexandrias.updatedAt), desc(alexandrias.id))
      .limit(window.pageSize - items.length)
      .offset(Math.max(0, window.offset - tiers.direct));
    items.push(...rows.map(toRow));
  }

  return {
    ...toPage(items, tiers.direct + tiers.grouped, window),
    query: typed,
    corrected,
    facets: options.facets ? await facetsOf(db, q, tiers.groups, options.filters ?? {}) : empty.facets,
  };
}

/** How many records match directly, and how many more through their groups only. */
async function countTiers(db: Db, q: string, filters: SearchFilters): Promise<{ direct: number; grouped: number; groups: MatchedGroups }> {
  const groups = await matchedGroups(db, q);
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const [direct] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(match, ...filterCondition(filters)));
  const grouped = groupCondition(groups);
  if (!grouped) return { direct: direct?.n ?? 0, grouped: 0, groups };
  // The group tier's size from the running counts, less the records already counted as direct hits.
  const [all] = await db
    .select({ n: sql<number>`coalesce(sum(${recordCounts.n}), 0)::int` })
    .from(recordCounts)
    .where(and(groupCondition(groups, COUNT_COLUMNS), ...filterCondition(filters, COUNT_COLUMNS)));
  const [overlap] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(match, grouped, ...filterCondition(filters)));
  return { direct: direct?.n ?? 0, grouped: (all?.n ?? 0) - (overlap?.n ?? 0), groups };
}

/** Counts by format, status, institution, category and source over all results (both tiers). */
async function facetsOf(db: Db, q: string, groups: MatchedGroups, filters: SearchFilters): Promise<SearchFacets> {
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const grouped = groupCondition(groups);
  const recordColumns: Record<FacetDimension, SQL> = {
    type: sql`${alexandrias.type}::text`,
    status: sql`${alexandrias.status}::text`,
    department: sql`${alexandrias.departmentId}`,
    category: sql`${alexandrias.categoryId}`,
    source: sql`${alexandrias.sourceId}`,
  };
  const countColumns: Record<FacetDimension, SQL> = {
    type: sql`${recordCounts.type}::text`,
    status: sql`${recordCounts.status}::text`,
    department: sql`${recordCounts.departmentId}`,
    category: sql`${recordCounts.categoryId}`,
    source: sql`${recordCounts.sourceId}`,
  };
  const totals: Record<FacetDimension, Map<string, number>> = {
    type: new Map(), status: new Map(), department: new Map(), category: new Map(), source: new Map(),
  };
  const counted = and(groupCondition(groups, COUNT_COLUMNS), ...filterCondition(filters, COUNT_COLUMNS));
  for (const dimension of FACET_DIMENSIONS) {
    const column = recordColumns[dimension];
    const direct = await db
      .select({ key: sql<string | null>`${column}`, n: sql<number>`count(*)::int` })
      .from(alexandrias)
      .where(and(match, ...filterCondition(filters)))
      .groupBy(column);
    accumulate(totals[dimension], direct);
    if (grouped) {
      const inGroups = await db
        .select({ key: sql<string | null>`${countColumns[dimension]}`, n: sql<number>`sum(${recordCounts.n})::int` })
        .from(recordCounts)
        .where(counted)
        .groupBy(countColumns[dimension]);
      accumulate(totals[dimension], inGroups);
      const overlap = await db
        .select({ key: sql<string | null>`${column}`, n: sql<number>`count(*)::int` })
        .from(alexandrias)
        .where(and(match, grouped, ...filterCondition(filters)))
        .groupBy(column);
      accumulate(totals[dimension], overlap, -1);
    }
  }
  const top = (map: Map<string, number>) =>
    [...map.entries()].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
  const named = async (dimension: 'department' | 'category' | 'source'): Promise<FacetValue[]> => {
    const counted = [...totals[dimension].keys()];
    if (counted.length === 0) return [];
    const entity: GroupEntity = dimension === 'department' ? 'dep' : dimension === 'category' ? 'cat' : 'src';
    const table = dimension === 'department' ? departments : dimension === 'category' ? categories : sources;
    const nameColumn = dimension === 'category' ? categories.title : dimension === 'department' ? departments.name : sources.name;
    const rows = await db
      .select({ id: table.id, name: nameColumn })
      .from(table)
      .where(and(inArray(table.id, counted.map(Number)), publicGroup(entity)));
    const names = new Map(rows.map((row) => [String(row.id), row.name]));
    // A source or institution the public may not see is no facet: neither its name nor its id.
    return top(new Map([...totals[dimension]].filter(([id]) => names.has(id)))).map(([value, count]) => ({ value, label: names.get(value)!, count }));
  };
  return {
    type: top(totals.type).map(([value, count]) => ({ value, label: value, count })),
    status: top(totals.status).map(([value, count]) => ({ value, label: value, count })),
    department: await named('department'),
    category: await named('category'),
    source: await named('source'),
  };
}

/** Records matching `query`, best first: the modal's and the REST title search's first results. */
export async function searchRecords(db: Db, query: string, limit: number = LIMITS.searchResults): Promise<RecordRow[]> {
  return (await searchArchive(db, query, { pageSize: limit })).items;
}

export interface GroupHit {
  id: number;
  name: string;
  url: string | null;
}

const SEARCHABLE = {
  src: { table: sources, id: sources.id, name: sources.name, url: sources.url, search: sources.search },
  dep: { table: departments, id: departments.id, name: departments.name, url: departments.website, search: departments.search },
  cat: { table: categories, id: categories.id, name: categories.title, url: sql<string | null>`null`, search: categories.search },
} as const;

/** Public sources, departments or categories matching `query` by words or, failing that, by likeness. */
export async function searchGroups(db: Db, entity: GroupEntity, query: string, limit: number = LIMITS.searchResults): Promise<GroupHit[]> {
  const q = clean(query);
  if (!q) return [];
  const group = SEARCHABLE[entity];
  const folded = sql`archivo_unaccent(lower(${q}))`;
  const name = sql`archivo_unaccent(lower(${group.name}))`;
  return db
    .select({ id: group.id, name: group.name, url: group.url })
    .from(group.table)
    .where(and(sql`(${group.search} @@ ${tsquery(q)} or ${folded} <% ${name})`, publicGroup(entity)))
    .orderBy(desc(sql`ts_rank(${group.search}, ${tsquery(q)}) + word_similarity(${folded}, ${name})`), group.id)
    .limit(limit);
}
