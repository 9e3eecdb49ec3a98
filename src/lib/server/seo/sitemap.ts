/**
 * The sitemap (sitemaps.org protocol 0.9): one `/sitemap.xml` while the archive has at most 50,000
 * URLs, the protocol's limit per file; past that, `/sitemap.xml` becomes an index of
 * `/sitemap-1.xml`, `/sitemap-2.xml`, … each holding 50,000.
 */
import { absoluteUrl } from '../../paths.ts';
import type { Db } from '../db/index.ts';
import { sitemapEntries, sitemapSize, type SitemapEntry } from '../queries/sitemap.ts';

/** The protocol's limit of URLs in one sitemap file. */
export const SITEMAP_MAX_URLS = 50_000;

/** Headers for every sitemap response: XML, and cacheable, since crawlers come often. */
export const SITEMAP_HEADERS = {
  'Content-Type': 'application/xml; charset=utf-8',
  'Cache-Control': 'public, max-age=3600',
} as const;

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe inside an XML element (the protocol requires `&` in URLs as `&amp;`). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => XML_ENTITIES[char] ?? char);
}

const HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** A `<urlset>` of `entries`, with absolute URLs on `origin`. */
export function urlsetXml(entries: readonly SitemapEntry[], origin: string): string {
  const urls = entries.map(
    (entry) =>
      `<url><loc>${escapeXml(absoluteUrl(origin, entry.path))}</loc>${entry.lastmod ? `<lastmod>${entry.lastmod.toISOString()}</lastmod>` : ''}</url>\n`,
  );
  return `${HEADER}<urlset xmlns="${NAMESPACE}">\n${urls.join('')}</urlset>\n`;
}

/** A `<sitemapindex>` of the files `/sitemap-1.xml` to `/sitemap-{files}.xml`. */
export function sitemapIndexXml(files: number, origin: string): string {
  const items = Array.from(
    { length: files },
    (_, index) => `<sitemap><loc>${escapeXml(absoluteUrl(origin, `/sitemap-${index + 1}.xml`))}</loc></sitemap>\n`,
  );
  return `${HEADER}<sitemapindex xmlns="${NAMESPACE}">\n${items.join('')}</sitemapindex>\n`;
}

/** How many files `total` URLs need. */
export function sitemapFileCount(total: number, perFile: number = SITEMAP_MAX_URLS): number {
  return Math.ceil(total / perFile);
}

/** The body of `/sitemap.xml`: every URL, or the index of the files once they do not fit in one. */
export async function renderSitemap(db: Db, origin: string, perFile: number = SITEMAP_MAX_URLS): Promise<string> {
  const total = await sitemapSize(db);
  if (total > perFile) return sitemapIndexXml(sitemapFileCount(total, perFile), origin);
  return urlsetXml(await sitemapEntries(db, { offset: 0, limit: perFile }), origin);
}

/**
 * The body of `/sitemap-{n}.xml`, or null when there is no such file (n is not a whole number from 1
 * to the number of files). An archive small enough for one file still answers `/sitemap-1.xml`.
 */
export async function renderSitemapFile(
  db: Db,
  origin: string,
  n: string | undefined,
  perFile: number = SITEMAP_MAX_URLS,
): Promise<string | null> {
  if (!n || !/^[1-9]\d{0,8}$/.test(n)) return null;
  const file = Number(n);
  if (file > sitemapFileCount(await sitemapSize(db), perFile)) return null;
  return urlsetXml(await sitemapEntries(db, { offset: (file - 1) * perFile, limit: perFile }), origin);
}
