/**
 * The controlled vocabularies DCAT-AP asks for: the EU Publications Office's authority tables
 * (languages, countries, access rights, file types, data themes) and IANA's media types. A value
 * the archive cannot map is left out rather than guessed: DCAT-AP's validator rejects a dct:format
 * outside the file-type table, but not a missing one.
 */
import { ASSET_TYPES, type AssetType } from '../../domain/constants.ts';
import { KNOWN_LANGUAGES } from '../harvest/catalogs/values.ts';

const AUTHORITY = 'http://publications.europa.eu/resource/authority';

/** Spanish, in the EU language table. */
export const SPANISH = `${AUTHORITY}/language/SPA`;
/** The Dominican Republic, in the EU country table. */
export const DOMINICAN_REPUBLIC = `${AUTHORITY}/country/DOM`;
const LANGUAGE_TABLE = `${AUTHORITY}/language/`;
const COUNTRY_TABLE = `${AUTHORITY}/country/`;

/**
 * A language of the EU table as a BCP 47 tag (`…/language/SPA` → `es`: ICU gives ISO 639-3 codes
 * their two-letter form where there is one), for schema.org's `inLanguage`; null for another IRI.
 */
export function languageTag(iri: string): string | null {
  if (!iri.startsWith(LANGUAGE_TABLE)) return null;
  try {
    return Intl.getCanonicalLocales(iri.slice(LANGUAGE_TABLE.length).toLowerCase())[0] ?? null;
  } catch {
    return null;
  }
}

const LANGUAGE_NAMES = new Intl.DisplayNames(['es'], { type: 'language', fallback: 'none' });
const REGION_NAMES = new Intl.DisplayNames(['es'], { type: 'region', fallback: 'none' });

/** A language of the EU table by its Spanish name («español», «criollo haitiano»); null for another IRI. */
export function languageName(iri: string): string | null {
  const tag = languageTag(iri);
  return tag ? (LANGUAGE_NAMES.of(tag) ?? null) : null;
}

/**
 * The EU country table names countries by ISO 3166-1 alpha-3, which Intl does not read: the
 * alpha-2 codes of the countries a Spanish-language catalogue is likely to name. Any other is
 * shown by its code, linked to its entry in the table.
 */
const ALPHA2: Readonly<Record<string, string>> = {
  DOM: 'DO', HTI: 'HT', CUB: 'CU', PRI: 'PR', JAM: 'JM', MEX: 'MX', GTM: 'GT', BLZ: 'BZ', HND: 'HN', SLV: 'SV', NIC: 'NI',
  CRI: 'CR', PAN: 'PA', COL: 'CO', VEN: 'VE', ECU: 'EC', PER: 'PE', BOL: 'BO', CHL: 'CL', ARG: 'AR', URY: 'UY', PRY: 'PY',
  BRA: 'BR', GNQ: 'GQ', ESP: 'ES', PRT: 'PT', FRA: 'FR', ITA: 'IT', DEU: 'DE', GBR: 'GB', USA: 'US', CAN: 'CA',
};

/** A country of the EU table by its Spanish name, or its code when Intl cannot name it. */
function countryName(code: string): string {
  const alpha2 = ALPHA2[code];
  return (alpha2 && REGION_NAMES.of(alpha2)) || code;
}

/**
 * The country `value` names, as the EU table's IRI: its ISO 3166-1 alpha-3 code (`DOM`) or that
 * IRI, among the countries of `ALPHA2`; null for anything else.
 */
export function countryIri(value: string): string | null {
  const code = (value.startsWith(COUNTRY_TABLE) ? value.slice(COUNTRY_TABLE.length) : value).trim().toUpperCase();
  return Object.hasOwn(ALPHA2, code) ? `${COUNTRY_TABLE}${code}` : null;
}

/** The alpha-3 code of a country of the EU table (`DOM`); null for another value. */
export function countryCode(iri: string): string | null {
  return iri.startsWith(COUNTRY_TABLE) ? iri.slice(COUNTRY_TABLE.length) : null;
}

