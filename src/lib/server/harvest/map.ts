/**
 * From a catalogue's dataset to the archive's records (issue #18). Pure: no database here.
 *
 * Each distribution becomes a record of its own, because the archive's record holds one file (its
 * CID, its type, its previews, its place on the gateway). A dataset's records are kept together by
 * the dataset identifier in `harvested_records`; their title is the dataset's, followed by the
 * distribution's name (or its format) when the dataset has several, so the records of one dataset
 * can be told apart in a list.
 *
 * A dataset with no file to fetch (no distribution with a web URL, or none at all) is still an
 * entry of the catalogue, and becomes one record that describes it, with every format it declares:
 * separate records would only repeat the same description without anything to tell them apart.
 * Its key is its first distribution's: when that distribution has an identifier of its own (CKAN's
 * resource id, a DCAT distribution's IRI) and the catalogue later gives it a URL, the same record
 * goes on and gets the file. A distribution known only by its position (`#1`, as in the seed's
 * export) cannot be followed that way: its URL becomes a new record's key, and the described-only
 * record is marked withdrawn from the catalogue.
 *
 * The identity of a record is (harvest source, dataset identifier, distribution key): the key is
 * the distribution's own identifier, else its URL, else its position in the dataset. CKAN, DCAT
 * and data.json of one portal name the same identifiers, so the same records come out whatever
 * the kind read.
 */
import path from 'node:path';
import type { AssetType } from '../../domain/constants.ts';
import { normalizeFormat, normalizeFormats, primaryFormat } from '../../domain/formats.ts';
import { firstCharacters, foldLabel } from '../../domain/text.ts';
import { FIELD_MAX } from '../../domain/upload.ts';
import { truncate } from '../../text.ts';
import { cleanFileName } from '../content-type.ts';
import type { CatalogueFacts } from '../db/catalogue-facts.ts';
import type { CatalogDataset, CatalogDistribution, CatalogTheme } from './catalogs/index.ts';

/**
 * One record a dataset's distribution becomes, before it meets the database, with what a researcher
 * cites as the catalogue states it for the dataset (`CatalogueFacts`).
 */
export interface MappedRecord extends CatalogueFacts {
  distributionKey: string;
  /** The URL to capture, or null when the catalogue gave none usable, or gave a service's. */
  url: string | null;
  /** The address of the service (an API) the catalogue offers it as, which is no file to capture. */
  apiEndpoint: string | null;
  title: string;
  description: string | null;
  /** The dataset's page on its portal. */
  sourceUrl: string | null;
  /** The format the catalogue declares, normalised; the capture checks it against the bytes. */
  type: AssetType;
  /** Every format the record is offered in: its own, or all of a dataset's for a dataset without files. */
  formats: AssetType[];
  declaredFormat: string | null;
  declaredSize: number | null;
  /** `algorithm:value`, as `harvested_records` and `captures` keep it. */
  declaredChecksum: string | null;
  /** Who says `languages` and `spatial`: the dataset's catalogue, its source's settings (`SourceDefaults`), or nobody. */
  saidBy: { languages: FactSayer; spatial: FactSayer };
}

export type FactSayer = 'catalogue' | 'source' | null;

/** Keywords kept per record, and characters per keyword: tags, not a second description. */
const MAX_KEYWORDS = 50;
const MAX_KEYWORD_LENGTH = 100;
/**
 * Characters kept of a frequency, a contact's name or a coverage in words: a label or an IRI,
 * not a second description (a frequency IRI is far shorter; a longer one is not one worth keeping whole).
 */
const MAX_FACT_LENGTH = 300;

/**
 * A record's title, held to what a contributor may write (`FIELD_MAX.title`): a catalogue's title
 * of thousands of characters would be every list's row, every page's heading and its `<title>`.
 * A cut part ends in an ellipsis, so a reader knows there was more (the catalogue has it whole).
 * Nothing is cut that fits. The dataset's title gives way first, down to `MIN_DATASET_TITLE`,
 * then the distribution's name, never what tells it from its siblings: what is left still names
 * the dataset and tells its records apart.
 */
