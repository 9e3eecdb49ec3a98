/**
 * What reading one catalogue page may cost the archive. A catalogue is written by strangers: a page
 * of a few megabytes can hold millions of triples, IRIs of 10 KB repeated thousands of times, or
 * nesting that makes a JSON-LD processor recurse, and its expansion can take far more memory and
 * time than its bytes suggest. Every page stops at a known bound, with a Spanish reason, instead
 * of taking the server's memory or event loop with it.
 *
 * DCAT pages are parsed in a worker thread of their own (`dcat-worker-read.ts`), terminated at
 * `timeoutMs` or past `workerHeapMb` of heap, as spreadsheets are (`spreadsheets/worker-read.ts`).
 * CKAN pages and data.json are plain JSON, parsed on the server's thread within `maxPageBytes`.
 */

export interface CatalogPageLimits {
  /**
   * Bytes of one page read at all (the fetcher's limit as well). A data.json is one document with
   * every dataset, parsed and held whole in memory: this bounds it.
   */
  maxPageBytes: number;
  /** Triples of one DCAT page's graph; past it the page is refused before it grows further. */
  maxTriples: number;
  /** Datasets of one DCAT page. */
  maxDatasets: number;
  /** Wall-clock time for parsing one DCAT page, in milliseconds; then its worker is terminated. */
  timeoutMs: number;
  /** V8 heap (old generation) of the worker that parses one DCAT page, in MiB; past it the worker is stopped. */
  workerHeapMb: number;
}

/**
 * Enough for real pages with room to spare: a ckanext-dcat or uData page of 100 datasets is about
 * 10,000 triples, and an unpaged catalogue of our own size (a thousand records) some 50,000.
 * Measured: a page of 270,000 triples (15,000 datasets, 11 MB) parses in 512 MiB, in Turtle as in
 * JSON-LD, in about 5 s; one of 540,000 does not. So a page within `maxTriples` fits in the heap.
 */
export const DEFAULT_PAGE_LIMITS: CatalogPageLimits = {
  maxPageBytes: 50_000_000,
  maxTriples: 200_000,
  maxDatasets: 10_000,
  timeoutMs: 60_000,
  workerHeapMb: 512,
};

/** The limits with a reader's overrides. */
export function pageLimits(overrides: Partial<CatalogPageLimits> | undefined): CatalogPageLimits {
  return { ...DEFAULT_PAGE_LIMITS, ...Object.fromEntries(Object.entries(overrides ?? {}).filter(([, value]) => value !== undefined)) };
}
