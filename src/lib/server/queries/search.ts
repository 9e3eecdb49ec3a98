/**
 * Search in Spanish (issue #7), one engine for the results page, the search modal's REST calls and
 * GraphQL's text filters:
 *
 * - full text in the `archivo_es` configuration (Spanish stemming of accent-folded text, migration
 *   0032): "educacion" finds "Educación", "presupuestos" finds "Presupuesto", "exportación" finds
 *   "Exportaciones"; titles that hold the words as typed first, then titles that share their stem,
 *   then descriptions that hold them as typed, then the rest by rank;
 * - records whose own words match come first, ranked title before description (weights A, B);
 *   then the records of every source, institution (name or acronym: "MINERD") and category whose
 *   name matches, newest first. Only the name (weight A): a category described as «Presupuesto,
 *   compras, nómina…» would otherwise bring its 400 records into every search for «compras»;
 * - then, for a plain query of a few words, the records that have each word either in their own
 *   text or in the name of one of their groups, newest first: «MINERD 2023» finds the ministry's
 *   records that mention 2023, though neither the records nor the ministry's name hold both;
 * - numbers joined by a hyphen or a slash («2018-2020») are split, in the query as in the
 *   documents (`archivo_search_text`), so that «2020» finds «2018-2020»;
 * - when nothing matches, each unknown word is replaced by its closest word of the catalogue's
 *   vocabulary (`search_words`, by trigram similarity), and the corrected query is searched.
 *
 * The tiers are read separately, so none needs ranking every record of a large category: direct
 * hits through the GIN index, group hits through the per-group indexes, and the totals and facets
 * of the group tier from the running counts (`record_counts`); the mixed tier, which no running
 * count knows, is counted on the records (its words' index hits and group ids, intersected).
 */
import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { LIMITS } from '../../domain/constants.ts';
import { boundedSearchText } from '../../domain/search-text.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, departments, recordCounts, searchWords } from '../db/schema.ts';
import { byDimension, DIMENSIONS, GROUP_ENTITY_LIST } from './dimensions.ts';
import { pageWindow, toPage, type Page } from './paging.ts';
import { countsCondition, recordCondition, type CountedFilter } from './record-filter.ts';
import { rowColumns, toRow, withOriginMarks, type RecordRow, type UnmarkedRecordRow } from './records.ts';
import { recordDepartmentJoin } from './visibility.ts';

/** The query as PostgreSQL can take it: no NUL (text cannot hold one), trimmed, bounded at a space. */
const clean = (query: string) => boundedSearchText(query.replaceAll('\0', ' '));

/**
 * A dash between spaces is punctuation in a title («Presupuesto, 2019 - 2023», «2019 – 2025»), not
 * web search's minus, which leaves out the word it is written against («salud -seguro»): pasted
 * as written, such a title left out its own last year and found nothing. (The accents' folding
 * turns an en or em dash into a hyphen.)
 */
const searchable = (q: string) => withoutLooseOperators(q.replace(/(^|\s)[-\u2010-\u2015\u2212]+(?=\s|$)/g, '$1').replace(/\s{2,}/g, ' ').trim());

/**
 * Web search's OR joins the words on either side of it; with none on one side («presupuesto OR»,
 * a query typed in halves) PostgreSQL searches the word «or», and nothing was found. An AND in
 * capitals, as other search engines take it, asks what the archive does between words anyway; a
 * NOT in capitals is their minus («salud NOT hospital»). A query of nothing but those words is
 * searched as it is.
 */
function withoutLooseOperators(q: string): string {
  const typed = q.split(' ');
  const words = typed
    .map((word, index) => (typed[index - 1] === 'NOT' && !word.startsWith('-') && word !== 'NOT' ? `-${word}` : word))
    .filter((word) => word !== 'AND' && word !== 'NOT');
  while (words.length > 0 && /^or$/i.test(words[0]!)) words.shift();
  while (words.length > 0 && /^or$/i.test(words.at(-1)!)) words.pop();
  return words.length > 0 ? words.join(' ') : q;
}

/** The words a query looks for, less those a minus leaves out: what a name may be like. */
const wantedWords = (q: string) =>
  q
    .split(/\s+/)
    .filter((word) => word && !word.startsWith('-'))
    .join(' ');

