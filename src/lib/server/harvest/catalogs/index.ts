/**
 * Reading public catalogues (issue #18): CKAN's action API, DCAT-AP (JSON-LD, Turtle or RDF/XML,
 * Hydra paging) and data.json, each as an async generator of pages of normalised datasets.
 *
 * The contract a runner relies on: pages come one at a time (nothing holds a whole portal);
 * a generator that ends without throwing has listed the whole catalogue, so a dataset missing
 * from it has left the catalogue; one that throws a `CatalogReadError` yielded every page it could
 * read first, and its listing is incomplete.
 */
import { ckanCatalogIdentity, readCkanCatalog } from './ckan.ts';
import { readDataJsonCatalog } from './datajson.ts';
import { readDcatCatalog } from './dcat.ts';
import type { CatalogKind, CatalogPage, FetchPage, ReadOptions } from './types.ts';

export { CatalogReadError, PageNotFoundError, type CatalogReadErrorCode } from './errors.ts';
export { DEFAULT_PAGE_LIMITS, type CatalogPageLimits } from './limits.ts';
export * from './types.ts';

const READERS: Record<CatalogKind, (url: string, fetchPage: FetchPage, options?: ReadOptions) => AsyncGenerator<CatalogPage>> = {
  ckan: readCkanCatalog,
  dcat: readDcatCatalog,
  datajson: readDataJsonCatalog,
};

/**
 * The datasets of the catalogue at `url`, of `kind`, page by page, each page fetched with
 * `fetchPage` (the runner's safe fetcher). See the module's header for what its ending means.
 */
export function readCatalog(kind: CatalogKind, url: string, fetchPage: FetchPage, options: ReadOptions = {}): AsyncGenerator<CatalogPage> {
  return READERS[kind](url, fetchPage, options);
}

/**
 * What makes two registered URLs one catalogue: for CKAN, its `package_search` endpoint (the
 * portal's root, `https://datos.gob.do`, and `…/api/3/action/package_search` are the same
 * catalogue); for the others, the document's URL itself, without its fragment or an empty query. Either way without
 * its scheme: a portal served over http and https is one catalogue, and registered twice it
 * would archive every dataset twice.
 */
export function catalogIdentity(kind: CatalogKind, url: string): string {
  return (kind === 'ckan' ? ckanCatalogIdentity(url) : documentIdentity(url)).replace(/^https?:/, '');
}

/** A document's URL without its fragment, and without a `?` that asks nothing (`…/data.json?`). */
function documentIdentity(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  // An empty query reads as '' here, as no query does; assigning '' drops the lone `?`.
  if (parsed.search === '') parsed.search = '';
  return parsed.href;
}
