/**
 * The catalogue readers' `FetchPage` on top of `captureFetch`: a catalogue's URL is as foreign to
 * the archive as any file it names, so its pages go through the same address policy, timeouts
 * and size limit.
 */
import { text } from 'node:stream/consumers';
import { captureFetch, type CaptureFetchOptions } from '../capture/index.ts';
import { DEFAULT_PAGE_LIMITS, type FetchPage } from './catalogs/index.ts';

/**
 * Largest catalogue page read (CKAN answers of 1,000 datasets stay well under it): the readers'
 * own bound, stopped here while it downloads.
 */
export const MAX_CATALOG_PAGE_BYTES = DEFAULT_PAGE_LIMITS.maxPageBytes;

/**
 * A `FetchPage` that fetches with `captureFetch` under `options` (pass `allowPrivate` from the
 * configuration, and the run's `signal`). Anything but a 2xx answer is a rejection naming the status.
 */
export function catalogPageFetcher(options: Pick<CaptureFetchOptions, 'allowPrivate' | 'signal' | 'resolver' | 'maxBytes'> = {}): FetchPage {
  return async (url) => {
    const response = await captureFetch(url, {
      maxBytes: MAX_CATALOG_PAGE_BYTES,
      accept: 'application/json, application/ld+json, text/turtle;q=0.9, */*;q=0.5',
      ...options,
    });
    if (response.status < 200 || response.status > 299) {
      response.body.destroy();
      throw new Error(`El catálogo respondió HTTP ${response.status} en ${response.finalUrl}`);
    }
    return { body: await text(response.body), contentType: response.contentType };
  };
}
