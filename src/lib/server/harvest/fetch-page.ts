/**
 * The catalogue readers' `FetchPage` on top of `captureFetch`: a catalogue's URL is as foreign to
 * the archive as any file it names, so its pages go through the same address policy, timeouts
 * and size limit, and the same politeness as the captures (`capture-job.ts`):
 *
 * - the site's robots.txt is asked first (`RobotsPolicy`, the captures' mechanism): a page it
 *   disallows fails the run, and its `Crawl-delay` spaces the pages (and holds captures back);
 * - a 429 or 503 is waited out as its `Retry-After` asks, and a 502 or 504 after a short backoff,
 *   then the same page is asked again, a few times at most. The wait is bounded: a site asking for
 *   longer fails the run, which the schedule tries again later. While a busy host (429, 503) is
 *   waited for, its capture jobs wait too (`deferHost`), when the fetcher has the database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { captureFetch, isOwnAddress, ownAddressMessage, retryAfterMs, RobotsPolicy, type CaptureFetchOptions } from '../capture/index.ts';
import type { Db } from '../db/index.ts';
import { DEFAULT_POLITENESS, deferHost } from '../jobs/index.ts';
import { politenessKey } from '../jobs/hosts.ts';
import { DEFAULT_PAGE_LIMITS, PageNotFoundError, type FetchPage } from './catalogs/index.ts';
import { formatCount } from '../../text.ts';

/**
 * Largest catalogue page read (CKAN answers of 1,000 datasets stay well under it): the readers'
 * own bound, stopped here while it downloads.
 */
export const MAX_CATALOG_PAGE_BYTES = DEFAULT_PAGE_LIMITS.maxPageBytes;

/** How a page that answered "not now" is asked again. */
export interface PageRetrySettings {
  /** Times the same page is asked again after a 429, 502, 503 or 504 (3). */
  retries: number;
  /**
   * The longest wait for one page (2 min): a run holds its worker, and a site asking for more
   * (a `Retry-After` of an hour) is better asked again by the next scheduled run.
   */
  maxWaitMs: number;
  /** The first wait when the server names none (2 s), doubled at each retry. */
  backoffMs: number;
}

export const PAGE_RETRY_DEFAULTS: PageRetrySettings = { retries: 3, maxWaitMs: 120_000, backoffMs: 2_000 };

/** Answers that say "not now" rather than "never": the page is asked again after a wait. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
/** Statuses that say the address names nothing (`PageNotFoundError`). */
const NOT_FOUND_STATUSES = new Set([404, 410]);

/** Answers whose wait holds back the whole host, captures included (RFC 9110: "too many requests", "unavailable"). */
const HOST_BUSY_STATUSES = new Set([429, 503]);

export interface CatalogPageFetcherOptions extends Pick<CaptureFetchOptions, 'allowPrivate' | 'signal' | 'resolver' | 'maxBytes'> {
  /**
   * The database whose capture jobs are held back while a busy host is waited for (`deferHost`),
   * and for the site's `Crawl-delay`. Without it (a read with no queue), only the pages wait.
   */
  db?: Db;
  /** The least a host is held back (`config.worker.perHostDelayMs`, as for captures); `DEFAULT_POLITENESS.perHostDelayMs` by default. */
  hostDelayMs?: number;
  /** Whose robots.txt is asked; by default one policy per fetcher (so per run), fetched under the same options. */
  robots?: RobotsPolicy;
  /** `PAGE_RETRY_DEFAULTS` for whatever is not given. */
  retry?: Partial<PageRetrySettings>;
  /**
   * The archive's own hosts (`allowedHosts`): a page there, asked (a catalogue's next-page link) or
   * reached by a redirect, is refused before it is requested (`capture/own-address.ts`). None by default.
   */
  ownHosts?: readonly string[];
}

/**
 * A `FetchPage` that fetches with `captureFetch` under `options` (pass `allowPrivate` from the
 * configuration, the run's `signal`, and its `db`). Anything but a 2xx answer, once the retries
 * are spent, is a rejection naming the status; so is a page robots.txt disallows or a wait too long.
 */
