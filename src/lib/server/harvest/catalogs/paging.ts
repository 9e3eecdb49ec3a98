/**
 * The paging every reader shares: one page at a time, bounded in count and each in bytes, stopped
 * on an empty page, and refused when a "next" link leads back to a page already read (a loop would
 * otherwise read the same datasets for ever). A dataset listed again (CKAN pages shift when the
 * catalogue changes during the harvest) is yielded once, and the page says it repeated it.
 */
import { CatalogReadError, PageNotFoundError } from './errors.ts';
import { DEFAULT_PAGE_LIMITS } from './limits.ts';
import { DEFAULT_MAX_PAGES, type CatalogDataset, type CatalogPage, type FetchedPage, type FetchPage } from './types.ts';
import { formatCount } from '../../../text.ts';

/** What a reader makes of one fetched page. */
export interface ParsedPage {
  datasets: CatalogDataset[];
  total: number | null;
  skipped: string[];
  /** The next page's URL, or null on the last page. */
  next: string | null;
}

export type PageParser = (page: FetchedPage, url: string) => Promise<ParsedPage> | ParsedPage;

/**
 * Reads `firstUrl` and the pages it links to with `parse`, yielding each. Ends normally on a page
 * without a next link or without datasets; throws a `CatalogReadError` (after yielding what it read)
 * when a page cannot be fetched or parsed, when a next link loops, or past `maxPages`.
 */
export async function* readPages(
  firstUrl: string,
  fetchPage: FetchPage,
  parse: PageParser,
  { maxPages = DEFAULT_MAX_PAGES, maxPageBytes = DEFAULT_PAGE_LIMITS.maxPageBytes }: { maxPages?: number | undefined; maxPageBytes?: number | undefined } = {},
): AsyncGenerator<CatalogPage> {
  const visited = new Set<string>();
  /** Each dataset yielded, by identifier, with the number of the page that listed it first. */
  const yielded = new Map<string, number>();
  let url: string | null = firstUrl;
  let number = 0;
  while (url !== null) {
    if (visited.has(url)) {
      throw new CatalogReadError('paging-loop', url, `La paginación del catálogo vuelve a una página ya leída (${url}): se detuvo tras ${number} página(s).`);
    }
    if (number >= maxPages) {
      throw new CatalogReadError('page-limit', url, `El catálogo tiene más de ${maxPages} páginas: se detuvo la lectura antes de ${url}.`);
    }
    visited.add(url);
    number += 1;
    const parsed = await parse(await fetchOne(fetchPage, url, number, maxPageBytes), url);
    const datasets: CatalogDataset[] = [];
    const repeated: CatalogPage['repeated'] = [];
    for (const dataset of parsed.datasets) {
      const first = yielded.get(dataset.identifier);
      if (first !== undefined) {
        repeated.push({ identifier: dataset.identifier, samePage: first === number });
        continue;
      }
      yielded.set(dataset.identifier, number);
      datasets.push(dataset);
    }
    yield { url, number, datasets, total: parsed.total, skipped: parsed.skipped, repeated };
    url = parsed.datasets.length > 0 ? parsed.next : null;
  }
}

/**
 * One page, within `maxPageBytes` whatever fetched it (the archive's fetcher stops at the same
 * limit while downloading; a fetcher of another kind is held to it here).
 */
async function fetchOne(fetchPage: FetchPage, url: string, number: number, maxPageBytes: number): Promise<FetchedPage> {
  let page: FetchedPage;
  try {
    page = await fetchPage(url);
  } catch (error) {
    let reason = error instanceof Error ? error.message : String(error);
    if (error instanceof PageNotFoundError && number === 1) reason += '. Revise la dirección y el tipo del catálogo.';
    throw new CatalogReadError('fetch', url, `No se pudo leer la página ${number} del catálogo (${url}): ${reason}`, { cause: error });
  }
  // Characters count at least one byte each: only a long text needs its bytes counted.
  if (page.body.length > maxPageBytes || (page.body.length * 3 > maxPageBytes && Buffer.byteLength(page.body) > maxPageBytes)) {
    throw new CatalogReadError(
      'too-costly',
      url,
      `La página ${number} del catálogo (${url}) pasa de ${formatCount(maxPageBytes)} bytes, el máximo que el archivo lee de una página.`,
    );
  }
  return page;
}
