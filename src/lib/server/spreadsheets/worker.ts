/**
 * The worker thread that reads one spreadsheet for the server (`worker-read.ts` starts it): the
 * inflating, XML parsing and CSV building all happen here, on a thread and a V8 heap of their own,
 * so a hostile file can cost this thread its time and memory but never stall the server's event
 * loop. The thread reads one file and ends, and its heap goes with it.
 *
 * It is loaded by Node itself, not by Vite: every import is a `.ts` path and only erasable
 * TypeScript is allowed here and in what it imports (Node strips the types).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SpreadsheetError } from './limits.ts';
import { readSpreadsheet } from './read.ts';
import type { NextRequest, WorkerInput, WorkerMessage } from './worker-protocol.ts';

if (!parentPort) throw new Error('worker.ts solo se ejecuta como hilo de trabajo (véase worker-read.ts)');
const port = parentPort;

/** Requests of the server not answered yet, and a reader waiting for one. */
let requests = 0;
let waiting: (() => void) | null = null;

port.on('message', (message: NextRequest) => {
  if (message.kind !== 'next') return;
  if (waiting) {
    const resume = waiting;
    waiting = null;
    resume();
  } else requests += 1;
});

/** Resolves once the server has asked for the next message. */
function nextRequest(): Promise<void> {
  if (requests > 0) {
    requests -= 1;
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    waiting = resolve;
  });
}

function send(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

/**
 * The chunk with a buffer of its own: a small `Buffer` is a view into Node's shared pool, which
 * must not be transferred (or copied whole).
 */
function ownBytes(chunk: Uint8Array): Uint8Array<ArrayBuffer> {
  const whole = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer;
  return whole ? (chunk as Uint8Array<ArrayBuffer>) : new Uint8Array(chunk);
}

const { bytes, limits } = workerData as WorkerInput;
try {
  const format = await readSpreadsheet(
    bytes,
    async (sheet) => {
      const { index, name, csv } = sheet;
      send({ kind: 'sheet', index, name, rows: csv.rows, columns: csv.columns, truncated: csv.truncated });
      for (const chunk of csv.chunks()) {
        await nextRequest();
        const own = ownBytes(chunk);
        send({ kind: 'chunk', bytes: own }, [own.buffer]);
      }
      await nextRequest();
      send({ kind: 'sheet-end' });
    },
    limits,
  );
  send({ kind: 'done', format });
} catch (error) {
  send({ kind: 'failed', message: error instanceof Error ? error.message : String(error), spreadsheet: error instanceof SpreadsheetError });
} finally {
  port.close();
}
