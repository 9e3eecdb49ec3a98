/**
 * The controlled vocabularies DCAT-AP asks for: the EU Publications Office's authority tables
 * (languages, countries, access rights, file types, data themes) and IANA's media types. A value
 * the archive cannot map is left out rather than guessed: DCAT-AP's validator rejects a dct:format
 * outside the file-type table, but not a missing one.
 */
import { ASSET_TYPES, type AssetType } from '../../domain/constants.ts';

const AUTHORITY = 'http://publications.europa.eu/resource/authority';

/** Spanish, in the EU language table. */
export const SPANISH = `${AUTHORITY}/language/SPA`;
/** The Dominican Republic, in the EU country table. */
export const DOMINICAN_REPUBLIC = `${AUTHORITY}/country/DOM`;
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
