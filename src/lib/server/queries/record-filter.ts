/**
 * The one filter of record lists: REST `getAll`, GraphQL's `where`, the collection pages and the
 * search's facets all narrow records with a `RecordFilter`, turned into SQL here, on the records
 * themselves or, when it only names what they are counted by, on the running counts.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { AssetStatus, AssetType } from '../../domain/constants.ts';
import type { GroupEntity } from '../../domain/groups.ts';
import { alexandrias, recordCounts, recordVersions } from '../db/schema.ts';
import { byDimension, DIMENSIONS, namesPublicRow } from './dimensions.ts';
import { isRowId } from './paging.ts';

export interface RecordFilter {
  id?: number;
  cid?: string;
  title?: string;
  walletAddress?: string;
  type?: AssetType;
  status?: AssetStatus;
  sourceId?: number;
  departmentId?: number;
  categoryId?: number;
}

/** The records of one source, department or category (a collection page). */
export interface RecordScope {
  entity: GroupEntity;
  id: number;
}

/** The filter of a scope's records. */
export function scopeFilter(scope: RecordScope): RecordFilter {
  return { [DIMENSIONS[scope.entity].filterKey]: scope.id };
}

/** `text` for a LIKE pattern, matched as written: its `%`, `_` and backslashes escaped. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** Text with case and accents aside, as names are compared. */
export function folded(value: AnyPgColumn | SQL): SQL {
  return sql`archivo_unaccent(lower(${value}))`;
}

/**
 * Text folded as `folded` does, but for «ñ»: in Spanish a letter of its own, not an «n» with an
 * accent («año» is not «ano», nor inside «ciudadanos»). It stands aside as a control character,
 * which no stored text holds (`domain/text.ts`), while the accents are folded.
 */
function foldedKeepingEnye(value: AnyPgColumn | SQL): SQL {
  return sql`replace(archivo_unaccent(replace(replace(lower(${value}), 'ñ', chr(1)), 'Ñ', chr(1))), chr(1), 'ñ')`;
}

/**
 * `column` contains `text`, ignoring case and accents but not «ñ»; `%` and `_` in the text are
 * literal. The first test is the one the columns' trigram indexes serve; the second, only when an
 * «n» or «ñ» is typed, tells the two letters apart among what it found.
 */
export function containsFolded(column: AnyPgColumn, text: string): SQL {
  const pattern = sql`${likeLiteral(text)}`;
  const folding = sql`${folded(column)} like '%' || ${folded(pattern)} || '%'`;
  if (!/[nñ]/i.test(text)) return folding;
  return sql`(${folding} and ${foldedKeepingEnye(column)} like '%' || ${foldedKeepingEnye(pattern)} || '%')`;
}

/** A condition matching nothing, for ids that cannot exist. */
const NOTHING = sql`false`;

/** `column` equals `id`; an id that cannot be a row matches nothing; no id, no condition. */
export function idEquals(column: AnyPgColumn, id: number | undefined): SQL | undefined {
  if (id === undefined) return undefined;
  return isRowId(id) ? eq(column, id) : NOTHING;
}

/**
 * The records whose file is `cid`, now or in an earlier version (issue #19): a CID cited or shared
 * before the file changed at its origin finds its record through the API, as through its page.
 * Each side by its own index.
 */
function holdsCid(cid: string): SQL {
  return sql`${alexandrias.id} in (
    select ${alexandrias.id} from ${alexandrias} where ${alexandrias.cid} = ${cid}
    union select ${recordVersions.alexandriaId} from ${recordVersions} where ${recordVersions.cid} = ${cid})`;
}

/** The records matching `filter`. */
export function recordCondition(filter: RecordFilter): SQL | undefined {
  return and(
    idEquals(alexandrias.id, filter.id),
    filter.cid !== undefined ? holdsCid(filter.cid) : undefined,
    filter.title ? containsFolded(alexandrias.title, filter.title) : undefined,
    filter.walletAddress !== undefined ? eq(alexandrias.walletAddress, filter.walletAddress.toLowerCase()) : undefined,
    filter.type !== undefined ? eq(alexandrias.type, filter.type) : undefined,
    filter.status !== undefined ? eq(alexandrias.status, filter.status) : undefined,
    ...Object.values(DIMENSIONS).map((dimension) => dimensionEquals(dimension, dimension.recordColumn, filter[dimension.filterKey])),
  );
}

/** `column` equals `id`, a public row of `dimension`'s: a withheld one matches nothing, as if it were not there. */
function dimensionEquals(dimension: (typeof DIMENSIONS)[keyof typeof DIMENSIONS], column: AnyPgColumn, id: number | undefined): SQL | undefined {
  const equals = idEquals(column, id);
  return equals && and(equals, namesPublicRow(dimension, column));
}

/** The filter fields the running counts are kept by, with their column there. */
const COUNTED_FILTER = {
  type: recordCounts.type,
  status: recordCounts.status,
  ...byDimension('filterKey', (dimension) => dimension.countsColumn),
} as const;

/** A filter on what the running counts are kept by only: format, status and the three groups. */
export type CountedFilter = Pick<RecordFilter, keyof typeof COUNTED_FILTER>;

/** The running counts' rows of the records matching `filter`. */
export function countsCondition(filter: CountedFilter): SQL | undefined {
  return and(
    filter.type !== undefined ? eq(COUNTED_FILTER.type, filter.type) : undefined,
    filter.status !== undefined ? eq(COUNTED_FILTER.status, filter.status) : undefined,
    ...Object.values(DIMENSIONS).map((dimension) => dimensionEquals(dimension, dimension.countsColumn, filter[dimension.filterKey])),
  );
}

/** Whether the running counts can answer `filter`: it names nothing else. */
export function isCounted(filter: RecordFilter): filter is CountedFilter {
  return Object.entries(filter).every(([field, value]) => value === undefined || Object.hasOwn(COUNTED_FILTER, field));
}
