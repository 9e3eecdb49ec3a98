/**
 * Search in Spanish (issue #7), one engine for the results page, the search modal's REST calls and
 * GraphQL's text filters:
 *
 * - full text in the `archivo_es` configuration (Spanish stemming after accent folding):
 *   "educacion" finds "Educación", "presupuestos" finds "Presupuesto";
 * - records whose own words match come first, ranked title before description (weights A, B);
 *   then the records of every source, institution (name or acronym: "MINERD") and category whose
 *   name matches, newest first. Only the name (weight A): a category described as «Presupuesto,
 *   compras, nómina…» would otherwise bring its 400 records into every search for «compras»;
 * - numbers joined by a hyphen or a slash («2018-2020») are split, in the query as in the
 *   documents (`archivo_search_text`), so that «2020» finds «2018-2020»;
 * - when nothing matches, each unknown word is replaced by its closest word of the catalogue's
 *   vocabulary (`search_words`, by trigram similarity), and the corrected query is searched.
 *
 * The two tiers are read separately, so neither needs ranking every record of a large category:
 * direct hits through the GIN index, group hits through the per-group indexes, and the totals and
 * facets of the group tier from the running counts (`record_counts`).
 */
import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { LIMITS } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, departments, recordCounts, searchWords } from '../db/schema.ts';
import { byDimension, DIMENSIONS, GROUP_ENTITY_LIST } from './dimensions.ts';
import { pageWindow, toPage, type Page } from './paging.ts';
import { countsCondition, recordCondition, type CountedFilter } from './record-filter.ts';
import { rowColumns, toRow, type RecordRow } from './records.ts';
import { recordDepartmentJoin } from './visibility.ts';

/** Longest query we search for; longer input is cut, not refused. */
const MAX_QUERY = 200;

/** The query as PostgreSQL can take it: no NUL (text cannot hold one), trimmed, bounded. */
function clean(query: string): string {
  return query.replaceAll('\0', ' ').trim().slice(0, MAX_QUERY);
}

const tsquery = (q: string) => sql`websearch_to_tsquery('archivo_es', archivo_search_text(${q}))`;

/** The sources, institutions and categories whose names match: their records match too. */
type MatchedGroups = Record<GroupEntity, number[]>;

/**
 * A group's name (and an institution's acronym): the words of weight A of its search document.
 * `ts_filter` cannot use the GIN index; groups number in the hundreds, so that costs nothing.
 */
const groupName = (group: (typeof DIMENSIONS)[GroupEntity]) => sql`ts_filter(${group.search}, '{a}')`;

async function matchedGroups(db: Db, q: string): Promise<MatchedGroups> {
  const query = tsquery(q);
  // Only public groups lend their words: an unreviewed name must not pull records into a search.
  const ids = async (entity: GroupEntity) => {
    const group = DIMENSIONS[entity];
    const rows = await db.select({ id: group.id }).from(group.table).where(and(sql`${groupName(group)} @@ ${query}`, group.visible)).limit(200);
    return rows.map((row) => row.id);
  };
  return Object.fromEntries(await Promise.all(GROUP_ENTITY_LIST.map(async (entity) => [entity, await ids(entity)]))) as MatchedGroups;
}

