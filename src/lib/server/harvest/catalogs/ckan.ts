/**
 * CKAN's action API: `package_search` paged with `rows` and `start`, as datos.gob.do, datos.gob.cl,
 * datos.gob.mx, datos.gob.es and most Latin American portals run it. The catalogue URL may be the
 * portal's root (`https://datos.gob.do`) or its `package_search` endpoint, with filters of its own
 * (`?fq=organization:…`), which are kept.
 */
import { arrayOf, isObject, kindHint, parseJsonPage } from './body.ts';
import { CatalogReadError } from './errors.ts';
import { EU_FREQUENCY_NS } from './frequency.ts';
import { pageLimits } from './limits.ts';
import { readPages, type ParsedPage } from './paging.ts';
import { DEFAULT_PAGE_SIZE, type CatalogContact, type CatalogDataset, type CatalogPage, type CatalogPublisher, type FetchPage, type ReadOptions } from './types.ts';
import { cleanChecksum, cleanContact, cleanDate, cleanFileSize, cleanKeywords, cleanLanguage, cleanSpatial, cleanTemporal, cleanText, cleanUrl, distinct, vocabularyCode } from './values.ts';

const PACKAGE_SEARCH = /\/api\/(3\/)?action\/package_search\/?$/;

/** Where an organisation's website and acronym may be, as extras or (ckanext-scheming) fields. */
const WEBSITE_KEYS = ['website', 'homepage', 'url', 'sitio_web', 'web'];
const ACRONYM_KEYS = ['acronym', 'siglas', 'acronimo', 'acrónimo'];

/**
 * Where a package's update frequency may be: a field (ckanext-scheming, ckanext-dcat's harvested
 * `frequency`) or an extra, matched without case. datos.gob.do's publishers type it as an extra by
 * hand: `Periodicidad`, and also `Periocidad`.
 */
const FREQUENCY_KEYS = ['frequency', 'accrual_periodicity', 'periodicidad', 'periocidad', 'frecuencia'];
/**
 * HDX's `data_update_frequency`: a number of days («365»), or -1 for never, -2 for as needed and 0
 * for live data, as its dataset form offers them; named here by the EU table's codes.
 */
const HDX_FREQUENCY_DAYS: Readonly<Record<string, string>> = {
  '-2': 'IRREG',
  '-1': 'NEVER',
  '0': 'CONT',
  '1': 'DAILY',
  '7': 'WEEKLY',
  '14': 'BIWEEKLY',
  '30': 'MONTHLY',
  '90': 'QUARTERLY',
  '180': 'ANNUAL_2',
  '365': 'ANNUAL',
};
/** A temporal coverage's dates (ckanext-dcat's names) and a coverage stated in words. */
const TEMPORAL_START_KEYS = ['temporal_start'];
const TEMPORAL_END_KEYS = ['temporal_end'];
const TEMPORAL_TEXT_KEYS = ['temporal', 'cobertura_temporal', 'cobertura temporal'];

/** A last path segment with an extension names a document (`data.json`), not a portal's root. */
const NAMES_DOCUMENT = /\/[^/]*\.[A-Za-z0-9]+$/;

/**
 * The `package_search` URL for one page, from the catalogue's URL: the API path is added to a
 * portal's root, not to a URL naming a document, which is asked as it is (so a data.json
 * registered as CKAN gets "this looks like a data.json" rather than a 404).
 */
export function packageSearchUrl(catalogUrl: string, rows: number, start: number): string {
  const url = packageSearchEndpoint(catalogUrl);
  url.searchParams.set('rows', String(rows));
  url.searchParams.set('start', String(start));
  return url.href;
}