/**
 * The full-text query of what was typed (web search syntax: quotes, OR, a minus that leaves out),
 * each short word widened to its other number, which the Spanish stemmer files apart («año»,
 * «años»: migration 0036).
 */
const tsquery = (q: string | SQL) => sql`archivo_search_query(${q})`;

/**
 * Whether a record's title (`a`) or description (`b`) holds the words as typed (case and accents
 * aside), not only their stem. The Spanish stemmer files «educación» with «educativos», and
 * «comunicación» with «comunidad» (both «comun»). Direct hits come in this order: a title that
 * says what was typed; a title that shares its stem; a description that says it; the rest by rank.
 * Asked of the stored `search_typed` (migration 0046): computing it from the texts cost 40 µs a
 * hit, over a second for the 27,881 of 100,000 records that «estadísticas» matches.
 */
const holdsWordsAsTyped = (part: 'a' | 'b', q: string) =>
  sql`ts_filter(${alexandrias.searchTyped}, ${sql.raw(`'{${part}}'`)}) @@ websearch_to_tsquery('simple', archivo_search_text(${q}))`;

/** The sources, institutions and categories whose names match: their records match too. */
type MatchedGroups = Record<GroupEntity, number[]>;

/**
 * A group's name (and an institution's acronym): the words of weight A of its search document.
 * `ts_filter` cannot use the GIN index; groups number in the hundreds, so that costs nothing.
 */
const groupName = (group: (typeof DIMENSIONS)[GroupEntity]) => sql`ts_filter(${group.search}, '{a}')`;

async function matchedGroups(db: Db, q: string): Promise<MatchedGroups> {
  const query = tsquery(q);
  // A query that only leaves words out («-salud») names no group (`querytree` is 'T': nothing to
  // look for): every name without the word would match, and bring every record of the archive,
  // those with the word included.
  const looksFor = sql`querytree(${query}) <> 'T'`;
  // Only public groups lend their words: an unreviewed name must not pull records into a search.
  const ids = async (entity: GroupEntity) => {
    const group = DIMENSIONS[entity];
    const rows = await db.select({ id: group.id }).from(group.table).where(and(looksFor, sql`${groupName(group)} @@ ${query}`, group.visible)).limit(200);
    return rows.map((row) => row.id);
  };
  return Object.fromEntries(await Promise.all(GROUP_ENTITY_LIST.map(async (entity) => [entity, await ids(entity)]))) as MatchedGroups;
}

/**
 * What a minus leaves out («salud -hospital», «-"centro médico"»), its words and phrases joined by
 * OR; null when the query leaves nothing out.
 */