/** The records of the matched groups, on the records themselves or on their running counts. */
function groupCondition(groups: MatchedGroups, column: 'recordColumn' | 'countsColumn' = 'recordColumn'): SQL | undefined {
  const parts = GROUP_ENTITY_LIST.flatMap((entity) => (groups[entity].length ? [inArray(DIMENSIONS[entity][column], groups[entity])] : []));
  return parts.length ? or(...parts) : undefined;
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

type FacetDimension = keyof SearchFacets;

/** Each facet's column on the records and in the running counts, as text or id keys. */
const FACET_COLUMNS: Record<FacetDimension, { record: SQL; counts: SQL }> = {
  type: { record: sql`${alexandrias.type}::text`, counts: sql`${recordCounts.type}::text` },
  status: { record: sql`${alexandrias.status}::text`, counts: sql`${recordCounts.status}::text` },
  ...byDimension('field', (dimension) => ({ record: sql`${dimension.recordColumn}`, counts: sql`${dimension.countsColumn}` })),
};

/** Adds `rows` of `{ key, n }` into `into`, with a sign (to take an overlap away). */
function accumulate(into: Map<string, number>, rows: Array<{ key: string | number | null; n: number }>, sign = 1): void {
  for (const row of rows) {
    if (row.key === null) continue;
    const key = String(row.key);
    into.set(key, (into.get(key) ?? 0) + sign * row.n);
  }
}

/** A word as the vocabulary compares it: accent-folded and lower-case (`archivo_words`). */
const fold = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Corrects each word of `q` that is not in the catalogue's vocabulary to its closest word there,
 * or null when no word needed (or found) a correction.
 */
export async function correctQuery(db: Db, q: string): Promise<string | null> {
  const words = q.split(/\s+/).filter(Boolean);
  let changed = false;
  const corrected: string[] = [];
  for (const word of words) {
    const folded = fold(word);
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

/**
 * The corrected query with each corrected word spelled as the records found write it ('educación',
 * not the vocabulary's accent-folded 'educacion'): of their accented spellings of it, the most
 * frequent ('público' rather than the rare 'publicó'). Words the visitor typed that needed no
 * correction stay as typed.
 */
export function spelledAsFound(corrected: string, typed: string, found: ReadonlyArray<Pick<RecordRow, 'title' | 'description' | 'department'>>): string {
  const typedWords = typed.split(/\s+/).filter(Boolean);
  const correctedWords = corrected.split(' ');
  const wanted = new Set(correctedWords.filter((word, index) => word !== typedWords[index]).map(fold));
  const counts = new Map<string, Map<string, number>>();
  for (const record of found) {
    for (const text of [record.title, record.department?.name ?? '', record.description ?? '']) {
      for (const token of text.split(/[^\p{L}\p{N}]+/u)) {
        const spelling = token.toLowerCase();
        const folded = fold(token);
        // Only spellings that add something (an accent, a ñ) to the folded word.
        if (!wanted.has(folded) || spelling === folded) continue;
        const forms = counts.get(folded) ?? new Map<string, number>();
        forms.set(spelling, (forms.get(spelling) ?? 0) + 1);
        counts.set(folded, forms);
      }
    }
  }
  const mostFrequent = (forms: Map<string, number> | undefined) => (forms ? [...forms].sort((a, b) => b[1] - a[1])[0]?.[0] : undefined);
  return correctedWords.map((word, index) => (word === typedWords[index] ? word : (mostFrequent(counts.get(fold(word))) ?? word))).join(' ');
}

export interface SearchOptions {
  page?: number;
  pageSize?: number;
  /** Only what the running counts are kept by (they answer the group tier's totals). */
  filters?: CountedFilter;
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

  const filters = recordCondition(options.filters ?? {});
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const items: RecordRow[] = [];
  if (window.offset < tiers.direct) {
    const rows = await db
      .select(rowColumns)
      .from(alexandrias)
      .leftJoin(departments, recordDepartmentJoin)
      .where(and(match, filters))
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
      .where(and(grouped, sql`not (${match})`, filters))
      .orderBy(desc(alexandrias.updatedAt), desc(alexandrias.id))
      .limit(window.pageSize - items.length)
      .offset(Math.max(0, window.offset - tiers.direct));
    items.push(...rows.map(toRow));
  }

  return {
    ...toPage(items, tiers.direct + tiers.grouped, window),
    query: typed,
    corrected: corrected === null ? null : spelledAsFound(corrected, typed, items),
    facets: options.facets ? await facetsOf(db, q, tiers.groups, options.filters ?? {}) : empty.facets,
  };
}

/** How many records match directly, and how many more through their groups only. */
async function countTiers(db: Db, q: string, filters: CountedFilter): Promise<{ direct: number; grouped: number; groups: MatchedGroups }> {
  const groups = await matchedGroups(db, q);
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const [direct] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(match, recordCondition(filters)));
  const grouped = groupCondition(groups);
  if (!grouped) return { direct: direct?.n ?? 0, grouped: 0, groups };
  // The group tier's size from the running counts, less the records already counted as direct hits.
  const [all] = await db
    .select({ n: sql<number>`coalesce(sum(${recordCounts.n}), 0)::int` })
    .from(recordCounts)
    .where(and(groupCondition(groups, 'countsColumn'), countsCondition(filters)));
  const [overlap] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(match, grouped, recordCondition(filters)));
  return { direct: direct?.n ?? 0, grouped: (all?.n ?? 0) - (overlap?.n ?? 0), groups };
}

/** Counts by format, status, institution, category and source over all results (both tiers). */
async function facetsOf(db: Db, q: string, groups: MatchedGroups, filters: CountedFilter): Promise<SearchFacets> {
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const grouped = groupCondition(groups);
  const filtered = recordCondition(filters);
  const counted = and(groupCondition(groups, 'countsColumn'), countsCondition(filters));
  const totals = {} as Record<FacetDimension, Map<string, number>>;
  for (const [dimension, columns] of Object.entries(FACET_COLUMNS) as Array<[FacetDimension, { record: SQL; counts: SQL }]>) {
    totals[dimension] = new Map();
    const direct = await db
      .select({ key: sql<string | null>`${columns.record}`, n: sql<number>`count(*)::int` })
      .from(alexandrias)
      .where(and(match, filtered))
      .groupBy(columns.record);
    accumulate(totals[dimension], direct);
    if (grouped) {
      const inGroups = await db
        .select({ key: sql<string | null>`${columns.counts}`, n: sql<number>`sum(${recordCounts.n})::int` })
        .from(recordCounts)
        .where(counted)
        .groupBy(columns.counts);
      accumulate(totals[dimension], inGroups);
      const overlap = await db
        .select({ key: sql<string | null>`${columns.record}`, n: sql<number>`count(*)::int` })
        .from(alexandrias)
        .where(and(match, grouped, filtered))
        .groupBy(columns.record);
      accumulate(totals[dimension], overlap, -1);
    }
  }
  const top = (map: Map<string, number>) =>
    [...map.entries()].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
  const named = async (entity: GroupEntity): Promise<FacetValue[]> => {
    const group = DIMENSIONS[entity];
    const counted = [...totals[group.field].keys()];
    if (counted.length === 0) return [];
    const rows = await db
      .select({ id: group.id, name: group.name })
      .from(group.table)
      .where(and(inArray(group.id, counted.map(Number)), group.visible));
    const names = new Map(rows.map((row) => [String(row.id), row.name]));
    // A source or institution the public may not see is no facet: neither its name nor its id.
    return top(new Map([...totals[group.field]].filter(([id]) => names.has(id)))).map(([value, count]) => ({ value, label: names.get(value)!, count }));
  };
  return {
    type: top(totals.type).map(([value, count]) => ({ value, label: value, count })),
    status: top(totals.status).map(([value, count]) => ({ value, label: value, count })),
    department: await named('dep'),
    category: await named('cat'),
    source: await named('src'),
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

/** Public sources, departments or categories whose name matches `query` by words or, failing that, by likeness. */
export async function searchGroups(db: Db, entity: GroupEntity, query: string, limit: number = LIMITS.searchResults): Promise<GroupHit[]> {
  const q = clean(query);
  if (!q) return [];
  const group = DIMENSIONS[entity];
  const folded = sql`archivo_unaccent(lower(${q}))`;
  const name = sql`archivo_unaccent(lower(${group.name}))`;
  return db
    .select({ id: group.id, name: group.name, url: group.url ?? sql<string | null>`null` })
    .from(group.table)
    .where(and(sql`(${groupName(group)} @@ ${tsquery(q)} or ${folded} <% ${name})`, group.visible))
    .orderBy(desc(sql`ts_rank(${groupName(group)}, ${tsquery(q)}) + word_similarity(${folded}, ${name})`), group.id)
    .limit(limit);
}