export function catalogPageFetcher(options: CatalogPageFetcherOptions = {}): FetchPage {
  const { db, hostDelayMs = DEFAULT_POLITENESS.perHostDelayMs, retry: retryOptions, robots: givenRobots, ownHosts = [], ...fetchOptions } = options;
  const retry = { ...PAGE_RETRY_DEFAULTS, ...retryOptions };
  const robots = givenRobots ?? new RobotsPolicy({ fetch: { allowPrivate: fetchOptions.allowPrivate, resolver: fetchOptions.resolver, signal: fetchOptions.signal } });
  const { signal } = fetchOptions;
  /** When the last page was asked of each host, for its Crawl-delay. */
  const lastAsked = new Map<string, number>();

  const wait = async (ms: number) => {
    try {
      await sleep(ms, undefined, { signal });
    } catch (error) {
      if (signal?.aborted) throw new Error('Cosecha interrumpida mientras esperaba al catálogo.', { cause: error });
      throw error;
    }
  };

  return async (url) => {
    // Said in full, and before its site's robots.txt is asked; a redirect there is refused by `captureFetch`.
    const page = URL.canParse(url) ? new URL(url) : null;
    if (page && isOwnAddress(page, ownHosts)) throw new Error(ownAddressMessage('La dirección', page));
    // A site that asks crawlers to keep out of a path is obeyed (RFC 9309), as for its files.
    const verdict = await robots.check(url);
    if (!verdict.allowed) {
      // The site itself cannot be reached (an address the archive refuses, a name that does not
      // resolve): that is the reason, whatever the path.
      if (verdict.siteFailure) throw new Error(`${verdict.siteFailure.message}.`, { cause: verdict.siteFailure });
      // An unreachable robots.txt keeps the crawler out too (RFC 9309), but it is not the site saying no.
      const why = verdict.unreachable ? 'no se pudo leer el robots.txt del sitio, y sin él no se lee el catálogo' : 'robots.txt del sitio no permite leer esta página del catálogo';
      throw new Error(`${why} (${verdict.reason}).`);
    }
    const host = politenessKey(url);
    const crawlDelayMs = verdict.crawlDelayMs ?? 0;
    // A pause between pages longer than the archive waits for one is not shortened: the run says so.
    if (crawlDelayMs > retry.maxWaitMs) {
      throw new Error(
        `robots.txt del sitio pide ${seconds(crawlDelayMs)} entre peticiones (Crawl-delay), más de los ${seconds(retry.maxWaitMs)} que el archivo espera por una página; la cosecha no sigue.`,
      );
    }
    /** Waits until the host's Crawl-delay has passed since the last page asked of it, and `atLeastMs` in any case. */
    const spaced = async (atLeastMs = 0) => {
      const since = Date.now() - (lastAsked.get(host) ?? Number.NEGATIVE_INFINITY);
      const ms = Math.max(atLeastMs, crawlDelayMs - since);
      if (ms > 0) await wait(ms);
    };
    await spaced();
    // It counts from this request for the host's captures too.
    if (db && crawlDelayMs > 0) await deferHost(db, host, Math.max(crawlDelayMs, hostDelayMs));
    for (let attempt = 0; ; attempt++) {
      lastAsked.set(host, Date.now());
      const response = await captureFetch(url, {
        maxBytes: MAX_CATALOG_PAGE_BYTES,
        accept: 'application/json, application/ld+json, text/turtle;q=0.9, */*;q=0.5',
        ...fetchOptions,
        ownHosts,
      });
      if (response.status >= 200 && response.status <= 299) {
        return { body: await pageText(await buffer(response.body), response.contentType, response.contentEncoding), contentType: response.contentType };
      }
      response.body.destroy();
      // The page's address is in the message that reports it (`paging.ts`); only a redirect's target is news.
      const refused = `El catálogo respondió HTTP ${response.status}${response.redirects.length > 0 ? ` en ${response.finalUrl}` : ''}`;
      // Nothing there: the reader says what to check when it is the catalogue's first page.
      if (NOT_FOUND_STATUSES.has(response.status)) throw new PageNotFoundError(`${refused}: no hay nada en esa dirección`);
      if (!RETRYABLE_STATUSES.has(response.status)) throw new Error(refused);
      const asked = retryAfterMs(response.retryAfter);
      const waitMs = asked ?? retry.backoffMs * 2 ** attempt;
      // The host that answered asked for a pause: its captures wait it out too, even when this run gives up.
      if (db && HOST_BUSY_STATUSES.has(response.status)) await deferHost(db, politenessKey(response.finalUrl), Math.max(waitMs, hostDelayMs));
      if (waitMs > retry.maxWaitMs) {
        throw new Error(
          `${refused} y pidió esperar ${seconds(waitMs)}, más de los ${seconds(retry.maxWaitMs)} que el archivo espera por una página; la próxima cosecha lo intentará de nuevo.`,
        );
      }
      if (attempt >= retry.retries) throw new Error(`${refused}, también tras ${retry.retries} reintento(s).`);
      // A short Retry-After does not cut the site's Crawl-delay.
      await spaced(waitMs);
    }
  };
}

