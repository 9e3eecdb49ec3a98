/**
 * The worker thread that parses a catalogue's DCAT pages for the server (`dcat-worker-read.ts`
 * starts it): the JSON-LD expansion, the Turtle parse and the graph all live on this thread and its
 * V8 heap, so a hostile page can cost this thread its time and memory but never stall the server's
 * event loop. It parses one page per request, in turn, for the length of one catalogue read.
 *
 * It is loaded by Node itself, not by Vite: every import is a `.ts` path and only erasable
 * TypeScript is allowed here and in what it imports (Node strips the types).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseDcatPage } from './dcat-graph.ts';
import type { DcatPageRequest, DcatWorkerInput, DcatWorkerMessage } from './dcat-worker-read.ts';
import { CatalogReadError } from './errors.ts';

if (!parentPort) throw new Error('dcat-worker.ts solo se ejecuta como hilo de trabajo (véase dcat-worker-read.ts)');
const port = parentPort;
const { limits } = workerData as DcatWorkerInput;

port.on('message', async ({ page, url }: DcatPageRequest) => {
  let message: DcatWorkerMessage;
  try {
    message = { kind: 'parsed', parsed: await parseDcatPage(page, url, limits) };
  } catch (error) {
    message = {
      kind: 'failed',
      code: error instanceof CatalogReadError ? error.code : null,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  port.postMessage(message);
});
