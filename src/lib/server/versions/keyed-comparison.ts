/**
 * The comparison of tables too large for daff, a row at a time, in bounded memory: each row of the
 * older version is kept only as a hash of its values in the columns both versions share, with the
 * value of its first shared column (its key). A row of the newer version whose hash is among the
 * older one's is unchanged; the rows left on either side are paired by key: a key left on both
 * sides is a changed row, the rest are rows added or removed. Row order is not looked at, so a
 * table sorted differently shows no change.
 *
 * Loaded by Node itself in the comparison's worker thread too: erasable TypeScript only.
 */
import { createHash } from 'node:crypto';
import { columnChanges, columnNames, SAMPLE_COLUMNS, SAMPLE_ROWS, type TableChanges } from './table-rows.ts';

/** The note the page shows for a comparison made this way. */
export const KEYED_NOTE =
  'Tabla grande: las filas se compararon por su contenido, y una fila cambiada se reconoce por el valor de su primera columna; la muestra enseña las filas nuevas y cambiadas.';

/** Past this many rows in one version, the comparison stops (its memory grows with the older version's rows). */
export const MAX_KEYED_ROWS = 2_000_000;

export class TooManyRowsError extends Error {}

interface Remaining {
  count: number;
  key: string;
}

const increment = (counts: Map<string, number>, key: string, by = 1) => counts.set(key, (counts.get(key) ?? 0) + by);

export class KeyedComparison {
  readonly #beforeNames: string[];
  readonly #afterNames: string[];
  /** Where each shared column sits in the older and the newer version. */
  readonly #beforeColumns: number[];
  readonly #afterColumns: number[];
  /** The older version's rows not matched yet, by hash. */
  readonly #before = new Map<string, Remaining>();
  #beforeRows = 0;
  #afterRows = 0;
  /** The newer version's unmatched rows, by key. */
  readonly #addedByKey = new Map<string, number>();
  /** The first unmatched rows of the newer version (their keys decide their action at the end). */
  readonly #sample: Array<{ key: string; cells: string[] }> = [];

  /** Both headers first: rows are hashed over the columns they share. */
  constructor(beforeHeader: readonly string[], afterHeader: readonly string[]) {
    this.#beforeNames = columnNames(beforeHeader);
    this.#afterNames = columnNames(afterHeader);
    // Indexed by name: a header of many thousand columns must not cost their square.
    const beforeIndex = new Map<string, number>();
    this.#beforeNames.forEach((name, index) => beforeIndex.has(name) || beforeIndex.set(name, index));
    const afterIndex = new Map<string, number>();
    this.#afterNames.forEach((name, index) => afterIndex.has(name) || afterIndex.set(name, index));
    const shared = [...afterIndex.keys()].filter((name) => beforeIndex.has(name));
    this.#beforeColumns = shared.map((name) => beforeIndex.get(name)!);
    this.#afterColumns = shared.map((name) => afterIndex.get(name)!);
  }

  /** A row of the older version (after its header); all of them before the newer version's. */
  addBefore(fields: string[]): void {
    if (++this.#beforeRows > MAX_KEYED_ROWS) throw new TooManyRowsError(`más de ${MAX_KEYED_ROWS} filas`);
    const hash = this.#hash(fields, this.#beforeColumns);
    const remaining = this.#before.get(hash);
    if (remaining) remaining.count += 1;
    else this.#before.set(hash, { count: 1, key: fields[this.#beforeColumns[0] ?? 0] ?? '' });
  }

  /** A row of the newer version (after its header). */
  addAfter(fields: string[]): void {
    if (++this.#afterRows > MAX_KEYED_ROWS) throw new TooManyRowsError(`más de ${MAX_KEYED_ROWS} filas`);
    const hash = this.#hash(fields, this.#afterColumns);
    const remaining = this.#before.get(hash);
    if (remaining) {
      remaining.count -= 1;
      if (remaining.count === 0) this.#before.delete(hash);
      return;
    }
    const key = fields[this.#afterColumns[0] ?? 0] ?? '';
    increment(this.#addedByKey, key);
    if (this.#sample.length < SAMPLE_ROWS) this.#sample.push({ key, cells: this.#afterNames.slice(0, SAMPLE_COLUMNS).map((_, column) => fields[column] ?? '') });
  }

  finish(): TableChanges {
    const removedByKey = new Map<string, number>();
    for (const { count, key } of this.#before.values()) increment(removedByKey, key, count);
    let changed = 0;
    const changedKeys = new Set<string>();
    for (const [key, added] of this.#addedByKey) {
      const pairs = Math.min(added, removedByKey.get(key) ?? 0);
      if (pairs > 0) changedKeys.add(key);
      changed += pairs;
    }
    const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, n) => sum + n, 0);
    const columns = columnChanges(this.#beforeNames, this.#afterNames);
    const header = ['@@', ...this.#afterNames.slice(0, SAMPLE_COLUMNS)];
    const sample = this.#sample.map(({ key, cells }) => [changedKeys.has(key) ? '->' : '+++', ...cells]);
    return {
      columnsAdded: columns.added,
      columnsRemoved: columns.removed,
      rowsAdded: total(this.#addedByKey) - changed,
      rowsRemoved: total(removedByKey) - changed,
      rowsChanged: changed,
      sample: sample.length > 0 ? [header, ...sample] : [],
      note: KEYED_NOTE,
    };
  }

  #hash(fields: string[], columns: number[]): string {
    const hash = createHash('sha256');
    for (const column of columns) hash.update(`${fields[column] ?? ''}\u0000`);
    return hash.digest('base64').slice(0, 24);
  }
}
