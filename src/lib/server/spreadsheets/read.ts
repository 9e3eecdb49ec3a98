/**
 * A spreadsheet's bytes to one CSV per sheet: which format the zip really holds, then its reader.
 */
import { ASSET_TYPES } from '../../domain/constants.ts';
import { Budget, csvBytesFor, DEFAULT_LIMITS, SpreadsheetError, type SpreadsheetLimits } from './limits.ts';
import { readOds } from './ods.ts';
import { SheetSink, type ExtractedSheet, type SheetHandler } from './sink.ts';
import { readXlsx } from './xlsx.ts';
import { openZip, readEntryText, type ZipArchive } from './zip.ts';

export type SpreadsheetFormat = 'xlsx' | 'ods';


/** What the zip's parts say it is (its name or declared type may say otherwise). */
async function formatOf(zip: ZipArchive, budget: Budget): Promise<SpreadsheetFormat> {
  if (zip.entries.has('content.xml')) {
    const mimetype = await readEntryText(zip, 'mimetype', budget, 1024);
    if (mimetype === null || mimetype.trim() === ASSET_TYPES.ods.mediaType) return 'ods';
    throw new SpreadsheetError(`documento OpenDocument que no es una hoja de cálculo (${mimetype.trim().slice(0, 80)})`);
  }
  if (zip.entries.has('_rels/.rels') || zip.entries.has('xl/workbook.xml')) return 'xlsx';
  throw new SpreadsheetError('el zip no contiene un libro XLSX ni una hoja ODS');
}

/**
 * Reads every sheet of an XLSX or ODS file, handing each to `onSheet` as soon as it is read (an
 * empty sheet is skipped). Throws a `SpreadsheetError` for a file it cannot read or that goes
 * past `limits`; sheets handed over before then were complete, but the workbook was not.
 *
 * It reads on the calling thread; the server calls it through `readSpreadsheetInWorker`, in a
 * worker thread that can be stopped at any point and whose memory goes when it ends.
 */
export async function readSpreadsheet(
  bytes: Uint8Array,
  onSheet: SheetHandler,
  limits: SpreadsheetLimits = DEFAULT_LIMITS,
): Promise<SpreadsheetFormat> {
  if (bytes.byteLength > limits.maxFileBytes) throw new SpreadsheetError(`archivo de más de ${limits.maxFileBytes} bytes`);
  const budget = new Budget(limits);
  const zip = openZip(bytes, limits.maxZipEntries);
  const format = await formatOf(zip, budget);
  const sink = new SheetSink(limits, csvBytesFor(limits, bytes.byteLength), onSheet);
  await (format === 'ods' ? readOds(zip, budget, sink) : readXlsx(zip, budget, sink));
  await sink.flush();
  return format;
}

/** A read sheet with its CSV as text: for tests and small files. */
export interface SheetText {
  index: number;
  name: string;
  rows: number;
  columns: number;
  truncated: boolean;
  csv: string;
}

export function sheetText(sheet: ExtractedSheet): SheetText {
  const decoder = new TextDecoder();
  let csv = '';
  for (const chunk of sheet.csv.chunks()) csv += decoder.decode(chunk, { stream: true });
  csv += decoder.decode();
  const { index, name, csv: { rows, columns, truncated } } = sheet;
  return { index, name, rows, columns, truncated, csv };
}

/** Every sheet of a spreadsheet, with its CSV as text. */
export async function readSheets(bytes: Uint8Array, limits: SpreadsheetLimits = DEFAULT_LIMITS): Promise<SheetText[]> {
  const sheets: SheetText[] = [];
  await readSpreadsheet(bytes, async (sheet) => {
    sheets.push(sheetText(sheet));
  }, limits);
  return sheets;
}