function packageSearchEndpoint(catalogUrl: string): URL {
  const url = new URL(catalogUrl);
  if (!PACKAGE_SEARCH.test(url.pathname) && !NAMES_DOCUMENT.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/3/action/package_search`;
  return url;
}

/**
 * The catalogue a CKAN URL names, however it is spelt: a portal's root and its `package_search`
 * address (with or without `/3/`, a trailing slash, or paging of its own) are one catalogue, and
 * only the filters of its query tell two apart.
 */
export function ckanCatalogIdentity(catalogUrl: string): string {
  const url = packageSearchEndpoint(catalogUrl);
  url.pathname = url.pathname.replace(/\/api\/(3\/)?action\/package_search\/?$/, '/api/3/action/package_search');
  url.searchParams.delete('rows');
  url.searchParams.delete('start');
  url.searchParams.sort();
  url.hash = '';
  return url.href;
}

/** Every dataset of a CKAN portal, a page of `pageSize` packages at a time. */
export function readCkanCatalog(catalogUrl: string, fetchPage: FetchPage, { pageSize = DEFAULT_PAGE_SIZE, maxPages, limits }: ReadOptions = {}): AsyncGenerator<CatalogPage> {
  return readPages(
    packageSearchUrl(catalogUrl, pageSize, 0),
    fetchPage,
    (page, url) => parseCkanPage(parseJsonPage(page, url, 'la respuesta JSON de la API de CKAN (package_search)'), url),
    { maxPages, maxPageBytes: pageLimits(limits).maxPageBytes },
  );
}

function parseCkanPage(json: unknown, url: string): ParsedPage {
  const result = isObject(json) ? json.result : undefined;
  if (isObject(json) && json.success === false) {
    const error = isObject(json.error) ? cleanText(json.error.message) ?? cleanText(json.error.__type) : null;
    throw new CatalogReadError('catalog-error', url, `El catálogo CKAN respondió con un error${error ? `: ${error}` : ''}.`);
  }
  if (!isObject(result) || !Array.isArray(result.results)) {
    throw new CatalogReadError('wrong-kind', url, `La respuesta de ${url} no es la de package_search de CKAN (falta result.results).${kindHint(json, 'ckan')}`);
  }
  const datasets: CatalogDataset[] = [];
  const skipped: string[] = [];
  const portal = new URL(url);
  portal.pathname = portal.pathname.replace(PACKAGE_SEARCH, '/');
  portal.search = '';
  for (const item of result.results) {
    const dataset = isObject(item) ? ckanDataset(item, portal.href) : null;
    if (dataset) datasets.push(dataset);
    else skipped.push(`Un paquete de ${url} no tiene id ni name: no se puede identificar.`);
  }
  const total = typeof result.count === 'number' ? result.count : null;
  const start = Number(new URL(url).searchParams.get('start') ?? 0);
  // From what came back rather than the rows asked for: CKAN caps rows (ckan.search.rows_max).
  const nextStart = start + result.results.length;
  const next = total !== null && nextStart < total ? packageSearchUrl(url, Number(new URL(url).searchParams.get('rows')), nextStart) : null;
  return { datasets, total, skipped, next };
}

/** HDX's frequency in days as the EU table's IRI; null for any other value. */
function hdxFrequency(days: unknown): string | null {
  // A number where a string was meant, as some exports write it.
  const code = HDX_FREQUENCY_DAYS[(typeof days === 'number' ? String(days) : cleanText(days)) ?? ''];
  return code ? `${EU_FREQUENCY_NS}${code}` : null;
}

function ckanDataset(item: Record<string, unknown>, portal: string): CatalogDataset | null {
  const id = cleanText(item.id);
  const name = cleanText(item.name);
  const identifier = id ?? name;
  if (!identifier) return null;
  const field = fieldReader(item);
  const resources = arrayOf(item.resources).filter(isObject);
  // ckanext-dcat's DCAT-AP schema states the licence on each resource, as DCAT-AP does.
  const resourceLicense = resources.map((resource) => cleanText(resource.license)).find((license) => license !== null) ?? null;
  const licenseTitle = cleanText(item.license_title) ?? (resourceLicense && !cleanUrl(resourceLicense) ? resourceLicense : null);
  const licenseUrl = cleanUrl(item.license_url) ?? cleanUrl(resourceLicense);
  // The same schema's lists of coverage periods, contacts and publishers: the first of each.
  const coverage = arrayOf(item.temporal_coverage).find(isObject);
  const placeIris = distinct(field.list(['spatial_uri'], { commas: false }).map(cleanSpatial));
  return {
    identifier,
    // ckanext-dcat's landing page is the package's `url` (its origin); without one, the portal's page.
    landingPage: cleanUrl(item.url) ?? cleanUrl(`dataset/${encodeURIComponent(name ?? identifier)}`, portal),
    title: cleanText(item.title) ?? name ?? identifier,
    description: cleanText(item.notes),
    // The dates the publisher declares (ckanext-dcat's `issued` and `modified`), else the portal's record's.
    issued: cleanDate(item.issued) ?? cleanDate(item.metadata_created),
    modified: cleanDate(item.modified) ?? cleanDate(item.metadata_modified),
    license: licenseTitle || licenseUrl ? { title: licenseTitle, url: licenseUrl } : null,
    // Tags as CKAN gives them (objects with a name), as names, or as one comma-separated string.
    keywords: cleanKeywords(typeof item.tags === 'string' ? item.tags : arrayOf(item.tags).map((tag) => (isObject(tag) ? (cleanText(tag.name) ?? tag.display_name) : tag))),
    updateFrequency: cleanText(field(FREQUENCY_KEYS)) ?? hdxFrequency(item.data_update_frequency),
    contact: ckanContact(item),
    temporal:
      cleanTemporal(field(TEMPORAL_START_KEYS), field(TEMPORAL_END_KEYS), field(TEMPORAL_TEXT_KEYS)) ?? (coverage ? cleanTemporal(coverage.start, coverage.end) : null),
    // ckanext-dcat's `language` (codes or the EU table's IRIs) and `spatial_uri` / `spatial_text`;
    // its `spatial` extra is a GeoJSON geometry, which names no place.
    languages: distinct(field.list(['language'], { commas: true }).map(cleanLanguage)),
    // The place's IRI, else its name: ckanext-dcat's two fields of one dct:Location.
    spatial: placeIris.length > 0 ? placeIris : distinct(field.list(['spatial_text'], { commas: false }).map(cleanSpatial)),
    publisher: (isObject(item.organization) ? ckanPublisher(item.organization) : null) ?? schemaPublisher(item.publisher),
    themes: [
      ...arrayOf(item.groups).flatMap((group) => {
        if (!isObject(group)) return [];
        const groupId = cleanText(group.id) ?? cleanText(group.name);
        return groupId ? [{ identifier: groupId, label: cleanText(group.title) ?? cleanText(group.display_name) ?? cleanText(group.name) }] : [];
      }),
      // ckanext-dcat's DCAT-AP schema: themes as IRIs (the EU's data themes), named nowhere in the package.
      ...distinct(arrayOf(item.theme).map((theme) => cleanUrl(theme))).map((theme) => ({ identifier: theme, label: null })),
    ],
    distributions: resources.map((resource) => ({
      identifier: cleanText(resource.id),
      // A resource uploaded to the portal may be given by its path alone (`/dataset/…/download/x.csv`).
      url: cleanUrl(resource.url, portal),
      accessUrl: null,
      title: cleanText(resource.name),
      format: vocabularyCode(resource.format, 'format'),
      mediaType: vocabularyCode(resource.mimetype, 'mediaType'),
      byteSize: cleanFileSize(resource.size),
      checksum: cleanChecksum(resource.hash),
      // CKAN's resource types: `file`, `file.upload`, `api`… HDX says `api` in `url_type`, for any linked file.
      apiHint: [resource.resource_type, resource.url_type].some((type) => cleanText(type)?.toLowerCase() === 'api'),
    })),
  };
}

/** Reads an object's fields and `extras` (keys matched without case or surrounding spaces). */
interface FieldReader {
  /** The first of `keys` it states, skipping blank values. */
  (keys: string[]): unknown;
  /**
   * Every value `keys` hold that may be several: a list, a JSON list in a string (as ckanext-dcat
   * keeps a list in an extra), or (`commas`) comma-separated text; else the text is one value (a
   * place's name has commas of its own: «Baní, Peravia»).
   */
  list(keys: string[], options: { commas: boolean }): unknown[];
}

function fieldReader(object: Record<string, unknown>): FieldReader {
  const extras = new Map<string, unknown>();
  for (const extra of arrayOf(object.extras)) {
    if (isObject(extra) && typeof extra.key === 'string') extras.set(extra.key.trim().toLowerCase(), extra.value);
  }
  const valueOf = (key: string) => object[key] ?? extras.get(key);
  const first = (keys: string[]) => keys.map(valueOf).find((value) => cleanText(value) !== null);
  return Object.assign(first, { list: (keys: string[], { commas }: { commas: boolean }) => keys.flatMap((key) => listValue(valueOf(key), commas)) });
}

/** One field's values, as `FieldReader.list` reads them. */
function listValue(value: unknown, commas: boolean): unknown[] {
  if (Array.isArray(value)) return value;
  const text = cleanText(value);
  if (!text) return [];
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Not JSON after all: read as text.
    }
  }
  return commas ? text.split(',') : [text];
}

/**
 * CKAN's contact for a package: its maintainer, else its author, each a name and an e-mail taken
 * as a pair (never the name of one with the address of the other). A maintainer without an address
 * gives way to an author with one: a contact is for writing to.
 */
/** A user's id where a name belongs (HDX's maintainer is its user's UUID): no one a reader can write to. */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function ckanContact(item: Record<string, unknown>): CatalogContact | null {
  const maintainerName = USER_ID.test(cleanText(item.maintainer) ?? '') ? null : item.maintainer;
  const maintainer = cleanContact(maintainerName, item.maintainer_email);
  const author = cleanContact(item.author, item.author_email);
  const listed = arrayOf(item.contact).find(isObject);
  return (maintainer && (maintainer.email || !author?.email) ? maintainer : author) ?? (listed ? cleanContact(listed.name, listed.email) : null);
}

/** ckanext-dcat's DCAT-AP schema's `publisher` list, for a package of no organisation: its first. */
function schemaPublisher(value: unknown): CatalogPublisher | null {
  const publisher = arrayOf(value).find(isObject);
  const name = publisher ? cleanText(publisher.name) : null;
  if (!publisher || !name) return null;
  return { identifier: cleanText(publisher.uri), name, homepage: cleanUrl(publisher.url), acronym: null };
}

function ckanPublisher(organization: Record<string, unknown>): CatalogPublisher | null {
  const name = cleanText(organization.title) ?? cleanText(organization.name);
  if (!name) return null;
  const field = fieldReader(organization);
  return {
    identifier: cleanText(organization.id) ?? cleanText(organization.name),
    name,
    homepage: cleanUrl(field(WEBSITE_KEYS)),
    acronym: cleanText(field(ACRONYM_KEYS)),
  };
}
