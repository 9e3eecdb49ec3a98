/**
 * data.json catalogues (DCAT-US 1.1, Project Open Data), as Argentina's Andino portals and many US
 * agencies publish them: one JSON document with a `dataset` array. The document is not paged; the
 * reader still yields it in pages of `pageSize` datasets, so a runner treats every kind alike.
 * Andino adds a `themeTaxonomy` (ids with labels), which names the `theme` codes of its datasets.
 *
 * The whole document is parsed at once and held in memory while its datasets are yielded: it is
 * bounded by `CatalogPageLimits.maxPageBytes` (50 MB by default, the catalogue fetcher's limit too),
 * past which it is refused with the reason. Andino's catalogues are a few megabytes; a portal whose
 * data.json is larger (data.gov's) is better harvested through its CKAN API, a page at a time.
 */
import { arrayOf, isObject, kindHint, parseJsonPage } from './body.ts';
import { CatalogReadError } from './errors.ts';
import { pageLimits } from './limits.ts';
import { DEFAULT_PAGE_SIZE, type CatalogDataset, type CatalogPage, type CatalogPublisher, type FetchedPage, type FetchPage, type ReadOptions } from './types.ts';
import { cleanChecksum, cleanContact, cleanDate, cleanFileSize, cleanKeywords, cleanLanguage, cleanSpatial, cleanTemporal, cleanText, cleanUrl, distinct, vocabularyCode } from './values.ts';
import { readPages } from './paging.ts';

/** Every dataset of a data.json catalogue, in pages of `pageSize`. */
export async function* readDataJsonCatalog(catalogUrl: string, fetchPage: FetchPage, { pageSize = DEFAULT_PAGE_SIZE, maxPages, limits }: ReadOptions = {}): AsyncGenerator<CatalogPage> {
  // One fetch through the shared paging (its error wrapping and limits); the document has no next.
  const parse = (fetched: FetchedPage, url: string) => parseDataJson(parseJsonPage(fetched, url, 'un catálogo data.json'), url);
  for await (const page of readPages(catalogUrl, fetchPage, parse, { maxPages, maxPageBytes: pageLimits(limits).maxPageBytes })) {
    const chunks = Math.max(1, Math.ceil(page.datasets.length / pageSize));
    for (let index = 0; index < chunks; index++) {
      yield {
        ...page,
        number: index + 1,
        datasets: page.datasets.slice(index * pageSize, (index + 1) * pageSize),
        skipped: index === 0 ? page.skipped : [],
        repeated: index === 0 ? page.repeated : [],
      };
    }
  }
}

function parseDataJson(json: unknown, url: string) {
  if (!isObject(json) || !Array.isArray(json.dataset)) {
    throw new CatalogReadError('wrong-kind', url, `${url} no es un catálogo data.json (falta la lista "dataset").${kindHint(json, 'datajson')}`);
  }
  const themeLabels = new Map<string, string>();
  for (const theme of arrayOf(json.themeTaxonomy)) {
    const id = isObject(theme) ? cleanText(theme.id) : null;
    const label = isObject(theme) ? cleanText(theme.label) : null;
    if (id && label) themeLabels.set(id, label);
  }
  const datasets: CatalogDataset[] = [];
  const skipped: string[] = [];
  for (const item of json.dataset) {
    const dataset = isObject(item) ? dataJsonDataset(item, themeLabels) : null;
    if (dataset) datasets.push(dataset);
    else skipped.push(`Un conjunto de ${url} no tiene identifier: no se puede identificar.`);
  }
  return { datasets, total: datasets.length + skipped.length, skipped, next: null };
}

function dataJsonDataset(item: Record<string, unknown>, themeLabels: Map<string, string>): CatalogDataset | null {
  const identifier = cleanText(item.identifier);
  if (!identifier) return null;
  const license = cleanText(item.license);
  const licenseUrl = cleanUrl(license);
  return {
    identifier,
    landingPage: cleanUrl(item.landingPage),
    title: cleanText(item.title) ?? identifier,
    description: cleanText(item.description),
    issued: cleanDate(item.issued),
    modified: cleanDate(item.modified),
    license: license ? { title: licenseUrl ? null : license, url: licenseUrl } : null,
    keywords: cleanKeywords(item.keyword),
    // DCAT-US writes an ISO 8601 repeating period (`R/P1M`) or `irregular`; Andino the same.
    updateFrequency: cleanText(item.accrualPeriodicity),
    contact: isObject(item.contactPoint) ? cleanContact(item.contactPoint.fn, item.contactPoint.hasEmail) : null,
    // An ISO 8601 interval, `2017-01-01/2017-12-31`.
    temporal: cleanTemporal(null, null, item.temporal),
    // DCAT-US: `language` a list of RFC 5646 tags (`es-AR`), `spatial` a place's name, an IRI or a box.
    languages: distinct((typeof item.language === 'string' ? item.language.split(',') : arrayOf(item.language)).map(cleanLanguage)),
    spatial: distinct([cleanSpatial(item.spatial)]),
    publisher: publisherOf(item.publisher),
    themes: distinct(arrayOf(item.theme).map(cleanText)).map((theme) => ({ identifier: theme, label: themeLabels.get(theme) ?? theme })),
    distributions: arrayOf(item.distribution)
      .filter(isObject)
      .map((distribution) => {
        const download = cleanUrl(distribution.downloadURL);
        const access = cleanUrl(distribution.accessURL);
        const url = download ?? access;
        return {
          identifier: cleanText(distribution.identifier),
          url,
          accessUrl: access !== url ? access : null,
          title: cleanText(distribution.title),
          format: vocabularyCode(distribution.format, 'format'),
          mediaType: vocabularyCode(distribution.mediaType, 'mediaType'),
          byteSize: cleanFileSize(distribution.byteSize),
          checksum: cleanChecksum(distribution.checksum),
        };
      }),
  };
}

/** DCAT-US 1.1 states the publisher as an object; 1.0 as a name. */
function publisherOf(value: unknown): CatalogPublisher | null {
  const name = isObject(value) ? cleanText(value.name) : cleanText(value);
  if (!name) return null;
  return {
    identifier: isObject(value) ? cleanText(value['@id']) ?? cleanText(value.identifier) : null,
    name,
    homepage: isObject(value) ? cleanUrl(value.homepage) ?? cleanUrl(value.url) : null,
    acronym: isObject(value) ? cleanText(value.acronym) : null,
  };
}
