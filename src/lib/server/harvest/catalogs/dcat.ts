/**
 * DCAT-AP catalogues in JSON-LD, Turtle or RDF/XML (our own `/catalog.jsonld`, ckanext-dcat's
 * `catalog.ttl` and `catalog.rdf`, uData's `catalog.jsonld`), following Hydra paging when present. Each page is a document parsed
 * in a worker thread (`dcat-worker-read.ts`), within `CatalogPageLimits`: expanding JSON-LD or
 * building a graph can take far more memory and time than the page's bytes suggest, and that cost
 * must fall on the page, never on the server. (A worker's heap limit does not stop one allocation
 * too large for it, which ends the whole process: what could make one, XML entities, is refused
 * before parsing, `rdf-document.ts`.) What a page's graph says is read in `dcat-graph.ts`.
 */
import { DcatPageParser } from './dcat-worker-read.ts';
import { pageLimits } from './limits.ts';
import { readPages } from './paging.ts';
import type { CatalogPage, FetchPage, ReadOptions } from './types.ts';

/** Every dataset of a DCAT catalogue, a page (a document) at a time. */
export async function* readDcatCatalog(catalogUrl: string, fetchPage: FetchPage, { maxPages, limits }: ReadOptions = {}): AsyncGenerator<CatalogPage> {
  const bounds = pageLimits(limits);
  const parser = new DcatPageParser(bounds);
  try {
    yield* readPages(catalogUrl, fetchPage, (page, url) => parser.parse(page, url), { maxPages, maxPageBytes: bounds.maxPageBytes });
  } finally {
    await parser.close();
  }
}
