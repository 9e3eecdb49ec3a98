/**
 * What a spreadsheet may cost the archive. Uploads are untrusted: a zip bomb, a sheet that claims
 * a million rows, or a part that never ends must stop at a known bound, not at the end of memory.
 * The server reads each file in a worker thread of its own (`worker-read.ts`), which is stopped
 * at the time and memory limits below whatever it is doing.
 */

export interface SpreadsheetLimits {
  /** Largest file read at all (the compressed XLSX or ODS). */
  maxFileBytes: number;
  /**
   * Inflated bytes of all the parts read, added up: a zip bomb stops here. A sheet that reaches
   * it keeps the rows read until then (`truncated`); any other part makes the file unreadable.
   */
  maxUncompressedBytes: number;
  /** Inflated bytes of one large part (`xl/worksheets/*.xml`, `xl/sharedStrings.xml`, `content.xml`), likewise. */
  maxPartBytes: number;
  /** Inflated bytes of one small part: the workbook, its relationships, the styles. */
  maxMetadataBytes: number;
  /** Entries in the zip's central directory. */
  maxZipEntries: number;
  /** Sheets read; later ones are left out. */
  maxSheets: number;
  /**
   * Cells parsed in the whole workbook (`<c>` and `table:table-cell` elements, empty or not; a
   * repeated ODS cell counts once). Parsing is the costly part of a read: a highly compressed
   * sheet of a hundred cells a row stops here long before its inflated bytes run out. The sheet
   * being read keeps the rows read until then (`truncated`); later sheets are left out.
   */
  maxCells: number;
  /** Rows kept per sheet (the header and any rows above it included); then `truncated`. */
  maxRows: number;
  /**
   * Blank rows kept in a run between rows with content (or above the first one): longer runs are
   * shortened to this many, so that a cell a million rows below the others costs a few lines.
   */
  maxBlankRows: number;
  /**
   * The written grid of a sheet (rows × columns, the padding of short lines and blank rows
   * included) may hold this many cells whatever the sheet holds...
   */
  minGridCells: number;
  /**
   * ...and beyond that, this many per cell with content: a few scattered values can no longer
   * spread into a grid of blanks. Past it, the sheet is `truncated`.
   */
  gridCellsPerValue: number;
  /** Columns kept per sheet; cells further right are dropped and the sheet is `truncated`. */
  maxColumns: number;
  /** Characters kept per cell (Excel's own limit); longer text is cut and the sheet `truncated`. */
  maxCellChars: number;
  /** Bytes of CSV written for the whole workbook (blank rows and padding included). */
  maxCsvBytes: number;
  /**
   * ...and no more than this many per byte of the file, past `minCsvBytes`: the CSVs are stored
   * and served like any file, and a 188 KB workbook of long distinct strings, each cited by one
   * cell, was written out as 100 MB of CSV. Real workbooks' CSVs are a few times their file.
   */
  csvBytesPerFileByte: number;
  /** CSV bytes a workbook may always be given, however small its file. */
  minCsvBytes: number;
  /**
   * Wall-clock time for reading one file, in milliseconds, storing its CSVs included. Extractions
   * run one at a time, so this also bounds the CPU time one file takes. In a worker, the reader
   * is stopped (terminated) when it runs out, even in the middle of a step.
   */
  timeoutMs: number;
  /** V8 heap (old generation) of the worker that reads one file, in MiB; past it the worker is stopped. */
  workerHeapMb: number;
}

export const DEFAULT_LIMITS: SpreadsheetLimits = {
  maxFileBytes: 200_000_000,
  maxUncompressedBytes: 200_000_000,
  maxPartBytes: 150_000_000,
  maxMetadataBytes: 20_000_000,
  maxZipEntries: 10_000,
  maxSheets: 100,
  maxCells: 5_000_000,
  maxRows: 1_000_000,
  maxBlankRows: 3,
  minGridCells: 20_000,
  gridCellsPerValue: 50,
  maxColumns: 1_000,
  maxCellChars: 32_767,
  maxCsvBytes: 100_000_000,
  csvBytesPerFileByte: 20,
  minCsvBytes: 2_000_000,
  timeoutMs: 30_000,
  workerHeapMb: 384,
};

/** The CSV bytes a workbook of `fileBytes` may be written out as (`maxCsvBytes`, `csvBytesPerFileByte`, `minCsvBytes`). */
export function csvBytesFor(limits: SpreadsheetLimits, fileBytes: number): number {
  return Math.min(limits.maxCsvBytes, Math.max(limits.minCsvBytes, fileBytes * limits.csvBytesPerFileByte));
}

/** A file that is not a readable XLSX or ODS, or that went past a limit. */
export class SpreadsheetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpreadsheetError';
  }
}

/**
 * The running costs of reading one file: bytes inflated and cells parsed so far, and the deadline. Long loops call
 * `pace()`, which also hands the event loop back now and then, so a large sheet read in the
 * background never stalls the requests the server is answering.
 */
export class Budget {
  readonly limits: SpreadsheetLimits;
  private inflated = 0;
  private cells = 0;
  private readonly deadline: number;
  private lastYield = performance.now();

  constructor(limits: SpreadsheetLimits) {
    this.limits = limits;
    this.deadline = performance.now() + limits.timeoutMs;
  }

  /** Inflated bytes still allowed. */
  remaining(): number {
    return Math.max(0, this.limits.maxUncompressedBytes - this.inflated);
  }

  /** Counts `bytes` more inflated bytes; throws past the total limit. */
  inflate(bytes: number): void {
    this.inflated += bytes;
    if (this.inflated > this.limits.maxUncompressedBytes) {
      throw new SpreadsheetError(`más de ${this.limits.maxUncompressedBytes} bytes descomprimidos`);
    }
  }

  /** Counts one more cell parsed; false once the workbook is past its limit of cells. */
  countCell(): boolean {
    this.cells += 1;
    return this.cells <= this.limits.maxCells;
  }

  /** No more cells may be parsed: readers stop reading sheets. */
  get cellsExhausted(): boolean {
    return this.cells > this.limits.maxCells;
  }

  /** Throws once the deadline has passed; yields to the event loop every 20 ms of work. */
  async pace(): Promise<void> {
    const now = performance.now();
    if (now > this.deadline) throw new SpreadsheetError(`lectura interrumpida tras ${this.limits.timeoutMs} ms`);
    if (now - this.lastYield > 20) {
      await new Promise((resolve) => setImmediate(resolve));
      this.lastYield = performance.now();
    }
  }
}
