/**
 * The messages between the server and the worker thread that reads one spreadsheet
 * (`worker-read.ts` and `worker.ts`).
 *
 * The worker gets the file's bytes (transferred, not copied) and the limits as its `workerData`.
 * It announces each finished sheet, then sends its CSV one chunk at a time, each only when the
 * server asks for the next one: the server never holds more than a chunk of a large CSV, and the
 * worker never runs ahead of the store writing it.
 */
import type { SpreadsheetLimits } from './limits.ts';
import type { SpreadsheetFormat } from './read.ts';

export interface WorkerInput {
  bytes: Uint8Array;
  limits: SpreadsheetLimits;
}

/** What the worker sends. */
export type WorkerMessage =
  /** A sheet is read; its CSV follows, a chunk per `next`. */
  | { kind: 'sheet'; index: number; name: string; rows: number; columns: number; truncated: boolean }
  /** The next chunk of the sheet's CSV (its buffer is transferred). */
  | { kind: 'chunk'; bytes: Uint8Array }
  /** The sheet's CSV is all sent. */
  | { kind: 'sheet-end' }
  /** The workbook is read. */
  | { kind: 'done'; format: SpreadsheetFormat }
  /** The file could not be read: `spreadsheet` when it is the file's fault (a `SpreadsheetError`). */
  | { kind: 'failed'; message: string; spreadsheet: boolean };

/** What the server sends: the worker's next message, please. */
export interface NextRequest {
  kind: 'next';
}
