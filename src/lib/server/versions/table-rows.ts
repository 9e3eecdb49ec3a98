/**
 * A version's table as rows of text, read the way the rest of the archive reads a CSV (the record
 * page's search panel): the encoding decided by `StreamDecoder` (UTF-8, Windows-1252 or code page
 * 850), the delimiter and line ending guessed by `sniffDialect`, the rows cut by `CsvParser`, blank
 * rows left out. Spreadsheets arrive here as their first sheet's CSV, made by the spreadsheet
 * reader, so they go the same way.
 *
 * Loaded by Node itself in the comparison's worker thread (`table-diff-worker.ts`): only `.ts`
 * imports and erasable TypeScript here.
 */
import { CsvParser, isBlankRow, sniffDialect } from '../../tabular/csv.ts';
import { StreamDecoder } from '../../tabular/decode.ts';

/** Reads rows off a stream of CSV bytes, a chunk at a time; `end` once the bytes are all in. */
export class CsvRowReader {
  readonly #decoder = new StreamDecoder();
  #parser: CsvParser | null = null;
  readonly #onRow: (fields: string[]) => void;

  constructor(onRow: (fields: string[]) => void) {
    this.#onRow = (fields) => {
      if (!isBlankRow(fields)) onRow(fields);
    };
  }

  push(bytes: Uint8Array): void {
    this.#feed(this.#decoder.push(bytes));
  }

  end(): void {
    this.#feed(this.#decoder.end());
    this.#parser?.end(this.#onRow);
  }

  #feed(text: string): void {
    if (!text) return;
    this.#parser ??= new CsvParser(sniffDialect(text));
    this.#parser.push(text, this.#onRow);
  }
}

/** Every non-blank row of a CSV, its header first. */
export function csvRows(bytes: Uint8Array): string[][] {
  const rows: string[][] = [];
  const reader = new CsvRowReader((fields) => rows.push(fields));
  reader.push(bytes);
  reader.end();
  return rows;
}

/**
 * The column names of a header row: trimmed (a trailing space is a typing accident, not a new
 * column), a blank one named by its position, a repeated one numbered, so that names identify
 * columns when two versions are compared.
 */
export function columnNames(header: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return header.map((raw, index) => {
    const base = raw.trim() || `Columna ${index + 1}`;
    const times = (seen.get(base) ?? 0) + 1;
    seen.set(base, times);
    return times === 1 ? base : `${base} (${times})`;
  });
}

/**
 * A comparison's sample (`TableChanges.sample`) without the columns no header names (`Columna N`,
 * as `columnNames` calls them) and no row of it fills: a trailing `;` on every line makes one (the
 * Hacienda CSVs), and the record page's CSV panel leaves it out too (`tabular/table.ts`). The first
 * column, the rows' actions, always stays.
 */
export function withoutEmptyUnnamedColumns(sample: readonly string[][]): string[][] {
  const [header = []] = sample;
  const fills = (index: number) => sample.slice(1).some((row) => (row[index] ?? '').trim() !== '');
  const kept = header.map((name, index) => index === 0 || !/^Columna \d+$/.test(name.trim()) || fills(index));
  return sample.map((row) => row.filter((_, index) => kept[index] !== false));
}

/** Columns of `after` not in `before`, and of `before` not in `after`, by name, in their table's order. */
export function columnChanges(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  const beforeNames = new Set(before);
  const afterNames = new Set(after);
  return { added: after.filter((name) => !beforeNames.has(name)), removed: before.filter((name) => !afterNames.has(name)) };
}

/** How many changed rows a comparison keeps as its sample. */
export const SAMPLE_ROWS = 10;

/** How many columns the sample shows at most (besides the action): enough to recognise a row on a phone. */
export const SAMPLE_COLUMNS = 8;

/** What the comparison of two tables found (`VersionDiff`'s table fields). */
export interface TableChanges {
  columnsAdded: string[];
  columnsRemoved: string[];
  rowsAdded: number;
  rowsRemoved: number;
  rowsChanged: number;
  /**
   * Up to `SAMPLE_ROWS` changed rows in daff's highlighter format: a header row starting with
   * `@@`, then rows starting with their action (`+++` added, `---` removed, `->` changed, whose
   * changed cells read `before->after`; the arrow is longer when the data holds one).
   */
  sample: string[][];
  /** How the comparison was made when it was not the full table diff, in Spanish. */
  note?: string;
}
