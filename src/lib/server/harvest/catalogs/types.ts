/**
 * What a harvester reads from any public catalogue, whatever its kind: one normalised shape, so the
 * mapping to records, departments, categories and files to capture is written once. Every field is
 * what the catalogue declares, cleaned (trimmed text, absolute http(s) URLs, dates, byte counts) but
 * not interpreted: finding the department, the category or the real type of a file is the mapping's
 * and the capture's job.
 */
import type { CatalogPageLimits } from './limits.ts';

/** The public catalogue formats the archive harvests. */
export const CATALOG_KINDS = {
  ckan: { label: 'CKAN (API de acciones, package_search)' },
  dcat: { label: 'DCAT-AP (JSON-LD, Turtle o RDF/XML, con paginación Hydra)' },
  datajson: { label: 'data.json (DCAT-US 1.1, portales Andino)' },
} as const;

export type CatalogKind = keyof typeof CATALOG_KINDS;

/** One page of a catalogue, as the injected fetcher got it. */
export interface FetchedPage {
  body: string;
  /** The Content-Type header, or null when the server sent none. */
  contentType: string | null;
}

/**
 * Gets one page of a catalogue. The runner passes the archive's safe fetcher (address policy,
 * timeouts, size limit); tests pass a fetch of their local portal. It answers a successful response
 * only: an HTTP error, a refused address or a timeout is a rejection with its reason.
 */
export type FetchPage = (url: string) => Promise<FetchedPage>;

export interface CatalogPublisher {
  /** The catalogue's own id of the organisation (CKAN's organisation id, the publisher's IRI in DCAT). */
  identifier: string | null;
  name: string;
  /** The organisation's website, when the catalogue states one. */
  homepage: string | null;
  /** An acronym the catalogue states as such (never guessed from the name here). */
  acronym: string | null;
}

export interface CatalogTheme {
  /** The catalogue's id of the theme or group (CKAN group id, theme IRI, data.json theme code). */
  identifier: string;
  /** Its label, when the catalogue gives one. */
  label: string | null;
}

export interface CatalogChecksum {
  /** Lower-case algorithm name as declared (`sha256`, `sha1`, `md5`…). */
  algorithm: string;
  /** The digest as declared, lower-case. */
  value: string;
}

export interface CatalogLicense {
  title: string | null;
  url: string | null;
}

/** Whom to ask about a dataset: its contact point (DCAT's vcard, CKAN's maintainer or author). */
export interface CatalogContact {
  name: string | null;
  /** An e-mail address, without `mailto:`; null when what was declared is not one. */
  email: string | null;
}

/**
 * The period a dataset's data covers. `start` and `end` are calendar dates (`YYYY-MM-DD`): a year
 * declared alone covers it all (`2017` is 2017-01-01 to 2017-12-31). `text` is what the catalogue
 * wrote when it is not dates ("Desde 2010", "Primer trimestre").
 */
export interface CatalogTemporal {
  start: string | null;
  end: string | null;
  text: string | null;
}

export interface CatalogDistribution {
  /** The catalogue's own id of the resource or distribution, when it has one. */
  identifier: string | null;
  /** What to capture: the download URL, else the access URL, percent-encoded; null when neither is a web URL. */
  url: string | null;
  /** The access URL when it differs from `url` (a page about the file rather than the file). */
  accessUrl: string | null;
  title: string | null;
  /** The declared format label (`CSV`, `XLSX`…), as written: possibly dirty, possibly wrong. */
  format: string | null;
  /** The declared media type (`text/csv`). */
  mediaType: string | null;
  /** The declared size in bytes. */
  byteSize: number | null;
  checksum: CatalogChecksum | null;
  /**
   * The catalogue calls it an API (CKAN's resource type `api`, HDX's `url_type`). On some portals
   * that only means a linked rather than an uploaded file, so it decides nothing alone: see
   * `isService` in `map.ts`. False when not said.
   */
  apiHint?: boolean;
}

export interface CatalogDataset {
  /** The catalogue's own identifier: with the harvest source, the dataset's stable identity. */
  identifier: string;
  /** The dataset's page on its portal (becomes `source_url`). */
  landingPage: string | null;
  /** The title, or the identifier when the catalogue declares none. */
  title: string;
  description: string | null;
  issued: Date | null;
  modified: Date | null;
  license: CatalogLicense | null;
  keywords: string[];
  /** How often the catalogue says it is updated, as declared: a word ("Mensual"), a frequency IRI, an ISO 8601 period (`R/P1M`). */
  updateFrequency: string | null;
  contact: CatalogContact | null;
  temporal: CatalogTemporal | null;
  /** The languages of its data, as the EU table's IRIs (`cleanLanguage`); what is not one is left out. */
  languages: string[];
  /** The areas it covers: IRIs (a country of the EU's table, a GeoNames place) or places' names (`cleanSpatial`). */
  spatial: string[];
  publisher: CatalogPublisher | null;
  themes: CatalogTheme[];
  distributions: CatalogDistribution[];
}

/** One page of datasets, as the readers yield them. */
export interface CatalogPage {
  /** The URL this page was read from. */
  url: string;
  /** 1 for the first page. */
  number: number;
  datasets: CatalogDataset[];
  /** How many datasets the catalogue says it holds in all, when it says (CKAN `count`, `hydra:totalItems`). */
  total: number | null;
  /** Entries of this page that could not be read as datasets, each with its reason in Spanish. */
  skipped: string[];
  /**
   * Datasets this page lists again (read once, not yielded again): listed twice on this very page
   * (`samePage`), or already on an earlier one, which says the catalogue's pages moved while they
   * were read, and one dataset may have been missed.
   */
  repeated: Array<{ identifier: string; samePage: boolean }>;
}

/** How far a reader goes. */
export interface ReadOptions {
  /** What one page may cost; `DEFAULT_PAGE_LIMITS` for whatever is not given. */
  limits?: Partial<CatalogPageLimits>;
  /** Datasets asked for per page where the kind lets the reader choose (CKAN `rows`); data.json's chunks. */
  pageSize?: number;
  /** Pages read at most before the listing is abandoned as incomplete. */
  maxPages?: number;
}

export const DEFAULT_PAGE_SIZE = 100;
/** Enough for 100,000 datasets at CKAN's default page size; a larger portal sets its own. */
export const DEFAULT_MAX_PAGES = 1000;
