/**
 * One sheet's rows on their way to a CSV (RFC 4180: comma, CRLF, fields quoted when they hold a
 * comma, a quote or a line break, every line with the same number of fields).
 *
 * Readers hand rows over as they parse them. Blank rows are only counted until a row with
 * content follows, so a sheet that ends with a million formatted but empty rows (as LibreOffice
 * writes them) costs nothing; a run of blank rows between rows of content, or above the first,
 * is kept only up to `maxBlankRows` lines. Empty cells at the right of the last filled column are
 * dropped. Blank padding is not data: the grid written (rows × columns) is bounded by the cells
 * with content (`minGridCells`, `gridCellsPerValue`), so two cells at `ALL1` and `A1000000` make
 * a few lines, not a million lines of commas.
 */
import type { SpreadsheetLimits } from './limits.ts';
import { csvField } from '../../tabular/csv-field.ts';

/** The cells of one row, by column, built as a reader walks the row. */
export class RowCells {
  readonly cells: string[] = [];
  /** The column the next cell goes to when the file does not say. */
  next = 0;
  /** A cell lay beyond the column limit, or was longer than the cell limit. */
  cut = false;
  /** Cells with content. */
  filled = 0;
  private readonly maxColumns: number;
  private readonly maxCellChars: number;

  constructor(limits: Pick<SpreadsheetLimits, 'maxColumns' | 'maxCellChars'>) {
    this.maxColumns = limits.maxColumns;
    this.maxCellChars = limits.maxCellChars;
  }

  /** Puts `value` in `count` cells from `column` (default: the next one). Empty cells cost nothing. */
  put(value: string, column = this.next, count = 1): void {
    const from = Math.max(column, this.next);
    this.next = from + count;
    if (value === '') return;
    let text = value;
    if (text.length > this.maxCellChars) {
      text = text.slice(0, this.maxCellChars);
      this.cut = true;
    }
    const to = Math.min(from + count, this.maxColumns);
    if (to < from + count) this.cut = true;
    if (from >= to) return;
    while (this.cells.length < from) this.cells.push('');
    for (let index = from; index < to; index += 1) {
      if (!this.cells[index]) this.filled += 1;
      this.cells[index] = text;
    }
  }

  get empty(): boolean {
    return this.cells.length === 0;
  }
}

export interface SheetCsv {
  /** CSV lines; `rows` of them. */
  rows: number;
  columns: number;
  truncated: boolean;
  /** UTF-8 bytes of the CSV. */
  bytes: number;
  /** The CSV as UTF-8, in chunks of about 1 MiB. */
  chunks(): Generator<Uint8Array>;
}


export class SheetTable {
  private readonly lines: string[] = [];
  /** Fields in each line before padding (0 for a blank line). */
  private readonly widths: number[] = [];
  private pendingBlank = 0;
  private textBytes = 0;
  private widthSum = 0;
  private columns = 0;
  /** Cells with content written. */
  private filled = 0;
  private readonly limits: Pick<SpreadsheetLimits, 'maxRows' | 'maxBlankRows' | 'minGridCells' | 'gridCellsPerValue'>;
  private readonly maxBytes: number;
  /**
   * Rows were left out: a limit of rows, columns, cell length, bytes or grid was reached, or a
   * budget of the workbook ran out (`stop`).
   */
  truncated = false;
  /** No more rows fit: readers may stop reading the sheet. */
  full = false;

  constructor(limits: Pick<SpreadsheetLimits, 'maxRows' | 'maxBlankRows' | 'minGridCells' | 'gridCellsPerValue'>, maxBytes: number) {
    this.limits = limits;
    this.maxBytes = maxBytes;
  }

  /** Takes no more rows: a budget of the workbook ran out while this sheet was being read. */
  stop(): void {
    this.full = true;
    this.truncated = true;
    this.pendingBlank = 0;
  }

  /** Counts `count` blank rows; they are written only if a row with content comes after them. */
  addBlankRows(count: number): void {
    if (!this.full) this.pendingBlank += count;
  }

  /** Adds a row (`count` times, for a repeated row); a row without content counts as blank. */
  addRow(row: RowCells, count = 1): void {
    if (row.cut) this.truncated = true;
    if (row.empty) return this.addBlankRows(count);
    const line = row.cells.map(csvField).join(',');
    for (let i = 0; i < count && !this.full; i += 1) {
      // A long run of blank rows is shortened: it separates content, it is not content.
      let blank = Math.min(this.pendingBlank, this.limits.maxBlankRows);
      this.pendingBlank = 0;
      for (; blank > 0 && !this.full; blank -= 1) this.push('', 0, 0);
      if (!this.full) this.push(line, row.cells.length, row.filled);
    }
  }

  /** UTF-8 size of the CSV if every line were padded to `columns` fields. */
  private sizeWith(columns: number, rows: number, textBytes: number, widthSum: number): number {
    // Each line: its text, CRLF, and one comma per missing field (a blank line is one empty field).
    return textBytes + 2 * rows + Math.max(0, rows * Math.max(columns, 1) - widthSum);
  }

  /** Grid cells (rows × columns) a sheet with `filled` cells of content may write. */
  private gridAllowed(filled: number): number {
    return Math.max(this.limits.minGridCells, this.limits.gridCellsPerValue * filled);
  }

  private push(line: string, width: number, filled: number): void {
    const rows = this.lines.length + 1;
    const columns = Math.max(this.columns, width);
    const textBytes = this.textBytes + Buffer.byteLength(line);
    const widthSum = this.widthSum + Math.max(width, 1);
    const cells = this.filled + filled;
    if (
      rows > this.limits.maxRows ||
      rows * Math.max(columns, 1) > this.gridAllowed(cells) ||
      this.sizeWith(columns, rows, textBytes, widthSum) > this.maxBytes
    ) {
      this.stop();
      return;
    }
    this.lines.push(line);
    this.widths.push(width);
    this.columns = columns;
    this.textBytes = textBytes;
    this.widthSum = widthSum;
    this.filled = cells;
  }

  get rowCount(): number {
    return this.lines.length;
  }

  /** The finished CSV; blank rows still pending at the end are dropped. */
  finish(): SheetCsv {
    const { lines, widths, columns } = this;
    return {
      rows: lines.length,
      columns,
      truncated: this.truncated,
      bytes: lines.length ? this.sizeWith(columns, lines.length, this.textBytes, this.widthSum) : 0,
      *chunks() {
        let batch = '';
        for (let i = 0; i < lines.length; i += 1) {
          batch += `${lines[i]}${','.repeat(Math.max(0, columns - Math.max(widths[i] ?? 0, 1)))}\r\n`;
          if (batch.length >= 1 << 20) {
            yield Buffer.from(batch, 'utf8');
            batch = '';
          }
        }
        if (batch) yield Buffer.from(batch, 'utf8');
      },
    };
  }
}
