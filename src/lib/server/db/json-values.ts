/**
 * Many values as one bound parameter. A statement that writes or reads a group of rows (a group of
 * captures writes a hundred at once) sends them as one JSON document that the database unpacks
 * (`jsonb_to_recordset`, `jsonb_array_elements_text`), rather than as a bound value per cell:
 * drizzle builds a statement in time and memory that grow faster than its count of values, and
 * that building, not the database, was most of what a capture's process spent on its statements
 * (issue #18, "Fast"). The same text then serves every size of group, too.
 */
import { sql, type SQL } from 'drizzle-orm';

/** A column type `jsonb_array_elements_text` values are cast to. */
type ListType = 'int' | 'text';

/**
 * `(select value::type from …)`: the values of `values` as a one-column subquery, to select from
 * (`from ${jsonList(cids, 'text')} as files(cid)`). An empty list selects nothing. To filter a
 * table by the values, `anyOf` keeps its index in use.
 */
export function jsonList(values: readonly (number | string)[], type: ListType): SQL {
  return sql`(select value::${sql.raw(type)} from jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/**
 * `any(array(select …))`: for `${column} = ${anyOf(ids, 'int')}`, true when the column holds one of
 * `values` (none for an empty list). The array is computed once, before the table is read, so the
 * condition goes to the column's index as a list of bound values would; `column in (subquery)`
 * left the planner free to read the whole table and join.
 */
export function anyOf(values: readonly (number | string)[], type: ListType): SQL {
  return sql`any(array${jsonList(values, type)})`;
}

/**
 * `jsonb_to_recordset(…) as alias(columns)`: `rows` as a table in a `from`, each object's keys the
 * column names of `columns` (an SQL column definition list the caller writes out, e.g.
 * `v(id int, cid text)`; keys missing from an object are null). `columns` goes into the statement
 * as it is: always a constant of the code, never anything that came from outside.
 */
export function jsonRecords(rows: readonly object[], columns: string): SQL {
  return sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as ${sql.raw(columns)}`;
}