export function recordTitle(datasetTitle: string, distribution?: SiblingName): string {
  if (!distribution) return truncate(datasetTitle, FIELD_MAX.title);
  const { name, tell } = distribution;
  const whole = `${datasetTitle}${SEPARATOR}${name}${tell}`;
  if (whole.length <= FIELD_MAX.title) return whole;
  const room = FIELD_MAX.title - SEPARATOR.length - tell.length;
  const shown = truncate(name, Math.max(room - MIN_DATASET_TITLE, room - datasetTitle.length));
  return `${truncate(datasetTitle, room - shown.length)}${SEPARATOR}${shown}${tell}`;
}

const SEPARATOR = ': ';
/** Characters of a dataset's title kept, at least, when a distribution's name is long too. */
const MIN_DATASET_TITLE = 100;
/** Characters of a declared format that tells two distributions of the same name apart: a label, not a sentence. */
const MAX_FORMAT_IN_NAME = 30;

/** `text` cut at `max` characters (whole code points). */
function bounded(text: string | null, max: number): string | null {
  if (text === null) return null;
  const cut = firstCharacters(text, max);
  return cut === text ? text : cut.trim();
}

/**
 * What its source says of a catalogue's datasets that do not say it themselves (a moderator's
 * setting, `harvest_sources.default_language` / `default_country`): the EU tables' IRIs, or null.
 */
export interface SourceDefaults {
  language: string | null;
  country: string | null;
}

const NO_DEFAULTS: SourceDefaults = { language: null, country: null };

/** The records of `dataset`: one per distribution with a file, or one for a dataset without any. */
export function mapDataset(dataset: CatalogDataset, defaults: SourceDefaults = NO_DEFAULTS): MappedRecord[] {
  // A catalogue that lists one distribution twice gets one record.
  const keys = new Set<string>();
  const unique = dataset.distributions.flatMap((distribution, index) => {
    const key = distributionKey(distribution, index);
    if (keys.has(key)) return [];
    keys.add(key);
    return [{ distribution, index, key }];
  });
  // A service keeps a record of its own, as a file does: one per distribution, whatever it is.
  if (!unique.some(({ distribution }) => distribution.url !== null)) return [describedOnly(dataset, defaults)];
  const names = siblingNames(dataset, unique);
  return unique.map(({ distribution, key }, position) => {
    const type = normalizeFormat(formatLabel(distribution));
    return {
      ...datasetFacts(dataset, defaults),
      distributionKey: key,
      url: fileUrl(distribution),
      apiEndpoint: isService(distribution) ? distribution.url : null,
      title: recordTitle(dataset.title, unique.length > 1 ? names[position] : undefined),
      type,
      formats: [type],
      declaredFormat: distribution.format ?? distribution.mediaType,
      declaredSize: distribution.byteSize,
      declaredChecksum: distribution.checksum ? `${distribution.checksum.algorithm}:${distribution.checksum.value}` : null,
    };
  });
}

/** Formats that name a service rather than a document: an API, a map or feature server, an endpoint. */
const SERVICE_FORMAT = /^(api|rest|json api|web service|geoservice|geoservicio|arcgis( rest| map| feature)?( service)?|esri rest|ogc api|wms|wfs|wmts|wcs|sparql( endpoint)?)$/i;

/**
 * A distribution the catalogue offers as a service (an API, a map server) rather than a file:
 * asking its address for a document gets a service's page, or a 404, every run. Its declared
 * format says so; CKAN's «api» type alone only when it declares no format at all, since HDX gives
 * it to every linked file (CSV, GeoJSON, zipped shapefiles), which are documents to capture.
 */
function isService(distribution: CatalogDistribution): boolean {
  const format = distribution.format?.trim() ?? '';
  if (SERVICE_FORMAT.test(format)) return true;
  return distribution.apiHint === true && !format && !distribution.mediaType && !(distribution.url && extensionOf(distribution.url));
}

/** The address to capture a distribution's file from: none for a service. */
function fileUrl(distribution: CatalogDistribution): string | null {
  return isService(distribution) ? null : distribution.url;
}

function distributionKey(distribution: CatalogDistribution, index: number): string {
  return distribution.identifier ?? distribution.url ?? `#${index + 1}`;
}

