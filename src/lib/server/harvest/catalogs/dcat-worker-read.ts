/**
 * Parsing DCAT pages off the server's event loop, in a worker thread (`dcat-worker.ts`) with a V8
 * heap of `workerHeapMb`, each page with a deadline of `timeoutMs`, after which the worker is
 * terminated wherever it is (inside jsonld.js's expansion, N3.js's lexer, or a graph growing past
 * the heap). The page then fails with a `CatalogReadError` in Spanish; the server and every other
 * harvest carry on. The same mechanism as the spreadsheet reader (`spreadsheets/worker-read.ts`),
 * with one difference: a worker serves a whole catalogue read, a page at a time, since starting
 * one (loading jsonld.js and N3.js) costs a few hundred milliseconds, more than parsing a page.
 * Each page's graph is garbage once its datasets are sent, so the heap limit still bounds a page.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CatalogReadError, type CatalogReadErrorCode } from './errors.ts';
import type { CatalogPageLimits } from './limits.ts';
import type { ParsedPage } from './paging.ts';
import type { FetchedPage } from './types.ts';

/**
 * The worker's entry, found from the working directory: the built server is bundled by Astro into
 * dist/server, where no dcat-worker.ts sits beside this module (so `import.meta.url` cannot find
 * it), but it runs from the project root, as `config.ts` assumes for the migrations. Node strips
 * the worker's types itself, under vitest as in the built server.
 */
export const DCAT_WORKER_ENTRY = path.resolve(process.cwd(), 'src/lib/server/harvest/catalogs/dcat-worker.ts');

/** The worker's young generation, in MiB: terms and quads are many small objects. */
const YOUNG_GENERATION_MB = 16;

/** The longest delay `setTimeout` takes as it is (a longer one fires at once). */
const LONGEST_TIMEOUT = 2 ** 31 - 1;

/** What the worker gets when it starts. */
export interface DcatWorkerInput {
  limits: CatalogPageLimits;
}

/** One page to parse. */
export interface DcatPageRequest {
  page: FetchedPage;
  url: string;
}

/** The worker's answer for a page: read, or why not (`code` when it was a `CatalogReadError`). */
export type DcatWorkerMessage = { kind: 'parsed'; parsed: ParsedPage } | { kind: 'failed'; code: CatalogReadErrorCode | null; message: string };

interface Pending {
  url: string;
  resolve(message: DcatWorkerMessage): void;
  reject(error: CatalogReadError): void;
}

/**
 * The DCAT pages of one catalogue read, parsed in a worker thread started at the first page.
 * `close()` it when the read ends (however it ends).
 */
export class DcatPageParser {
  readonly #limits: CatalogPageLimits;
  #worker: Worker | null = null;
  #pending: Pending | null = null;

  constructor(limits: CatalogPageLimits) {
    this.#limits = limits;
  }

  /**
   * The page's datasets and next page, or a `CatalogReadError` for a page that is not DCAT, goes
   * past a limit of `limits`, or whose parse was stopped at its time or memory limit (the worker is
   * then terminated, and the next page, if any, gets a new one). One page at a time.
   */
  async parse(page: FetchedPage, url: string): Promise<ParsedPage> {
    if (this.#pending) throw new Error('DcatPageParser lee una página a la vez');
    const worker = (this.#worker ??= this.#start());
    let deadline: NodeJS.Timeout | undefined;
    const answer = new Promise<DcatWorkerMessage>((resolve, reject) => {
      this.#pending = { url, resolve, reject };
    });
    try {
      deadline = setTimeout(() => {
        this.#fail(
          new CatalogReadError(
            'too-costly',
            url,
            `La lectura de la página ${url} del catálogo se detuvo: no terminó en ${this.#limits.timeoutMs / 1000} s, el máximo para una página.`,
          ),
        );
      }, Math.min(this.#limits.timeoutMs, LONGEST_TIMEOUT));
      worker.postMessage({ page, url } satisfies DcatPageRequest);
      const message = await answer;
      if (message.kind === 'parsed') return message.parsed;
      if (message.code === 'too-costly') {
        // N3.js may still be lexing the rest of a page refused for its triples: stop it.
        void this.close();
      }
      if (message.code) throw new CatalogReadError(message.code, url, message.message);
      throw new CatalogReadError('wrong-kind', url, `No se pudo leer la página ${url} del catálogo: ${message.message}`);
    } finally {
      clearTimeout(deadline);
      this.#pending = null;
    }
  }

  /** Ends the worker, if one is running. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  #start(): Worker {
    const worker = new Worker(DCAT_WORKER_ENTRY, {
      workerData: { limits: this.#limits } satisfies DcatWorkerInput,
      // Nothing of the server's command line (an inspector, heap flags) is meant for the parser.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.workerHeapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    // A read its caller abandoned without closing it must not keep the process alive.
    worker.unref();
    // A terminated worker's last events are not about the page being read now.
    const current = () => this.#worker === worker;
    worker.on('message', (message: DcatWorkerMessage) => {
      if (current()) this.#pending?.resolve(message);
    });
    worker.on('messageerror', (error) => {
      if (current()) this.#fail(this.#failure(`no se pudo leer la respuesta del hilo de lectura (${error.message})`));
    });
    worker.on('error', (error) => {
      if (current()) this.#fail(this.#workerFailure(error));
    });
    worker.on('exit', (code) => {
      if (!current()) return;
      this.#worker = null;
      this.#pending?.reject(this.#failure(`el hilo de lectura terminó sin acabar (código ${code})`));
    });
    return worker;
  }

  /** Fails the page being read and terminates its worker: whatever it was doing is abandoned. */
  #fail(error: CatalogReadError): void {
    this.#pending?.reject(error);
    void this.close();
  }

  #failure(reason: string): CatalogReadError {
    const url = this.#pending?.url ?? '';
    return new CatalogReadError('wrong-kind', url, `No se pudo leer la página ${url} del catálogo: ${reason}.`);
  }

  /** What a worker's `error` event means for the page. */
  #workerFailure(error: unknown): CatalogReadError {
    const url = this.#pending?.url ?? '';
    if ((error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new CatalogReadError(
        'too-costly',
        url,
        `La lectura de la página ${url} del catálogo se detuvo: pasó de ${this.#limits.workerHeapMb} MiB de memoria, el máximo para una página.`,
      );
    }
    return this.#failure(error instanceof Error ? error.message : String(error));
  }
}