function leftOutTerms(q: string): string | null {
  // A quoted phrase is read whole, a dash inside it included («"salud -hospital"» leaves nothing
  // out); and a double minus («--hospital») is PostgreSQL's «not not», no minus at all.
  const terms = [...q.matchAll(/(?:^|\s)-("[^"]*"|[^\s"-][^\s"]*)|"[^"]*"/g)].flatMap((match) => (match[1] === undefined ? [] : [match[1]]));
  return terms.length > 0 ? terms.join(' or ') : null;
}

/**
 * The records a query's minus keeps. The full-text query leaves out a record whose own text holds
 * the word; this also leaves out the records of a source, institution or category whose name holds
 * it, and keeps the word's records from coming back through their groups («salud -hospital»
 * brought the hospitals' records through the Salud category). Undefined when nothing is left out.
 */
async function keptByMinus(db: Db, q: string): Promise<SQL | undefined> {
  const terms = leftOutTerms(q);
  if (terms === null) return undefined;
  const named = groupCondition(await matchedGroups(db, terms));
  // coalesce: a record with no category (a null id) is not «in» any group, and must stay.
  return sql`not coalesce(${or(sql`${alexandrias.search} @@ ${tsquery(terms)}`, named)}, false)`;
}

/** The records of the matched groups, on the records themselves or on their running counts. */
function groupCondition(groups: MatchedGroups, column: 'recordColumn' | 'countsColumn' = 'recordColumn'): SQL | undefined {
  const parts = GROUP_ENTITY_LIST.flatMap((entity) => (groups[entity].length ? [inArray(DIMENSIONS[entity][column], groups[entity])] : []));
  return parts.length ? or(...parts) : undefined;
}

/** More words than this are searched only as typed: a sentence pasted in has no mixed tier. */
const MAX_MIXED_WORDS = 6;
/**
 * A word in more group names than this («nacional», «dirección») is too general to lend their
 * records: it is matched in the records' own text only, and their thousands are not read.
 */
const MAX_GROUPS_PER_WORD = 50;

/** The words of a query, each with the groups whose names hold it. */
type WordGroups = Array<{ word: string; groups: MatchedGroups }>;

/**
 * Each word of a plain query (no quotes, parentheses, OR, or a minus that leaves out) with the
 * groups whose names hold it; null when there is no mixed tier to search: one word (the direct
 * and group tiers cover it), operators, too many words, or no word naming any group (then every
 * record the mixed tier could find is a direct hit already). A word with no lexeme of its own («de»)
 * is left out, as the full-text query leaves it.
 */
async function wordGroups(db: Db, q: string): Promise<WordGroups | null> {
  const typed = plainWords(q, MAX_MIXED_WORDS);
  if (!typed || typed.length < 2) return null;
  const words = wordQueries(typed);
  // One round trip: which words have a lexeme, and the groups each word names, of every kind.
  const parts = [
    sql`select w.i, 'lexeme' as kind, 0 as id from ${words} where numnode(w.q) > 0`,
    ...GROUP_ENTITY_LIST.map((entity) => {
      const group = DIMENSIONS[entity];
      return sql`select w.i, ${entity}::text as kind, ${group.id} as id from ${words} join ${group.table} on ${groupName(group)} @@ w.q where ${group.visible ?? sql`true`}`;
    }),
  ];
  const found = (await db.execute(sql.join(parts, sql` union all `))) as unknown as { rows: Array<{ i: number; kind: GroupEntity | 'lexeme'; id: number }> };
  const kept = new Set<number>();
  const covers: WordGroups = typed.map((word) => ({ word, groups: { src: [], dep: [], cat: [] } }));
  for (const row of found.rows) {
    if (row.kind === 'lexeme') kept.add(Number(row.i));
    else covers[Number(row.i)]!.groups[row.kind].push(Number(row.id));
  }
  if (kept.size < 2) return null;
  for (const cover of covers) {
    if (GROUP_ENTITY_LIST.reduce((sum, entity) => sum + cover.groups[entity].length, 0) > MAX_GROUPS_PER_WORD) cover.groups = { src: [], dep: [], cat: [] };
  }
  const named = covers.some((cover, index) => kept.has(index) && GROUP_ENTITY_LIST.some((entity) => cover.groups[entity].length > 0));
  return named ? covers.filter((_, index) => kept.has(index)) : null;
}

/** The words of a plain query (no quotes, parentheses, OR, or a minus that leaves out), or null: operators, or more than `max`. */
function plainWords(q: string, max: number): string[] | null {
  if (/["()]|(^|\s)-|\bor\b/i.test(q)) return null;
  const typed = q.split(/\s+/).filter(Boolean);
  return typed.length > max ? null : typed;
}

/**
 * `typed` as a subquery `w(i, q)` of each word's index and full-text query, computed once (`offset 0`
 * keeps the planner from folding the subquery into the joins, where it would compute it again for
 * every group it is held against).
 */
function wordQueries(typed: readonly string[]): SQL {
  return sql`(select v.i, ${tsquery(sql`v.word`)} as q from (values ${sql.join(
    typed.map((word, index) => sql`(${index}::int, ${word}::text)`),
    sql`, `,
  )}) as v(i, word) offset 0) as w`;
}

/**
 * Records with every word in their own text or in one of their groups' names, less those with every
 * word in their own text (the direct hits, left out anyway). Written as one arm per word that names
 * groups: that word's groups, and each other word either way. Each arm starts from a group's
 * records (an index), where the plain conjunction of ORs made the planner scan every record
 * holding a common word («2023»: 17,000 of 100,000) and filter.
 */
function mixedCondition(covers: WordGroups): SQL {
  const either = ({ word, groups }: WordGroups[number]) => or(sql`${alexandrias.search} @@ ${tsquery(word)}`, groupCondition(groups));
  const arms = covers.flatMap((cover, index) => {
    const grouped = groupCondition(cover.groups);
    return grouped ? [and(grouped, ...covers.filter((_, other) => other !== index).map(either))] : [];
  });
  return or(...arms)!;
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
  /**
   * Nothing found because the query has no word the search looks for, only words too common to
   * index («de la»): the page says so, rather than «no results» for words many titles hold.
   */
  tooCommon?: boolean;
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
 * `word` with each pair of neighbouring letters swapped, once each («slaud»: «lsaud», «sluad»,
 * «saoud»…). Digits stay where they are: «2019» is no typo of «2091».
 */
function adjacentSwaps(word: string): string[] {
  const letters = [...word];
  const swaps = new Set<string>();
  for (let index = 0; index + 1 < letters.length; index++) {
    if (letters[index] === letters[index + 1] || /\d/.test(letters[index]! + letters[index + 1]!)) continue;
    const swapped = [...letters];
    [swapped[index], swapped[index + 1]] = [swapped[index + 1]!, swapped[index]!];
    swaps.add(swapped.join(''));
  }
  return [...swaps];
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
    // Two letters swapped («nomnia», «slaud») share too few trigrams with the word meant to pass
    // the similarity threshold in a short word: such a word is looked for first, by its spellings.
    const swaps = adjacentSwaps(folded);
    const [swapped] =
      swaps.length > 0 ? await db.select({ word: searchWords.word }).from(searchWords).where(inArray(searchWords.word, swaps)).orderBy(searchWords.word).limit(1) : [];
    const [closest] = swapped
      ? [swapped]
      : await db
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

/** Facets with no values: a search that asked for none, or found nothing. */
const noFacets = (): SearchFacets => ({ type: [], status: [], department: [], category: [], source: [] });

/** The archive's search: a page of records matching `query`, best first, with totals and facets. */
export async function searchArchive(db: Db, query: string, options: SearchOptions = {}): Promise<SearchResults> {
  const typed = clean(query);
  const window = pageWindow(options.page, options.pageSize ?? LIMITS.pageSize);
  const empty: SearchResults = { ...toPage([], 0, window), query: typed, corrected: null, facets: noFacets() };
  if (!typed) return hasFilter(options.filters) ? browse(db, options.filters!, window, options.facets === true) : empty;

  const words = searchable(typed);
  if (!words) return empty;
  let q = words;
  let corrected: string | null = null;
  let tiers = await countTiers(db, q, options.filters ?? {});
  const found = () => tiers.direct + tiers.grouped + tiers.mixed;
  if (found() === 0) {
    corrected = await correctQuery(db, words);
    if (corrected === null) {
      const { rows } = (await db.execute(sql`select numnode(${tsquery(words)}) as lexemes`)) as unknown as { rows: Array<{ lexemes: number }> };
      return { ...empty, tooCommon: Number(rows[0]?.lexemes ?? 1) === 0 };
    }
    q = corrected;
    tiers = await countTiers(db, q, options.filters ?? {});
    // A correction that finds nothing either is not offered: «Mostrando resultados de …» over none.
    if (found() === 0) return empty;
  }

  const filters = and(recordCondition(options.filters ?? {}), tiers.kept);
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const items: UnmarkedRecordRow[] = [];
  if (window.offset < tiers.direct) {
    // The page's records are picked from the records alone, then read with their institution:
    // joined before the sort, every hit (27,881 for «estadísticas») was held against every
    // institution, a nested loop the embedded database, which has no planner statistics (no
    // autovacuum), chose for an estimate of 500 hits: 1.4 s.
    const page = await db
      .select({ id: alexandrias.id })
      .from(alexandrias)
      .where(and(match, filters))
      .orderBy(
        desc(holdsWordsAsTyped('a', q)),
        // The title's words (weight A) by stem, before a description that says it as typed.
        desc(sql`ts_filter(${alexandrias.search}, '{a}') @@ ${tsquery(q)}`),
        desc(holdsWordsAsTyped('b', q)),
        desc(sql`ts_rank(${alexandrias.search}, ${tsquery(q)})`),
        desc(alexandrias.updatedAt),
        desc(alexandrias.id),
      )
      .limit(window.pageSize)
      .offset(window.offset);
    const ids = page.map((row) => row.id);
    const rows = ids.length === 0 ? [] : await db.select(rowColumns).from(alexandrias).leftJoin(departments, recordDepartmentJoin).where(inArray(alexandrias.id, ids));
    const byId = new Map(rows.map((row) => [row.id, row]));
    items.push(...ids.flatMap((id) => (byId.has(id) ? [toRow(byId.get(id)!)] : [])));
  }
  // The other tiers join before they sort: they are read newest first, and the bench's «salud»
  // (its group tier, the Salud category's 32,021 of 100,000 records) takes 13 ms as they are.
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
  const mixed = mixedTier(q, tiers);
  if (items.length < window.pageSize && mixed) {
    const rows = await db
      .select(rowColumns)
      .from(alexandrias)
      .leftJoin(departments, recordDepartmentJoin)
      .where(and(mixed, filters))
      .orderBy(desc(alexandrias.updatedAt), desc(alexandrias.id))
      .limit(window.pageSize - items.length)
      .offset(Math.max(0, window.offset - tiers.direct - tiers.grouped));
    items.push(...rows.map(toRow));
  }

  return {
    ...toPage(await withOriginMarks(db, items), found(), window),
    query: typed,
    corrected: corrected === null ? null : spelledAsFound(corrected, words, items),
    facets: options.facets ? await facetsOf(db, q, tiers, options.filters ?? {}) : empty.facets,
  };
}

/** What the tiers found: how many records in each, the groups named by the whole query, and by each word. */
interface Tiers {
  direct: number;
  grouped: number;
  mixed: number;
  groups: MatchedGroups;
  words: WordGroups | null;
  /** What a minus leaves out (`keptByMinus`); the group tier is then counted on the records. */
  kept: SQL | undefined;
}

/** The mixed tier's records: every word in their text or groups, and neither a direct nor a group hit. */
function mixedTier(q: string, tiers: Pick<Tiers, 'groups' | 'words' | 'kept'>): SQL | undefined {
  if (!tiers.words) return undefined;
  const grouped = groupCondition(tiers.groups);
  return and(mixedCondition(tiers.words), sql`not (${alexandrias.search} @@ ${tsquery(q)})`, grouped ? sql`not (${grouped})` : undefined, tiers.kept);
}

/** How many records match directly, how many more through their groups only, and how many more word by word. */
async function countTiers(db: Db, q: string, filters: CountedFilter): Promise<Tiers> {
  const [groups, words, kept] = await Promise.all([matchedGroups(db, q), wordGroups(db, q), keptByMinus(db, q)]);
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const [direct] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(match, recordCondition(filters), kept));
  const mixed = mixedTier(q, { groups, words, kept });
  const [inMixed] = mixed ? await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(mixed, recordCondition(filters))) : [];
  const grouped = groupCondition(groups);
  const counted = { direct: direct?.n ?? 0, mixed: inMixed?.n ?? 0, groups, words, kept };
  if (!grouped) return { ...counted, grouped: 0 };
  // The running counts know nothing of the records' words: what a minus keeps is counted on them.
  if (kept) {
    const [inGroups] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(grouped, sql`not (${match})`, recordCondition(filters), kept));
    return { ...counted, grouped: inGroups?.n ?? 0 };
  }
  // The group tier's size from the running counts, less the records already counted as direct hits.
  const [all] = await db
    .select({ n: sql<number>`coalesce(sum(${recordCounts.n}), 0)::int` })
    .from(recordCounts)
    .where(and(groupCondition(groups, 'countsColumn'), countsCondition(filters)));
  const [overlap] = await db.select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(and(match, grouped, recordCondition(filters)));
  return { ...counted, grouped: (all?.n ?? 0) - (overlap?.n ?? 0) };
}

/** Counts by format, status, institution, category and source over all results (every tier). */
async function facetsOf(db: Db, q: string, tiers: Tiers, filters: CountedFilter): Promise<SearchFacets> {
  const { groups } = tiers;
  const match = sql`${alexandrias.search} @@ ${tsquery(q)}`;
  const grouped = groupCondition(groups);
  const mixed = tiers.mixed > 0 ? mixedTier(q, tiers) : undefined;
  // The mixed tier has no running counts: its records are read once, counted by every facet's key.
  const mixedRows = mixed
    ? await db
        .select({
          ...(Object.fromEntries(Object.entries(FACET_COLUMNS).map(([dimension, columns]) => [dimension, sql<string | null>`${columns.record}`])) as Record<FacetDimension, SQL<string | null>>),
          n: sql<number>`count(*)::int`,
        })
        .from(alexandrias)
        .where(and(mixed, recordCondition(filters)))
        .groupBy(...Object.values(FACET_COLUMNS).map((columns) => columns.record))
    : null;
  const filtered = and(recordCondition(filters), tiers.kept);
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
    if (grouped && tiers.kept) {
      // What a minus keeps is known on the records only (`countTiers`).
      const inGroups = await db
        .select({ key: sql<string | null>`${columns.record}`, n: sql<number>`count(*)::int` })
        .from(alexandrias)
        .where(and(grouped, sql`not (${match})`, filtered))
        .groupBy(columns.record);
      accumulate(totals[dimension], inGroups);
    } else if (grouped) {
      accumulate(totals[dimension], await runningCountsBy(db, columns.counts, counted));
      const overlap = await db
        .select({ key: sql<string | null>`${columns.record}`, n: sql<number>`count(*)::int` })
        .from(alexandrias)
        .where(and(match, grouped, filtered))
        .groupBy(columns.record);
      accumulate(totals[dimension], overlap, -1);
    }
    if (mixedRows) accumulate(totals[dimension], mixedRows.map((row) => ({ key: row[dimension], n: row.n })));
  }
  return facetValues(db, totals);
}

/** The ten most frequent values of each facet, institutions, categories and sources by name. */
async function facetValues(db: Db, totals: Record<FacetDimension, Map<string, number>>): Promise<SearchFacets> {
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

/** Whether a search asks for any filter (a format, status, institution, category or source). */
function hasFilter(filters: CountedFilter | undefined): boolean {
  return filters !== undefined && Object.values(filters).some((value) => value !== undefined);
}

/**
 * A search with filters and no words: every record the filters keep, most recently updated first
 * (a reader browsing «all the CSVs of an institution», who should not have to guess a word),
 * counted and faceted from the running counts.
 */
async function browse(db: Db, filters: CountedFilter, window: ReturnType<typeof pageWindow>, withFacets: boolean): Promise<SearchResults> {
  const counted = countsCondition(filters);
  const [total] = await db.select({ n: sql<number>`coalesce(sum(${recordCounts.n}), 0)::int` }).from(recordCounts).where(counted);
  const rows = await db
    .select(rowColumns)
    .from(alexandrias)
    .leftJoin(departments, recordDepartmentJoin)
    .where(recordCondition(filters))
    .orderBy(desc(alexandrias.updatedAt), desc(alexandrias.id))
    .limit(window.pageSize)
    .offset(window.offset);
  const page = { ...toPage(await withOriginMarks(db, rows.map(toRow)), total?.n ?? 0, window), query: '', corrected: null };
  if (!withFacets) return { ...page, facets: noFacets() };
  const totals = {} as Record<FacetDimension, Map<string, number>>;
  for (const [dimension, columns] of Object.entries(FACET_COLUMNS) as Array<[FacetDimension, { record: SQL; counts: SQL }]>) {
    totals[dimension] = new Map();
    accumulate(totals[dimension], await runningCountsBy(db, columns.counts, counted));
  }
  return { ...page, facets: await facetValues(db, totals) };
}

/** The running counts' records matching `where`, summed by the value of `key` (a facet's column there). */
function runningCountsBy(db: Db, key: SQL, where: SQL | undefined) {
  return db
    .select({ key: sql<string | null>`${key}`, n: sql<number>`sum(${recordCounts.n})::int` })
    .from(recordCounts)
    .where(where)
    .groupBy(key);
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

/** Words a name search weighs one by one; a longer query is matched only whole. */
const MAX_NAME_WORDS = 8;

/**
 * Public sources, departments or categories whose name matches `query` by words or, failing that,
 * by likeness: those with records first, best first among them. An institution with no records
 * (often an older spelling of one that has them) is still found, after them: «educacion» once
 * put an empty institute named after a «Dr. Eduardo» above the ministry's 8 records.
 *
 * A plain query of several words also finds the names that hold only some of them, those that
 * hold more first, and among those that hold as many, the rarer words first (`nameWordWeights`):
 * an institution is often searched with words its name lacks («Salud Dominicana» for the
 * Ministerio de Salud Pública), and «Dominicana», in a tenth of the names, must not bring them
 * before the one ministry named for health.
 */
export async function searchGroups(db: Db, entity: GroupEntity, query: string, limit: number = LIMITS.searchResults): Promise<GroupHit[]> {
  const q = searchable(clean(query));
  if (!q) return [];
  const found = await namesMatching(db, entity, q, limit);
  if (found.length > 0) return found;
  // Nothing by words or likeness: the catalogue's vocabulary corrects the typo, as the record
  // search does («hacinda» → «hacienda»: the ministry's name is too short a match by trigrams).
  const corrected = await correctQuery(db, q);
  return corrected ? namesMatching(db, entity, corrected, limit) : [];
}

/** `searchGroups` for a query as it is (cleaned). */
async function namesMatching(db: Db, entity: GroupEntity, q: string, limit: number): Promise<GroupHit[]> {
  const group = DIMENSIONS[entity];
  // Likeness is judged on the words looked for: «-salud» is no query for names like «salud».
  const liked = wantedWords(q);
  const folded = sql`archivo_unaccent(lower(${liked}))`;
  const name = sql`archivo_unaccent(lower(${group.name}))`;
  const hasRecords = sql`exists (select 1 from ${recordCounts} where ${group.countsColumn} = ${group.id} and ${recordCounts.n} > 0)`;
  const typed = plainWords(q, MAX_NAME_WORDS);
  const weights = typed && typed.length > 1 ? await nameWordWeights(db, entity, typed) : [];
  const holds = (word: string) => sql`${groupName(group)} @@ ${tsquery(word)}`;
  const matches = [sql`${groupName(group)} @@ ${tsquery(q)}`, ...(liked ? [sql`${folded} <% ${name}`] : [])];
  // Among equals, the name closest to the query as a whole: «Ministerio de Educación (MINERD)»
  // before «Ministerio de Educación Superior, Ciencia y Tecnología» for «ministerio educacion».
  const order = [desc(hasRecords), desc(sql`similarity(${folded}, ${name})`), desc(sql`ts_rank(${groupName(group)}, ${tsquery(q)}) + word_similarity(${folded}, ${name})`), group.id];
  if (weights.length > 0) {
    const wordsHeld = sql.join(weights.map(({ word }) => sql`(${holds(word)})::int`), sql` + `);
    const rarity = sql.join(weights.map(({ word, weight }) => sql`(case when ${holds(word)} then ${weight}::float8 else 0 end)`), sql` + `);
    matches.push(sql`${wordsHeld} > 0`);
    order.splice(0, 1, desc(wordsHeld), desc(hasRecords), desc(rarity));
  }
  return db
    .select({ id: group.id, name: group.name, url: group.url ?? sql<string | null>`null` })
    .from(group.table)
    .where(and(or(...matches), group.visible))
    .orderBy(...order)
    .limit(limit);
}

/**
 * Each word of `typed` that some public name of `entity` holds, weighed by how rare it is among
 * them (inverse document frequency: ln((names + 1) / (names holding it + ½))). A word without a
 * lexeme («de») or held by no name is left out: it tells no name from another.
 */
async function nameWordWeights(db: Db, entity: GroupEntity, typed: readonly string[]): Promise<Array<{ word: string; weight: number }>> {
  const group = DIMENSIONS[entity];
  const visible = group.visible ?? sql`true`;
  const found = (await db.execute(sql`
    select w.i, count(${group.id})::int as held, (select count(*) from ${group.table} where ${visible})::int as names
      from ${wordQueries(typed)}
      join ${group.table} on ${groupName(group)} @@ w.q and ${visible}
     where numnode(w.q) > 0
     group by w.i`)) as unknown as { rows: Array<{ i: number; held: number; names: number }> };
  return found.rows.map((row) => ({ word: typed[Number(row.i)]!, weight: Math.log((Number(row.names) + 1) / (Number(row.held) + 0.5)) }));
}
