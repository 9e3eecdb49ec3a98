/**
 * What a spreadsheet may cost the archive. Uploads are untrusted: a zip bomb, a sheet that claims
 * a million rows, or a part that never ends must stop at a known bound, not at the end of memory.
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
  /** Rows kept per sheet (the header and any rows above it included); then `truncated`. */
  maxRows: number;
  /** Columns kept per sheet; cells further right are dropped and the sheet is `truncated`. */
  maxColumns: number;
  /** Characters kept per cell (Excel's own limit); longer text is cut and the sheet `truncated`. */
  maxCellChars: number;
  /** Bytes of CSV written for the whole workbook (blank rows and padding included). */
  maxCsvBytes: number;
  /** Wall-clock time for reading one file, in milliseconds. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: SpreadsheetLimits = {
  maxFileBytes: 200_000_000,
  maxUncompressedBytes: 200_000_000,
  maxPartBytes: 150_000_000,
  maxMetadataBytes: 20_000_000,
  maxZipEntries: 10_000,
  maxSheets: 100,
  maxRows: 1_000_000,
  maxColumns: 1_000,
  maxCellChars: 32_767,
  maxCsvBytes: 200_000_000,
  timeoutMs: 120_000,
};

/** A file that is not a readable XLSX or ODS, or that went past a limit. */
export class SpreadsheetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpreadsheetError';
  }
}

/**
 * The running costs of reading one file: bytes inflated so far and the deadline. Long loops call
 * `pace()`, which also hands the event loop back now and then, so a large sheet read in the
 * background never stalls the requests the server is answering.
 */
export class Budget {
  readonly limits: SpreadsheetLimits;
  private inflated = 0;
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
