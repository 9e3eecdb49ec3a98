/**
 * What changed between two versions of a table (CSV, XLSX, ODS): columns added and removed, rows
 * added, removed and changed, and a sample of the changed rows. A spreadsheet is compared as its
 * first sheet, made into a CSV by the archive's spreadsheet reader in its own worker thread.
 *
 * Tables within `maxDaffBytes` are compared in a worker thread (`table-diff-worker.ts`): by daff
 * up to `maxDaffRows` rows, by `KeyedComparison` above. Larger tables are streamed from the store
 * through `KeyedComparison` on this thread, a chunk at a time (its work per chunk is small, and
 * its memory a hash per row). Past `maxTableBytes`, or when a table cannot be read, only sizes
 * and types are compared, and the note says why.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AssetType } from '../../domain/constants.ts';
import { formatBytes } from '../../format.ts';
import { DEFAULT_LIMITS } from '../spreadsheets/limits.ts';
import { readSpreadsheetInWorker } from '../spreadsheets/worker-read.ts';
import type { ContentStore } from '../storage/index.ts';
import { KeyedComparison, TooManyRowsError } from './keyed-comparison.ts';
import type { TableDiffInput, TableDiffMessage } from './table-diff-worker.ts';
import { CsvRowReader, type TableChanges } from './table-rows.ts';

export { type TableChanges } from './table-rows.ts';

/** Formats compared as tables. */
export const TABLE_TYPES: readonly AssetType[] = ['csv', 'xlsx', 'ods'];

export const isTable = (type: string | null) => TABLE_TYPES.some((table) => table === type);

export interface TableDiffBounds {
  /** Rows (either table) up to which daff compares them; above, `KeyedComparison`. */
  maxDaffRows: number;
  /** CSV bytes (either table) up to which the tables are compared in a worker thread; above, streamed. */
  maxDaffBytes: number;
  /** CSV bytes (either table) past which no rows are compared. */
  maxTableBytes: number;
  /** The worker thread's deadline and heap. */
  timeoutMs: number;
  workerHeapMb: number;
}

/**
 * By default every comparison of rows runs in the worker thread, under its heap and time limits:
 * tables past 20 MB get sizes and types only, since the streamed comparison (for callers that
 * raise `maxTableBytes`) runs on the calling thread, which in the server is the web server's.
 */
export const DEFAULT_TABLE_DIFF_BOUNDS: TableDiffBounds = {
  maxDaffRows: 50_000,
  maxDaffBytes: 20_000_000,
  maxTableBytes: 20_000_000,
  timeoutMs: 120_000,
  workerHeapMb: 512,
};

/** What a comparison keeps of the file's text: it is stored and served with every read of the versions. */
const MAX_CELL_CHARS = 200;
const MAX_COLUMN_NAMES = 50;

function bounded(changes: TableChanges): TableChanges {
  const cut = (text: string) => (text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text);
  const names = (list: string[]) => list.slice(0, MAX_COLUMN_NAMES).map(cut);
  return {
    ...changes,
    columnsAdded: names(changes.columnsAdded),
    columnsRemoved: names(changes.columnsRemoved),
    sample: changes.sample.map((row) => row.map((cell) => cut(String(cell ?? '')))),
  };
}

/** Comparisons one at a time in this process: each may hold a worker thread of `workerHeapMb`. */
let queue: Promise<unknown> = Promise.resolve();

/** The worker's entry, found from the working directory, as the spreadsheet reader's is (see `WORKER_ENTRY` there). */
const WORKER_ENTRY = path.resolve(process.cwd(), 'src/lib/server/versions/table-diff-worker.ts');

/** A version's file, as the job knows it. */
export interface TableVersion {
  cid: string;
  type: AssetType;
}

export type TableComparison = { compared: true; changes: TableChanges } | { compared: false; note: string };

/** A version as CSV bytes to read: the file itself, or a spreadsheet's first sheet. */
interface CsvSource {
  size: number;
  chunks(): AsyncIterable<Uint8Array>;
  /** What the page should know of how it was read (the sheet compared), in Spanish. */
  note?: string;
}

class UnreadableTable extends Error {}

async function storedBytes(store: ContentStore, cid: string): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of store.cat(cid)) parts.push(chunk);
  return Buffer.concat(parts);
}

async function csvSource(store: ContentStore, version: TableVersion): Promise<CsvSource> {
  if (version.type === 'csv') {
    const { size } = await store.stat(version.cid);
    return { size, chunks: () => store.cat(version.cid) };
  }
  const { size } = await store.stat(version.cid);
  if (size > DEFAULT_LIMITS.maxFileBytes) throw new UnreadableTable(`hoja de cálculo de ${formatBytes(size)}, más de lo que el archivo lee`);
  let sheet: { name: string; truncated: boolean; rows: number; bytes: Buffer } | null = null;
  try {
    await readSpreadsheetInWorker(await storedBytes(store, version.cid), async (received) => {
      if (sheet) return;
      const parts: Uint8Array[] = [];
      for await (const chunk of received.chunks) parts.push(chunk);
      sheet = { name: received.name, truncated: received.truncated, rows: received.rows, bytes: Buffer.concat(parts) };
    });
  } catch (error) {
    throw new UnreadableTable(`la hoja de cálculo no se pudo leer (${error instanceof Error ? error.message : String(error)})`);
  }
  const first = sheet as { name: string; truncated: boolean; rows: number; bytes: Buffer } | null;
  if (!first) throw new UnreadableTable('la hoja de cálculo no tiene celdas');
  const note = first.truncated
    ? `Se comparó la primera hoja («${first.name}»), sus primeras ${first.rows} filas.`
    : `Se comparó la primera hoja («${first.name}»).`;
  return { size: first.bytes.length, chunks: async function* () { yield first.bytes; }, note };
}

