/**
 * Sheet previews (issue #7 'Spreadsheets too'): every sheet of an archived XLSX or ODS file
 * extracted into a UTF-8 CSV, stored by CID in the archive's content store and listed in
 * `sheet_previews`, so a spreadsheet record gets the same search panel as a CSV record.
 *
 * The readers are the archive's own (`xlsx.ts`, `ods.ts`), over fflate and saxes: the npm `xlsx`
 * package (SheetJS 0.18.5) has unpatched advisories (CVE-2023-30533, CVE-2024-22363), and
 * exceljs reads no ODS and pulls in unmaintained dependencies. Uploads are untrusted, so every
 * read runs within `SpreadsheetLimits`, in a worker thread of its own (`worker-read.ts`) that is
 * terminated at the time and memory limits: a zip bomb never stalls the server's event loop.
 * Legacy `.xls` (BIFF) files get no preview.
 *
 * The CSVs are stored as uploads and captures are (`storage/staging.ts`): staged first, then moved
 * into the store by the transaction that writes their `sheet_previews` rows, under the file lock
 * (`storage/file-guard.ts`) taken as its first statement. A CSV whose bytes equal a file another
 * upload or capture is committing, or undoing after a failure, at the same moment, then keeps its
 * blocks: that undo waits for this transaction and finds the rows holding the file.
 *
 * A file that cannot be read (damaged, hostile, past a limit) gets no previews and a logged warning,
 * for good: reading it again would fail again. Any other failure (the store, staging, the database,
 * this instance's lease, a fault of the reader itself) is thrown, so that the job tries again.
 * @module
 */
import { and, inArray, isNotNull, like } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, sheetPreviews } from '../db/schema.ts';
import { sheetPreviewsOf, type SheetPreviewItem } from '../queries/sheets.ts';
import { InvalidCidError, type ContentStore, type StagedUpload, type StagingArea } from '../storage/index.ts';
import { DEFAULT_LIMITS, SpreadsheetError, type SpreadsheetLimits } from './limits.ts';
import { readSpreadsheetInWorker } from './worker-read.ts';

export { DEFAULT_LIMITS, SpreadsheetError, type SpreadsheetLimits } from './limits.ts';
export { readSheets, readSpreadsheet, type SheetText, type SpreadsheetFormat } from './read.ts';
export { readSpreadsheetInWorker, type ReceivedSheet } from './worker-read.ts';

/** Record formats that have sheets to extract. */
export const SHEET_FORMATS = ['xlsx', 'ods'] as const;

/** Where previews are read from and stored: the archive's `store` and `staging`. */
export interface SheetPreviewStorage {
  /** Where the record's file is read from. */
  store: ContentStore;
  /** Where the CSVs wait until the transaction that writes their rows moves them into the store. */
  staging: StagingArea;
}

export interface SheetPreviewSource extends SheetPreviewStorage {
  db: Db;
  alexandriaId: number;
  /** CID of the record's file. */
  cid: string;
  /** The record's format (`alexandrias.type`); only `xlsx` and `ods` are read. */
  type: string | null;
  limits?: SpreadsheetLimits;
  /** Stops the extraction (its job given back at a shutdown): it then throws, and leaves nothing staged or written. */
  signal?: AbortSignal;
}

/**
 * Another extraction of the same record wrote its rows first. Thrown inside the rows' transaction,
 * before the move: it rolls back, and the staged CSVs go (`discard`) without ever entering the
 * store. Committed, they would stay there for good whenever they differ from the winner's (an undo
 * only runs on a failure), with no row holding them.
 */
class AnotherExtractionWon extends Error {}