const INFLATE = { gzip: promisify(zlib.gunzip), 'x-gzip': promisify(zlib.gunzip), deflate: promisify(zlib.inflate), br: promisify(zlib.brotliDecompress) } as const;
const INFLATE_RAW = promisify(zlib.inflateRaw);

/**
 * A catalogue page's text from its bytes as sent. Unlike a captured file (kept as published), a
 * page is read: a portal that compresses it though asked not to (`Accept-Encoding: identity`) is
 * inflated, never past the page limit (a gzip bomb stops there). A Content-Encoding the bytes
 * belie (`utf-8`, `none`, gzip on plain bytes, as misconfigured servers send) is no reason to
 * fail: the bytes are read as they are. The text is decoded by `charsetOf`.
 */
export async function pageText(bytes: Buffer, contentType: string | null, contentEncoding: string | null): Promise<string> {
  const plain = await inflated(bytes, contentEncoding?.trim().toLowerCase() ?? '');
  return new TextDecoder(charsetOf(plain, contentType)).decode(plain);
}

async function inflated(bytes: Buffer, encoding: string): Promise<Buffer> {
  if (!Object.hasOwn(INFLATE, encoding)) return bytes;
  // gzip's own magic bytes, or it is not gzip whatever the header says.
  if ((encoding === 'gzip' || encoding === 'x-gzip') && !(bytes[0] === 0x1f && bytes[1] === 0x8b)) return bytes;
  const options = { maxOutputLength: MAX_CATALOG_PAGE_BYTES };
  const attempts = encoding === 'deflate' ? [INFLATE.deflate, INFLATE_RAW] : [INFLATE[encoding as keyof typeof INFLATE]];
  for (const inflate of attempts) {
    try {
      return await inflate(bytes, options);
    } catch (error) {
      if (error instanceof RangeError) throw new Error(`Una página del catálogo, descomprimida, pasa de ${MAX_CATALOG_PAGE_BYTES / 1_000_000} MB.`, { cause: error });
      // Not so compressed (raw deflate, as IIS sends it, is tried next): as sent.
    }
  }
  return bytes;
}

/**
 * The text encoding of a page: its byte-order mark (a data.json saved as UTF-16 by a Windows
 * tool); else UTF-8, which JSON, JSON-LD and Turtle are by definition, whatever charset a server
 * adds (Apache's default ISO-8859-1 on a UTF-8 file); only bytes that are not UTF-8 are read in
 * the charset the Content-Type names, else (RDF/XML) in the one its XML declaration names
 * (`<?xml version="1.0" encoding="ISO-8859-1"?>`), if TextDecoder knows it.
 */
function charsetOf(bytes: Buffer, contentType: string | null): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'utf-8';
  } catch {
    // Not UTF-8: the charset named, if any.
  }
  const named =
    /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1] ??
    /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([\w.:-]+)["']/.exec(bytes.subarray(0, 200).toString('latin1'))?.[1];
  if (named) {
    try {
      return new TextDecoder(named).encoding;
    } catch {
      // A charset TextDecoder does not know: UTF-8, its wrong bytes replaced.
    }
  }
  return 'utf-8';
}

/** A wait as people read it in a reason: whole seconds, rounded up. */
function seconds(ms: number): string {
  return `${formatCount(Math.ceil(ms / 1000))} s`;
}