async function collect(source: CsvSource): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array[] = [];
  for await (const chunk of source.chunks()) parts.push(chunk);
  // A buffer of its own (not a view into Node's pool), to transfer it to the worker.
  return new Uint8Array(Buffer.concat(parts));
}

/** Both tables compared in a worker thread, stopped at the deadline or past its heap. */
async function compareInWorker(before: CsvSource, after: CsvSource, bounds: TableDiffBounds): Promise<TableChanges> {
  const input: TableDiffInput = { before: await collect(before), after: await collect(after), maxDaffRows: bounds.maxDaffRows };
  const worker = new Worker(WORKER_ENTRY, {
    workerData: input,
    transferList: [input.before.buffer as ArrayBuffer, input.after.buffer as ArrayBuffer],
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: bounds.workerHeapMb },
  });
  let deadline: NodeJS.Timeout | undefined;
  try {
    return await new Promise<TableChanges>((resolve, reject) => {
      deadline = setTimeout(() => reject(new UnreadableTable(`la comparación no terminó en ${bounds.timeoutMs / 1000} s`)), bounds.timeoutMs);
      worker.once('message', (message: TableDiffMessage) =>
        message.kind === 'done' ? resolve(message.changes) : reject(new UnreadableTable(message.message)),
      );
      worker.once('error', (error) =>
        reject(
          new UnreadableTable(
            (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? `la comparación pasó de ${bounds.workerHeapMb} MiB de memoria`
              : String((error as Error)?.message ?? error),
          ),
        ),
      );
      worker.once('exit', (code) => reject(new UnreadableTable(`el hilo de la comparación terminó sin acabar (código ${code})`)));
    });
  } finally {
    clearTimeout(deadline);
    await worker.terminate();
  }
}

/** The header of a CSV source: its first row, reading no further than the chunk that holds it. */
async function headerOf(source: CsvSource): Promise<string[]> {
  let header: string[] | null = null;
  const reader = new CsvRowReader((fields) => {
    header ??= fields;
  });
  for await (const chunk of source.chunks()) {
    reader.push(chunk);
    if (header) return header;
  }
  reader.end();
  if (!header) throw new UnreadableTable('una de las dos versiones no tiene filas');
  return header;
}

/** Feeds every row of a source but its header to `onRow`. */
async function streamRows(source: CsvSource, onRow: (fields: string[]) => void): Promise<void> {
  let header = true;
  const reader = new CsvRowReader((fields) => {
    if (header) header = false;
    else onRow(fields);
  });
  for await (const chunk of source.chunks()) reader.push(chunk);
  reader.end();
}

/** Both tables streamed through `KeyedComparison`, on this thread, a chunk at a time. */
async function compareStreaming(before: CsvSource, after: CsvSource): Promise<TableChanges> {
  const comparison = new KeyedComparison(await headerOf(before), await headerOf(after));
  try {
    await streamRows(before, (fields) => comparison.addBefore(fields));
    await streamRows(after, (fields) => comparison.addAfter(fields));
  } catch (error) {
    if (error instanceof TooManyRowsError) throw new UnreadableTable(`la tabla tiene ${error.message}`);
    throw error;
  }
  return comparison.finish();
}

/**
 * Compares two versions' tables. A table that cannot be compared (unreadable, too large, the
 * worker stopped) gives `compared: false` and a note in Spanish; a failure to read the store
 * throws, for the job to try again.
 */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => undefined);
  return run;
}

export async function compareTables(
  store: ContentStore,
  before: TableVersion,
  after: TableVersion,
  bounds: TableDiffBounds = DEFAULT_TABLE_DIFF_BOUNDS,
): Promise<TableComparison> {
  try {
    const [left, right] = [await csvSource(store, before), await csvSource(store, after)];
    const largest = Math.max(left.size, right.size);
    if (largest > bounds.maxTableBytes) {
      return { compared: false, note: `Tabla de ${formatBytes(largest)}: demasiado grande para comparar sus filas; solo se comparan tamaño y tipo.` };
    }
    const changes = bounded(largest <= bounds.maxDaffBytes ? await oneAtATime(() => compareInWorker(left, right, bounds)) : await compareStreaming(left, right));
    const note = [right.note, changes.note].filter(Boolean).join(' ');
    return { compared: true, changes: { ...changes, ...(note ? { note } : {}) } };
  } catch (error) {
    if (error instanceof UnreadableTable) return { compared: false, note: `No se compararon las filas: ${error.message}.` };
    throw error;
  }
}
