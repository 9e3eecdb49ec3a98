/**
 * The three dimensions the catalogue is grouped by (source, department, category), as one table
 * of facts: where each lives, which column names it, how a record and the running counts point to
 * it, what the API and the URLs call it, and which of its rows the public sees. Every query reads
 * its facts here instead of switching on the entity, so a fourth dimension, or a renamed column,
 * is one entry to write.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, AnyPgTable } from 'drizzle-orm/pg-core';
import { GROUP_ENTITIES, type GroupEntity } from '../../domain/groups.ts';
import { alexandrias, categories, departments, recordCounts, sources } from '../db/schema.ts';
import type { RecordFilter } from './record-filter.ts';
import { publicDepartment, publicSource } from './visibility.ts';

/** What every dimension states; a column it does not have is null. */
interface Dimension {
  /** The URL segment: `/group/{segment}`, `/collection/{segment}/{id}` (and the entity's key). */
  segment: GroupEntity;
  /** What the API calls it: a record's relation, a groupBy field, a search facet. */
  field: string;
  /** The plural of the v1 REST paths: `/v1/api/{plural}/getAll`. */
  plural: string;
  table: AnyPgTable;
  id: AnyPgColumn;
  /** The column a group is known by: a name, or a category's title. */
  name: AnyPgColumn;
  /** What the API calls that column (`where: { title_contains }`, `sort: "title"`). */
  nameField: 'name' | 'title';
  description: AnyPgColumn;
  url: AnyPgColumn | null;
  acronym: AnyPgColumn | null;
  iconName: AnyPgColumn | null;
  updatedAt: AnyPgColumn;
  /** The weighted Spanish search document (schema `searchDocument`). */
  search: AnyPgColumn;
  /** A record's foreign key to it. */
  recordColumn: AnyPgColumn;
  /** The same key in the running counts (`record_counts`). */
  countsColumn: AnyPgColumn;
  /** Its key in the one record filter. */
  filterKey: keyof RecordFilter;
  /** The condition its rows meet to be public (`visibility.ts`); none: every row is. */
  visible: SQL | undefined;
}

export const DIMENSIONS = {
  src: {
    segment: 'src',
    field: 'source',
    plural: 'sources',
    table: sources,
    id: sources.id,
    name: sources.name,
    nameField: 'name',
    description: sources.description,
    url: sources.url,
    acronym: null,
    iconName: null,
    updatedAt: sources.updatedAt,
    search: sources.search,
    recordColumn: alexandrias.sourceId,
    countsColumn: recordCounts.sourceId,
    filterKey: 'sourceId',
    visible: publicSource,
  },
  dep: {
    segment: 'dep',
    field: 'department',
    plural: 'departments',
    table: departments,
    id: departments.id,
    name: departments.name,
    nameField: 'name',
    description: departments.desciption,
    url: departments.website,
    acronym: departments.acronym,
    iconName: null,
    updatedAt: departments.updatedAt,
    search: departments.search,
    recordColumn: alexandrias.departmentId,
    countsColumn: recordCounts.departmentId,
    filterKey: 'departmentId',
    visible: publicDepartment,
  },
  cat: {
    segment: 'cat',
    field: 'category',
    plural: 'categories',
    table: categories,
    id: categories.id,
    name: categories.title,
    nameField: 'title',
    description: categories.description,
    url: null,
    acronym: null,
    iconName: categories.iconName,
    updatedAt: categories.updatedAt,
    search: categories.search,
    recordColumn: alexandrias.categoryId,
    countsColumn: recordCounts.categoryId,
    filterKey: 'categoryId',
    // The archive's own vocabulary: nobody contributes a category, so every one is public.
    visible: undefined,
  },
} as const satisfies Record<GroupEntity, Dimension>;

type AnyDimension = (typeof DIMENSIONS)[GroupEntity];
/** What the API calls the dimensions: `source`, `department`, `category`. */
export type DimensionField = AnyDimension['field'];
/** Their keys in the record filter: `sourceId`, `departmentId`, `categoryId`. */
export type DimensionFilterKey = AnyDimension['filterKey'];

/**
 * `column`, a record's or the running counts' key to `dimension`, names one of its public rows: a
 * withheld source or institution reads as none in a filter and in a grouping too, as it does in a
 * record's join (`visibility.ts`). Undefined for a dimension whose rows are all public.
 */
export function namesPublicRow(dimension: AnyDimension, column: AnyPgColumn): SQL | undefined {
  return dimension.visible ? sql`${column} in (select ${dimension.id} from ${dimension.table} where ${dimension.visible})` : undefined;
}

/** The entities in the order the archive lists them (sources, departments, categories). */
export const GROUP_ENTITY_LIST = Object.keys(GROUP_ENTITIES) as GroupEntity[];

/** `pick` of every dimension, keyed by one of its facts (its API field, its filter key …). */
export function byDimension<K extends 'field' | 'filterKey' | 'plural', T>(
  key: K,
  pick: (dimension: AnyDimension, entity: GroupEntity) => T,
): Record<AnyDimension[K], T> {
  return Object.fromEntries(GROUP_ENTITY_LIST.map((entity) => [DIMENSIONS[entity][key], pick(DIMENSIONS[entity], entity)])) as Record<
    AnyDimension[K],
    T
  >;
}