/** The languages the archive knows (`KNOWN_LANGUAGES`) by BCP 47 tag and Spanish name, in Spanish order: a moderator's choices for a catalogue that declares none. */
export function languageChoices(): Array<{ code: string; name: string }> {
  return KNOWN_LANGUAGES.map((iri) => ({ code: languageTag(iri) ?? iri, name: languageName(iri) ?? iri })).sort((a, b) => a.name.localeCompare(b.name, 'es'));
}

/** The countries of `ALPHA2` by Spanish name, in Spanish order: a moderator's choices for a catalogue that declares none. */
export function countryChoices(): Array<{ code: string; name: string }> {
  return Object.keys(ALPHA2)
    .map((code) => ({ code, name: countryName(code) }))
    .sort((a, b) => a.name.localeCompare(b.name, 'es'));
}

/**
 * A place a catalogue declared, as a record page names it: a country of the EU table by its
 * Spanish name, another address by the address, a place's name as written; `url` is its address.
 */
export function placeName(place: string): { name: string; url: string | null } {
  if (!/^https?:\/\//i.test(place)) return { name: place, url: null };
  const code = countryCode(place);
  if (code !== null) return { name: countryName(code), url: place };
  return { name: place, url: place };
}

/**
 * The languages of a record's data as the archive states them (DCAT's `dct:language`, schema.org's
 * `inLanguage`): for a harvested one, what its catalogue declared or its source's settings gave
 * (none when neither did: a Chilean or an English catalogue's datasets are not the archive's to
 * call Spanish); for an upload, Spanish, as the archive's contributions are.
 */
export function statedLanguages(record: { harvested: boolean; languages: readonly string[] }): readonly string[] {
  return record.harvested ? record.languages : [SPANISH];
}

/** The areas a record covers as the archive states them: as `statedLanguages`, and the Dominican Republic for an upload. */
export function statedAreas(record: { harvested: boolean; spatial: readonly string[] }): readonly string[] {
  return record.harvested ? record.spatial : [DOMINICAN_REPUBLIC];
}

/** Public access (Ley 200-04), in the EU access-right table. */
export const PUBLIC_ACCESS = `${AUTHORITY}/access-right/PUBLIC`;
/** ADMS's status of a catalogue record whose dataset its catalogue no longer lists (DCAT-AP's `adms:status` of a `dcat:CatalogRecord`). */
export const ADMS_WITHDRAWN = 'http://purl.org/adms/status/Withdrawn';
/** The EU data-theme table, which DCAT-AP wants every catalogue to list among its taxonomies. */
export const EU_DATA_THEMES = `${AUTHORITY}/data-theme`;

/** A format in the EU file-type table (its code is in `ASSET_TYPES`); `other` has none. */
export function fileTypeIri(type: AssetType): string | undefined {
  const code = ASSET_TYPES[type].euFileType;
  return code ? `${AUTHORITY}/file-type/${code}` : undefined;
}

/** `type/subtype` as RFC 6838 restricts their names. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The IANA registry IRI of a file's media type (parameters dropped), or of its format's usual one. */
export function mediaTypeIri(mimeType: string | null, type: AssetType): string | undefined {
  const stated = mimeType?.split(';', 1)[0]?.trim().toLowerCase();
  const essence = stated && MEDIA_TYPE.test(stated) ? stated : ASSET_TYPES[type].mediaType;
  return essence ? `http://www.iana.org/assignments/media-types/${essence}` : undefined;
}

/**
 * The portal's eleven themes (datos.gob.do) in the EU data-theme table, where one fits: harvesters
 * in Europe (data.europa.eu, datos.gob.es) file datasets by these. PIDA, a regional initiative
 * rather than a subject, has none.
 */
const DATA_THEMES: Record<string, string> = {
  'Gestión Pública': 'GOVE',
  'Sociedad y bienestar': 'SOCI',
  Economía: 'ECON',
  Salud: 'HEAL',
  Educación: 'EDUC',
  Urbanismo: 'REGI',
  'Medio Ambiente': 'ENVI',
  'Ciencia y tecnología': 'TECH',
  Legislación: 'JUST',
  Electoral: 'GOVE',
};

export function euDataThemeIri(categoryTitle: string): string | undefined {
  const code = DATA_THEMES[categoryTitle];
  return code ? `${EU_DATA_THEMES}/${code}` : undefined;
}