/** The one record of a dataset that offers no file to fetch: what the catalogue says of it. */
function describedOnly(dataset: CatalogDataset, defaults: SourceDefaults): MappedRecord {
  const labels = dataset.distributions.flatMap((distribution) => {
    const label = formatLabel(distribution);
    return label ? [label] : [];
  });
  const first = dataset.distributions[0];
  return {
    ...datasetFacts(dataset, defaults),
    distributionKey: first ? distributionKey(first, 0) : '#1',
    url: null,
    apiEndpoint: null,
    title: recordTitle(dataset.title),
    type: primaryFormat(labels),
    formats: normalizeFormats(labels),
    declaredFormat: labels.length ? [...new Set(labels)].join(', ') : null,
    declaredSize: null,
    declaredChecksum: null,
  };
}

/** What every record of a dataset shares. */
function datasetFacts(dataset: CatalogDataset, defaults: SourceDefaults) {
  const declared = (values: string[], otherwise: string | null) => (values.length > 0 ? values : otherwise ? [otherwise] : []);
  const sayer = (values: string[], otherwise: string | null): FactSayer => (values.length > 0 ? 'catalogue' : otherwise ? 'source' : null);
  return {
    description: dataset.description,
    sourceUrl: dataset.landingPage,
    issued: dataset.issued,
    modified: dataset.modified,
    licenseTitle: dataset.license?.title ?? null,
    licenseUrl: dataset.license?.url ?? null,
    keywords: dataset.keywords.slice(0, MAX_KEYWORDS).map((keyword) => bounded(keyword, MAX_KEYWORD_LENGTH) ?? keyword),
    updateFrequency: bounded(dataset.updateFrequency, MAX_FACT_LENGTH),
    contactName: bounded(dataset.contact?.name ?? null, MAX_FACT_LENGTH),
    contactEmail: dataset.contact?.email ?? null,
    temporalStart: dataset.temporal?.start ?? null,
    temporalEnd: dataset.temporal?.end ?? null,
    temporalText: bounded(dataset.temporal?.text ?? null, MAX_FACT_LENGTH),
    // Sorted: a graph gives its values in no order, and a new order is no change.
    // A dataset's own declaration first, else what its source says of all of them.
    languages: declared(dataset.languages, defaults.language).slice(0, MAX_KEYWORDS).sort(),
    spatial: declared(dataset.spatial, defaults.country)
      .slice(0, MAX_KEYWORDS)
      .map((place) => bounded(place, MAX_FACT_LENGTH) ?? place)
      .sort(),
    saidBy: { languages: sayer(dataset.languages, defaults.language), spatial: sayer(dataset.spatial, defaults.country) },
  };
}

/**
 * What tells one distribution from its siblings: its title, else its format, else its file's name
 * in its URL (`presupuesto-2024.csv`, not the last segment of an API's or a page's path), else its number.
 */
function distributionName(dataset: CatalogDataset, distribution: CatalogDistribution, index: number): string {
  const title = distribution.title?.trim();
  if (title && title !== dataset.title) return title;
  const fileName = distribution.url ? fileNameOf(distribution.url) : null;
  return distribution.format ?? (fileName && /\.[A-Za-z0-9]{2,5}$/.test(fileName) ? fileName : `archivo ${index + 1}`);
}

/** A distribution's name in its record's title, and what tells it from a sibling of the same name (` (CSV)`, ` (4)`). */
export interface SiblingName {
  name: string;
  tell: string;
}

/**
 * The names of a dataset's distributions, told apart: portals often give the CSV, XLSX and ODS of
 * one table the same title, so a name shared by several gets its format, and a name still shared
 * (same title, same format) its number. Kept apart from the name, so that cutting a long name
 * (`recordTitle`) never cuts what tells it apart.
 */
function siblingNames(dataset: CatalogDataset, siblings: ReadonlyArray<{ distribution: CatalogDistribution; index: number }>): SiblingName[] {
  const countOf = (list: string[]) => list.reduce((counts, name) => counts.set(name, (counts.get(name) ?? 0) + 1), new Map<string, number>());
  const base = siblings.map(({ distribution, index }) => distributionName(dataset, distribution, index));
  const baseCounts = countOf(base);
  const withFormat = base.map((name, position) => {
    const declared = siblings[position]!.distribution.format?.trim();
    const format = declared ? truncate(declared, MAX_FORMAT_IN_NAME) : null;
    return { name, tell: baseCounts.get(name)! > 1 && format && format !== name ? ` (${format})` : '' };
  });
  const counts = countOf(withFormat.map(({ name, tell }) => name + tell));
  return withFormat.map(({ name, tell }, position) => ({ name, tell: counts.get(name + tell)! > 1 ? `${tell} (${siblings[position]!.index + 1})` : tell }));
}