async function storedBytes(store: ContentStore, cid: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
  const { size } = await store.stat(cid);
  if (size > maxBytes) throw new SpreadsheetError(`archivo de ${size} bytes, más de ${maxBytes}`);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for await (const chunk of store.cat(cid)) {
    // A large file from a remote store (S3) must not hold a shutdown until it has all come.
    signal?.throwIfAborted();
    if (offset + chunk.byteLength > size) throw new SpreadsheetError('el archivo guardado no tiene el tamaño declarado');
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Extracts the sheets of a record's XLSX or ODS file into CSV previews, unless it has them
 * already, and returns the record's previews. The file is read in a worker thread; this thread
 * only reads the stored bytes and stages the CSVs, a chunk at a time. Other formats, and files
 * that cannot be read (damaged, hostile, past a limit, a worker stopped at its time or memory
 * limit: a `SpreadsheetError`; a CID the store cannot hold), get none, and the reason is logged.
 * Nothing is left staged.
 *
 * @throws any other failure, which may pass (a record whose job ended done without previews would
 *   never be queued again: its job keeps the dedupe key)
 */
export async function extractSheetPreviews(source: SheetPreviewSource): Promise<SheetPreviewItem[]> {
  const { db, alexandriaId, cid, type } = source;
  if (!SHEET_FORMATS.some((format) => format === type)) return [];
  const staged = source.staging.begin();
  let previews: SheetPreviewItem[];
  try {
    previews = await extractInto(staged, source);
  } catch (error) {
    // Before the move this clears the staging folder; after it (the commit failed), it also takes
    // back the blocks the move added, of the CSVs no committed row holds.
    await staged.discard().catch((cause: unknown) => console.error(`No se pudo limpiar la espera de las hojas del registro ${alexandriaId}`, cause));
    if (error instanceof AnotherExtractionWon) return await sheetPreviewsOf(db, alexandriaId);
    // The file's own fault (it cannot be read, or its CID names nothing the store could hold): for good.
    if (!(error instanceof SpreadsheetError || error instanceof InvalidCidError)) throw error;
    console.warn(`No se pudieron extraer las hojas del registro ${alexandriaId} (${cid}): ${error.message}`);
    return [];
  }
  // The rows are committed: a staging folder left behind is only litter (swept once this instance is gone).
  await staged.settle().catch((cause: unknown) => console.error(`No se pudo limpiar la espera de las hojas del registro ${alexandriaId}`, cause));
  return previews;
}

/** The extraction proper, staging into `staged`; its caller settles or discards it. */
async function extractInto(staged: StagedUpload, source: SheetPreviewSource): Promise<SheetPreviewItem[]> {
  const { db, store, alexandriaId, cid, limits = DEFAULT_LIMITS, signal } = source;
  const existing = await sheetPreviewsOf(db, alexandriaId);
  if (existing.length > 0) return existing;
  const bytes = await storedBytes(store, cid, limits.maxFileBytes, signal);
  const rows: Array<typeof sheetPreviews.$inferInsert> = [];
  await readSpreadsheetInWorker(
    bytes,
    async (sheet) => {
      const added = await staged.add(sheet.chunks);
      rows.push({
        alexandriaId,
        sheetIndex: sheet.index,
        name: sheet.name,
        cid: added.cid,
        rowCount: sheet.rows,
        columnCount: sheet.columns,
        truncated: sheet.truncated,
      });
    },
    limits,
    signal,
  );
  // Stopped while its last sheet was being staged: nothing is written, the job tries again.
  signal?.throwIfAborted();
  if (rows.length === 0) {
    console.warn(`El registro ${alexandriaId} (${cid}) es una hoja de cálculo sin celdas: no tiene vista previa.`);
    return [];
  }
  await db.transaction(async (tx) => {
    // First: waiting here for another commit of the same CSV keeps no row locked.
    await staged.hold(tx);
    // A concurrent extraction of the same record may have won: its rows stand, and these blocks never move.
    const inserted = await tx.insert(sheetPreviews).values(rows).onConflictDoNothing().returning({ id: sheetPreviews.id });
    if (inserted.length < rows.length) throw new AnotherExtractionWon();
    // The blocks join the store last, journalled: a failed commit takes them back.
    await staged.commit(tx);
  });
  return await sheetPreviewsOf(db, alexandriaId);
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * `extractSheetPreviews` in the background, for after an upload's transaction has committed:
 * extractions run one at a time, so a burst of uploads cannot hold many workbooks in memory at
 * once. The returned promise rejects as `extractSheetPreviews` does; the next extraction runs anyway.
 */
export function scheduleSheetPreviews(source: SheetPreviewSource): Promise<SheetPreviewItem[]> {
  const run = queue.then(() => {
    // Stopped while waiting its turn: no workbook is read for a job already given back.
    source.signal?.throwIfAborted();
    return extractSheetPreviews(source);
  });
  queue = run.catch(() => undefined);
  return run;
}

/**
 * Previews for the seed's spreadsheet files; records that have them already are left alone. One
 * that fails for a reason other than its file is logged and left to `queueMissingSheetPreviews`,
 * which queues its job when the server's background work starts: the seed itself goes on.
 */
export async function seedSheetPreviews(db: Db, storage: SheetPreviewStorage): Promise<void> {
  const records = await db
    .select({ id: alexandrias.id, cid: alexandrias.cid, type: alexandrias.type })
    .from(alexandrias)
    .where(and(like(alexandrias.originKey, 'fixtures:%'), inArray(alexandrias.type, [...SHEET_FORMATS]), isNotNull(alexandrias.cid)))
    .orderBy(alexandrias.id);
  for (const record of records) {
    if (!record.cid) continue;
    await extractSheetPreviews({ db, ...storage, alexandriaId: record.id, cid: record.cid, type: record.type }).catch((error: unknown) =>
      console.error(`No se guardaron las vistas previas del registro ${record.id} en la carga inicial; se pondrán en cola al arrancar:`, error),
    );
  }
}
