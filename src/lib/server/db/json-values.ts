/**
 * Many values as one bound parameter. A statement that writes or reads a group of rows (a group of
 * captures writes a hundred at once) sends them as one JSON document that the database unpacks
 * (`jsonb_to_recordset`, `jsonb_array_elements_text`), rather than as a bound value per cell:
 * drizzle builds a statement in time and memory that grow faster than its count of values, and
 * that building, not the database, was most of what a capture's process spent on its statements
 * (issue #18, "Fast"). The same text then serves every size of group, too.
 */
import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

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

/**
 * `insert into table (columns) select … from jsonb_to_recordset(…)`: many rows of `table` inserted
 * from one bound JSON document. Rows are written as drizzle's `values()` takes them (the table's
 * property names), with plain values that JSON carries as the column wants them: no SQL
 * expressions, no `bigint` values, no custom types (their conversion to the driver's form is
 * drizzle's, bypassed here). Every row has the same keys, which name the columns; the others get
 * their defaults. `returning` names the properties whose columns the statement answers, as the
 * database names them (`alexandria_id`), in the order of `rows`. Drizzle's own multi-row
 * `values()` writes a bound value or a `default` for every column of every row, which for a table
 * of forty columns was most of a harvest's time (issue #18, "Fast").
 */
export function insertRows<T extends PgTable>(table: T, rows: readonly Partial<T['$inferInsert']>[], returning: readonly (keyof T['$inferSelect'] & string)[] = []): SQL {
  if (rows.length === 0) throw new RangeError(`No hay filas que insertar en ${getTableName(table)}.`);
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const keys = Object.keys(rows[0]!);
  const unknown = keys.find((key) => !columns[key]);
  if (unknown) throw new TypeError(`La tabla ${getTableName(table)} no tiene la columna «${unknown}».`);
  const odd = rows.find((row) => Object.keys(row).length !== keys.length || keys.some((key) => !(key in row)));
  if (odd) throw new TypeError(`Las filas para ${getTableName(table)} no tienen todas las mismas columnas (${keys.join(', ')}).`);
  const names = keys.map((key) => columns[key]!.name);
  const objects = rows.map((row) => Object.fromEntries(keys.map((key, index) => [names[index], (row as Record<string, unknown>)[key] ?? null])));
  let json = JSON.stringify(objects);
  // A lone surrogate (a text cut inside an emoji) is JSON that jsonb refuses; a bound text value
  // would have gone in with U+FFFD in its place, and so does it here. JSON.stringify escapes every
  // lone surrogate, so a document without escapes has none.
  if (json.includes('\\u')) json = JSON.stringify(objects, (_key, value: unknown) => (typeof value === 'string' ? value.toWellFormed() : value));
  const quoted = sql.join(
    names.map((name) => sql.identifier(name)),
    sql`, `,
  );
  const definitions = sql.join(
    keys.map((key, index) => sql`${sql.identifier(names[index]!)} ${sql.raw(columns[key]!.getSQLType())}`),
    sql`, `,
  );
  const answer = returning.length > 0 ? sql` returning ${sql.join(returning.map((key) => sql.identifier(columns[key]!.name)), sql`, `)}` : sql``;
  // In the order given, said rather than left to how the function happens to yield its rows.
  return sql`insert into ${table} (${quoted})
    select ${quoted} from rows from (jsonb_to_recordset(${json}::jsonb) as (${definitions})) with ordinality as r(${quoted}, _position)
    order by _position${answer}`;
}