/**
 * The label a distribution's format is read from: the first that names a format the archive
 * knows of its declared format (`CSV`, or a media type written there, `text/csv`, as some CKAN
 * publishers do), its media type, and its URL's extension (a DCAT distribution without
 * `dct:format`); else what it declares, if anything.
 */
function formatLabel(distribution: Pick<CatalogDistribution, 'format' | 'mediaType' | 'url'>): string | null {
  const candidates = [
    distribution.format?.includes('/') ? formatOfMediaType(distribution.format) : distribution.format,
    formatOfMediaType(distribution.mediaType),
    distribution.url ? extensionOf(distribution.url) : null,
  ];
  return candidates.find((label) => label && normalizeFormat(label) !== 'other') ?? distribution.format ?? formatOfMediaType(distribution.mediaType);
}

/** The extension of a URL's last path segment (`…/nomina.csv?x=1` → `csv`), if it has one. */
function extensionOf(url: string): string | null {
  const segment = URL.canParse(url) ? new URL(url).pathname.split('/').pop() ?? '' : '';
  return /\.([A-Za-z0-9]{2,5})$/.exec(segment)?.[1] ?? null;
}

/** `text/csv` → `csv`: a label `normalizeFormat` reads, for a distribution that declares only a media type. */
function formatOfMediaType(mediaType: string | null): string | null {
  if (!mediaType) return null;
  const subtype = mediaType.split(';')[0]!.split('/')[1]?.trim() ?? '';
  if (subtype === 'vnd.openxmlformats-officedocument.spreadsheetml.sheet') return 'xlsx';
  if (subtype === 'vnd.ms-excel') return 'xls';
  if (subtype === 'vnd.oasis.opendocument.spreadsheet') return 'ods';
  return subtype || null;
}

export { foldLabel };

export interface CategoryChoice {
  /** The harvest source's map: a theme's identifier or label → category id. */
  themeMap: Readonly<Record<string, number>>;
  /** Our categories by folded title. */
  categoryByTitle: ReadonlyMap<string, number>;
  defaultCategoryId: number | null;
}

/**
 * The category of a dataset: its first theme the source's `themeMap` names (by identifier, then
 * label), else its first theme whose label is the title of one of our categories (a portal whose
 * groups the archive already has), else the source's default category.
 */
export function chooseCategory(themes: readonly CatalogTheme[], choice: CategoryChoice): number | null {
  for (const theme of themes) {
    // Own keys only: a theme called `constructor` must not find Object's.
    const lookup = (key: string | null) => (key !== null && Object.hasOwn(choice.themeMap, key) ? choice.themeMap[key] : undefined);
    const mapped = lookup(theme.identifier) ?? lookup(theme.label);
    if (typeof mapped === 'number' && Number.isInteger(mapped)) return mapped;
  }
  for (const theme of themes) {
    const byTitle = choice.categoryByTitle.get(foldLabel(theme.label ?? theme.identifier));
    if (byTitle !== undefined) return byTitle;
  }
  return choice.defaultCategoryId;
}

/**
 * What a harvested record's provenance note says of its origin; the capture itself is shown from
 * its own row (`captures`), so once captured the note names the catalogue alone.
 */
export function catalogueNote(source: { name: string; url: string }, file: 'pending' | 'no-url' | 'captured'): string {
  const origin = `Metadatos cosechados del catálogo «${source.name}» (${source.url}).`;
  if (file === 'pending') return `${origin} El archivo todavía no se ha capturado.`;
  if (file === 'no-url') return `${origin} El catálogo no indica una dirección de descarga del archivo.`;
  return origin;
}

/**
 * A record's file name, from the last segment of a URL: the harvest names a record's file after
 * the URL its catalogue gives, and the capture after the URL that answered (the same one, unless
 * it redirected).
 */
export function fileNameOf(url: string): string {
  let segment: string;
  try {
    segment = decodeURIComponent(path.posix.basename(new URL(url).pathname));
  } catch {
    // A malformed escape (`%E9` of a Latin-1 URL): the name is not worth failing the capture for.
    segment = '';
  }
  return cleanFileName(segment || 'archivo');
}
