/**
 * Where readers hand finished sheets: it sizes each new sheet to the CSV bytes the workbook has
 * left, and passes finished sheets on one at a time, so only the sheet being read and the one
 * being stored are held in memory.
 */
import type { SpreadsheetLimits } from './limits.ts';
import { stripControls } from '../../domain/text.ts';
import { SheetTable, type SheetCsv } from './sheet-table.ts';

export interface ExtractedSheet {
  /** Position of the sheet in the workbook, from 0 (empty sheets are skipped, not renumbered). */
  index: number;
  name: string;
  csv: SheetCsv;
}

export type SheetHandler = (sheet: ExtractedSheet) => Promise<void>;

export class SheetSink {
  readonly limits: SpreadsheetLimits;
  private readonly onSheet: SheetHandler;
  private readonly queue: ExtractedSheet[] = [];
  private csvBytes = 0;
  /** The CSV bytes the whole workbook may be written out as (`csvBytesFor` its file). */
  private readonly maxCsvBytes: number;

  constructor(limits: SpreadsheetLimits, maxCsvBytes: number, onSheet: SheetHandler) {
    this.limits = limits;
    this.maxCsvBytes = maxCsvBytes;
    this.onSheet = onSheet;
  }

  /** A table for the next sheet, allowed what is left of the workbook's CSV bytes. */
  table(): SheetTable {
    return new SheetTable(this.limits, Math.max(0, this.maxCsvBytes - this.csvBytes));
  }

  /** A finished sheet; one without rows is left out. Call `flush` to pass it on. */
  end(index: number, name: string, table: SheetTable): void {
    const csv = table.finish();
    if (csv.rows === 0) return;
    this.csvBytes += csv.bytes;
    // Bidi overrides and invisible characters in a name could disguise it wherever it is shown (issue #16).
    this.queue.push({ index, name: stripControls(name, { singleLine: true }).trim() || `Hoja ${index + 1}`, csv });
  }

  async flush(): Promise<void> {
    for (let sheet = this.queue.shift(); sheet; sheet = this.queue.shift()) await this.onSheet(sheet);
  }
}
