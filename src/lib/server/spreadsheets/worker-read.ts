/**
 * Reading a spreadsheet off the server's event loop: one worker thread per file (`worker.ts`),
 * with a V8 heap of `workerHeapMb` and a deadline of `timeoutMs`, after which it is terminated
 * wherever it is. Inflating a zip bomb or parsing millions of cells then costs that thread, never
 * the requests the server is answering, and the thread's memory is returned when it ends.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DEFAULT_LIMITS, SpreadsheetError, type SpreadsheetLimits } from './limits.ts';
import type { SpreadsheetFormat } from './read.ts';
import type { NextRequest, WorkerInput, WorkerMessage } from './worker-protocol.ts';

/**
 * The worker's entry, found from the working directory: the built server is bundled by Astro
 * into dist/server, where no worker.ts sits beside this module (so `import.meta.url` cannot find
 * it), but it runs from the project root, as `config.ts` assumes for the migrations. Node strips
 * the worker's types itself, under vitest as in the built server.
 */
export const WORKER_ENTRY = path.resolve(process.cwd(), 'src/lib/server/spreadsheets/worker.ts');

/** The worker's young generation, in MiB: its objects are short-lived rows and cells. */
const YOUNG_GENERATION_MB = 16;

/** The longest delay `setTimeout` takes as it is (a longer one fires at once). */
const LONGEST_TIMEOUT = 2 ** 31 - 1;

/** A sheet read by the worker; its CSV arrives a chunk at a time, as `chunks` is read. */
export interface ReceivedSheet {
  /** Position of the sheet in the workbook, from 0 (empty sheets are skipped, not renumbered). */
  index: number;
  name: string;
  rows: number;
  columns: number;
  truncated: boolean;
  /** The CSV as UTF-8; read it at most once. */
  chunks: AsyncIterable<Uint8Array>;
}

export type ReceivedSheetHandler = (sheet: ReceivedSheet) => Promise<void>;

/** The worker's messages in order; the first failure (a crash, the memory limit, the deadline) ends every wait. */
class Inbox {
  private readonly messages: WorkerMessage[] = [];
  private waiting: { resolve: (message: WorkerMessage) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;

  push(message: WorkerMessage): void {
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve(message);
    } else this.messages.push(message);
  }

  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.waiting?.reject(error);
    this.waiting = null;
  }

  receive(): Promise<WorkerMessage> {
    const message = this.messages.shift();
    if (message) return Promise.resolve(message);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }
}

/** Asks the worker for the next chunk of the sheet it announced: the chunk, or null once the CSV is all sent. */
async function nextChunk(worker: Worker, inbox: Inbox): Promise<Uint8Array | null> {
  worker.postMessage({ kind: 'next' } satisfies NextRequest);
  const message = await inbox.receive();
  if (message.kind === 'chunk') return message.bytes;
  if (message.kind === 'sheet-end') return null;
  throw new SpreadsheetError(`el hilo de lectura respondió «${message.kind}» en medio de una hoja`);
}

/** Hands an announced sheet to `onSheet`, then reads (and drops) whatever of its CSV `onSheet` left. */
async function handOver(worker: Worker, inbox: Inbox, sheet: Omit<ReceivedSheet, 'chunks'>, onSheet: ReceivedSheetHandler): Promise<void> {
  let ended = false;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    while (!ended) {
      const chunk = await nextChunk(worker, inbox);
      if (chunk === null) ended = true;
      else yield chunk;
    }
  }
  await onSheet({ ...sheet, chunks: chunks() });
  while (!ended) ended = (await nextChunk(worker, inbox)) === null;
}

/** What a worker's `error` event means for the file. */
function workerFailure(error: unknown, limits: SpreadsheetLimits): SpreadsheetError {
  if ((error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new SpreadsheetError(`lectura detenida: pasó de ${limits.workerHeapMb} MiB de memoria`);
  }
  return new SpreadsheetError(`el hilo de lectura falló: ${error instanceof Error ? error.message : String(error)}`);
}

/** Why a read stopped when `signal` aborted: its reason when that is an error (never a `SpreadsheetError`). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && !(reason instanceof SpreadsheetError)) return reason;
  return new Error('lectura de la hoja de cálculo interrumpida', { cause: reason });
}

/**
 * `readSpreadsheet` in a worker thread of its own: reads every sheet of an XLSX or ODS file,
 * handing each to `onSheet` as it is read, its CSV streamed from the worker a chunk at a time as
 * `onSheet` reads it (the next chunk is made only when asked for). The worker is terminated after
 * `limits.timeoutMs` (the time `onSheet` takes included) or past `limits.workerHeapMb` of heap,
 * and always by the time this settles.
 *
 * `bytes` is handed over to the worker: when the array spans its whole buffer, the buffer is
 * transferred (not copied) and the caller's array is left empty. Throws a `SpreadsheetError` for
 * a file the worker could not read, or that went past a limit.
 *
 * When `signal` aborts (the server shutting down, its job given back) the worker is terminated at
 * once and the read rejects with the signal's reason, never a `SpreadsheetError`: the file is not
 * at fault, and its extraction must be tried again rather than given up.
 */
export async function readSpreadsheetInWorker(
  bytes: Uint8Array,
  onSheet: ReceivedSheetHandler,
  limits: SpreadsheetLimits = DEFAULT_LIMITS,
  signal?: AbortSignal,
): Promise<SpreadsheetFormat> {
  if (signal?.aborted) throw abortReason(signal);
  if (bytes.byteLength > limits.maxFileBytes) throw new SpreadsheetError(`archivo de más de ${limits.maxFileBytes} bytes`);
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const input = whole ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
  const worker = new Worker(WORKER_ENTRY, {
    workerData: { bytes: input, limits } satisfies WorkerInput,
    transferList: [input.buffer],
    // Nothing of the server's command line (an inspector, heap flags) is meant for the reader.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: limits.workerHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  const inbox = new Inbox();
  worker.on('message', (message: WorkerMessage) => inbox.push(message));
  worker.on('messageerror', (error) => inbox.fail(new SpreadsheetError(`mensaje ilegible del hilo de lectura: ${error.message}`)));
  worker.on('error', (error) => inbox.fail(workerFailure(error, limits)));
  worker.on('exit', (code) => inbox.fail(new SpreadsheetError(`el hilo de lectura terminó sin acabar (código ${code})`)));
  const deadline = setTimeout(() => {
    inbox.fail(new SpreadsheetError(`lectura detenida: no terminó en ${limits.timeoutMs} ms`));
    void worker.terminate();
  }, Math.min(limits.timeoutMs, LONGEST_TIMEOUT));
  const abort = () => {
    inbox.fail(abortReason(signal!));
    void worker.terminate();
  };
  signal?.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const message = await inbox.receive();
      if (message.kind === 'done') return message.format;
      if (message.kind === 'failed') throw message.spreadsheet ? new SpreadsheetError(message.message) : new Error(message.message);
      if (message.kind !== 'sheet') throw new SpreadsheetError(`el hilo de lectura respondió «${message.kind}» fuera de una hoja`);
      const { index, name, rows, columns, truncated } = message;
      await handOver(worker, inbox, { index, name, rows, columns, truncated }, onSheet);
    }
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', abort);
    // Also when `onSheet` failed: the worker may be waiting for a request that will never come.
    await worker.terminate();
  }
}
