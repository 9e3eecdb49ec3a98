/**
 * Why a catalogue could not be read, in Spanish for the moderator who registered it. A reader that
 * throws has yielded every page it could read before the problem; the listing is then incomplete,
 * so a runner must not take a dataset missing from it as withdrawn from the catalogue.
 */
export type CatalogReadErrorCode =
  /** The page could not be fetched (HTTP error, refused address, timeout): the fetcher's reason follows. */
  | 'fetch'
  /** The body is not the declared kind: HTML, not JSON, not RDF, or another kind of catalogue. */
  | 'wrong-kind'
  /** The catalogue answered, with an error of its own (CKAN's `success: false`). */
  | 'catalog-error'
  /** A JSON-LD document names a context the archive does not bundle; it is never fetched. */
  | 'remote-context'
  /** The catalogue has more pages than the reader may read. */
  | 'page-limit'
  /** A page's "next" link leads back to a page already read. */
  | 'paging-loop'
  /**
   * A page goes past what reading one page may cost (`limits.ts`): its bytes, its triples or
   * datasets, or the time or memory its parse took.
   */
  | 'too-costly';

export class CatalogReadError extends Error {
  readonly code: CatalogReadErrorCode;
  /** The page being read when it happened. */
  readonly url: string;

  constructor(code: CatalogReadErrorCode, url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogReadError';
    this.code = code;
    this.url = url;
  }
}

/**
 * A fetcher's word that the page's address names nothing (HTTP 404 or 410). On the first page the
 * reader adds what to check: the catalogue's address or its kind was most likely given wrong (a
 * portal's `/dataset/` page for its API); on a later one, the catalogue's own paging went wrong.
 */
export class PageNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageNotFoundError';
  }
}
