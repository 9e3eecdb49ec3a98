/**
 * Rows of fields as a table: junk rows before the header skipped, blank rows dropped, cells
 * trimmed and cut to the header's width, unnamed columns shown only once they hold a value (a
 * trailing `;` makes an empty one). Works row by row, so a large file's first rows can be shown
 * while the rest is still arriving.
 */
import { CsvParser, isBlankRow, sniffDialect } from './csv.ts';

export interface Table {
  columns: string[];
  rows: string[][];
}

/** How many opening rows the header is looked for in. */
const HEADER_WINDOW = 20;

/** The header is the first of the opening rows that is about as full as the fullest one. */
function headerIndex(rows: string[][]): number {
  const filled = rows.map((row) => row.filter((cell) => cell.trim() !== '').length);
  const widest = Math.max(0, ...filled);
  const index = filled.findIndex((count) => count >= Math.max(1, Math.ceil(widest * 0.8)));
  return Math.max(0, index);
}

export class TableBuilder {
  /** Header names, trimmed; `Columna N` for an unnamed one. Null until the header is known. */
  columns: string[] | null = null;
  /** Body rows handed to `onRow` so far. */
  rowCount = 0;
  #named: boolean[] = [];
  #hasValue: boolean[] = [];
  #opening: string[][] = [];
  readonly #onRow: (cells: string[]) => void;

  /** `onRow` receives each body row: trimmed cells, as many as the header has. */
  constructor(onRow: (cells: string[]) => void) {
    this.#onRow = onRow;
  }

  add(fields: string[]): void {
    if (isBlankRow(fields)) return;
    if (this.columns) {
      this.#body(fields);
      return;
    }
    this.#opening.push(fields);
    if (this.#opening.length >= HEADER_WINDOW) this.#decide();
  }

  /** The end of the file; answers whether it was a table (a header and at least one row). */
  finish(): boolean {
    if (!this.columns && this.#opening.length >= 2) this.#decide();
    return this.rowCount > 0;
  }

  /** The columns to show, by index: named ones, and unnamed ones that hold a value. */
  visible(): number[] {
    const shown: number[] = [];
    for (let index = 0; index < this.#named.length; index += 1) if (this.#named[index] || this.#hasValue[index]) shown.push(index);
    return shown;
  }

  #decide(): void {
    const opening = this.#opening;
    this.#opening = [];
    const start = headerIndex(opening);
    const header = (opening[start] ?? []).map((name) => name.trim());
    this.#named = header.map((name) => name !== '');
    this.#hasValue = header.map(() => false);
    this.columns = header.map((name, index) => name || `Columna ${index + 1}`);
    for (const fields of opening.slice(start + 1)) this.#body(fields);
  }

  #body(fields: string[]): void {
    const width = this.#named.length;
    const cells = new Array<string>(width);
    for (let index = 0; index < width; index += 1) {
      const cell = (fields[index] ?? '').trim();
      cells[index] = cell;
      if (cell !== '' && !this.#hasValue[index]) this.#hasValue[index] = true;
    }
    this.rowCount += 1;
    this.#onRow(cells);
  }
}

/** A whole CSV text as a table, or null when it has no rows. */
export function parseTable(text: string): Table | null {
  const rows: string[][] = [];
  const builder = new TableBuilder((cells) => rows.push(cells));
  const parser = new CsvParser(sniffDialect(text.slice(0, 64 * 1024)));
  const add = (fields: string[]) => builder.add(fields);
  parser.push(text, add);
  parser.end(add);
  if (!builder.finish() || !builder.columns) return null;
  const shown = builder.visible();
  const columns = builder.columns;
  return { columns: shown.map((index) => columns[index]!), rows: rows.map((row) => shown.map((index) => row[index]!)) };
}
