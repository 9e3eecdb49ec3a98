/**
 * The table of the three group dimensions (`queries/dimensions.ts`) is what every query reads
 * instead of switching on the entity: a wrong column there would list, count or search the wrong
 * table everywhere at once, so its facts are checked against the schema and the paths here.
 */
import { getTableColumns, is, SQL } from 'drizzle-orm';
import { PgDialect, getTableConfig, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { GROUP_ENTITIES, type GroupEntity } from '../../src/lib/domain/groups.ts';
import { collectionPath, groupPath } from '../../src/lib/paths.ts';
import { alexandrias, recordCounts } from '../../src/lib/server/db/schema.ts';
import { RECORD_GROUP_FIELDS } from '../../src/lib/server/queries/connections.ts';
import { byDimension, DIMENSIONS, GROUP_ENTITY_LIST } from '../../src/lib/server/queries/dimensions.ts';
import { countsCondition, recordCondition } from '../../src/lib/server/queries/record-filter.ts';

const entities = Object.keys(GROUP_ENTITIES) as GroupEntity[];
const dialect = new PgDialect();
const render = (condition: SQL | undefined) => (condition ? dialect.sqlToQuery(condition).sql : '');
const columnsOf = (table: Parameters<typeof getTableColumns>[0]) => Object.values(getTableColumns(table)) as AnyPgColumn[];

describe('the group dimensions', () => {
  it('has one entry for every group entity, in the order the archive lists them', () => {
    expect(Object.keys(DIMENSIONS)).toEqual(entities);
    expect(GROUP_ENTITY_LIST).toEqual(entities);
  });

  it.each(entities)('%s: its URL segment is its key, as the paths spell it', (entity) => {
    const { segment } = DIMENSIONS[entity];
    expect(segment).toBe(entity);
    expect(groupPath(entity)).toBe(`/group/${segment}`);
    expect(collectionPath(entity, 7)).toBe(`/collection/${segment}/7`);
  });

  it.each(entities)('%s: its own columns belong to its table', (entity) => {
    const dimension = DIMENSIONS[entity];
    const own = columnsOf(dimension.table);
    for (const key of ['id', 'name', 'description', 'url', 'acronym', 'iconName', 'updatedAt', 'search'] as const) {
      const column = dimension[key];
      if (column === null) continue;
      expect(own, `${entity}.${key}`).toContain(column);
    }
    expect(dimension.name.name).toBe(dimension.nameField);
  });

  it.each(entities)('%s: a record points to it through its foreign key, and the running counts through the same column', (entity) => {
    const dimension = DIMENSIONS[entity];
    expect(columnsOf(alexandrias)).toContain(dimension.recordColumn);
    const references = getTableConfig(alexandrias).foreignKeys.map((key) => key.reference());
    const reference = references.find((candidate) => candidate.columns.includes(dimension.recordColumn as never));
    expect(reference?.foreignColumns).toEqual([dimension.id]);
    expect(columnsOf(recordCounts)).toContain(dimension.countsColumn);
    expect(dimension.countsColumn.name).toBe(dimension.recordColumn.name);
  });

  it.each(entities)('%s: its filter key narrows records and running counts by its column', (entity) => {
    const dimension = DIMENSIONS[entity];
    const filter = { [dimension.filterKey]: 5 };
    const table = getTableConfig(dimension.table).name;
    // A source or institution under review reads as none: a filter by it matches nothing public;
    // so does a source made for a catalogue that has brought no record yet.
    const reviewed = `"${table}"."review_status" = $2`;
    const visible = table === 'sources' ? `(${reviewed} and "sources"."awaiting_harvest" = $3)` : reviewed;
    const publicOnly = (column: string) => (dimension.visible ? ` and ${column} in (select "${table}"."id" from "${table}" where ${visible})` : '');
    const byRecord = `"alexandrias"."${dimension.recordColumn.name}"`;
    const byCounts = `"record_counts"."${dimension.countsColumn.name}"`;
    expect(render(recordCondition(filter))).toBe(dimension.visible ? `(${byRecord} = $1${publicOnly(byRecord)})` : `${byRecord} = $1`);
    expect(render(countsCondition(filter))).toBe(dimension.visible ? `(${byCounts} = $1${publicOnly(byCounts)})` : `${byCounts} = $1`);
  });

  it.each(entities)('%s: rows contributors can create have a public condition on their own review status', (entity) => {
    const dimension = DIMENSIONS[entity];
    const reviewed = Object.hasOwn(getTableColumns(dimension.table), 'reviewStatus');
    if (!reviewed) {
      expect(dimension.visible).toBeUndefined();
      return;
    }
    expect(is(dimension.visible, SQL)).toBe(true);
    expect(render(dimension.visible)).toContain(`"${getTableConfig(dimension.table).name}"."review_status"`);
  });

  it('names each dimension once in the API and the v1 paths', () => {
    const fields = entities.map((entity) => DIMENSIONS[entity].field);
    expect(new Set(fields).size).toBe(entities.length);
    for (const field of fields) expect(RECORD_GROUP_FIELDS).toContain(field);
    expect(byDimension('plural', (_dimension, entity) => entity)).toEqual({ sources: 'src', departments: 'dep', categories: 'cat' });
  });
});
