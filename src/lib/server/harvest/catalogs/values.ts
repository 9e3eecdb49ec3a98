/**
 * Cleaning what catalogues declare, the same way for every kind: text trimmed (blank is absent),
 * URLs as absolute http(s) IRIs with spaces and other unsafe characters percent-encoded (CKAN
 * resource URLs are typed by hand and often hold spaces), dates, byte counts and checksums.
 */
import { calendarDayDate, calendarDayOf } from '../../../domain/calendar-day.ts';
import { publishableContact, publishableEmail } from '../../../domain/contact-point.ts';
import { firstCharacters, stripControls } from '../../../domain/text.ts';
import { webIri } from '../../dcat/rdf.ts';
import { arrayOf } from './body.ts';
import type { CatalogChecksum, CatalogContact, CatalogTemporal } from './types.ts';

/**
 * Most characters kept of one declared text. A catalogue is not trusted more than a contributor:
 * a 50 MB title or a publisher name built to make a regular expression backtrack stops here.
 */
export const MAX_TEXT_CHARS = 10_000;

/**
 * Trimmed text without control, format and bidi characters (as uploads store theirs), cut at
 * `MAX_TEXT_CHARS`; null for anything blank or not a string.
 */
export function cleanText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const visible = stripControls((value.length > 4 * MAX_TEXT_CHARS ? value.slice(0, 4 * MAX_TEXT_CHARS) : value).toWellFormed());
  const trimmed = firstCharacters(visible.trim(), MAX_TEXT_CHARS).trim();
  return trimmed === '' ? null : trimmed;
}

/** An absolute http(s) URL, percent-encoded where needed, resolved against `base` when relative. */
export function cleanUrl(value: unknown, base?: string): string | null {
  const text = cleanText(value);
  if (!text) return null;
  if (base) {
    try {
      return webIri(new URL(text, base).href) ?? null;
    } catch {
      return null;
    }
  }
  return webIri(text) ?? null;
}

/**
 * A date a catalogue declares: a calendar day (`calendarDayText`, kept as `calendarDayDate` keeps
 * one) or an ISO 8601 date-time; a date-time without a zone is UTC (CKAN writes its times so).
 * Anything else is no date rather than a wrong one.
 */
export function cleanDate(value: unknown): Date | null {
  const text = cleanText(value);
  if (!text) return null;
  const day = calendarDayText(text);
  if (day) return validDay(day) ? calendarDayDate(day) : null;
  const instant = ISO_INSTANT.exec(text);
  if (instant) {
    if (!validDay(instant[1]!)) return null;
    // Zone-less: UTC, as CKAN writes its times. A zone without its colon (`-0400`, `+00`) gets one.
    const zone = instant[3] ? instant[3].replace(/^([+-]\d{2})(\d{2})?$/, (_all, hours: string, minutes?: string) => `${hours}:${minutes ?? '00'}`) : 'Z';
    const date = new Date(`${instant[1]}T${instant[2]}${zone}`);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  // RFC 1123, as HTTP dates and some feeds write them: `Fri, 05 Mar 2021 12:00:00 GMT`.
  if (HTTP_DATE.test(text)) {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}

/** An ISO 8601 date-time (`T` or a space between): its day, its time and its zone. */
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}(?::\d{2})? (?:GMT|UTC|[+-]\d{4})$/;

/** Whether `YYYY-MM-DD` is a day of the calendar (not 30 February). */
function validDay(day: string): boolean {
  const date = calendarDayDate(day);
  return !Number.isNaN(date.getTime()) && calendarDayOf(date) === day;
}

/**
 * The `YYYY-MM-DD` a text gives as a calendar day: ISO's (with a zone, as `xsd:date` may carry
 * one, or with slashes), a year or a month alone (its first day), or the day first as Spanish
 * writes it (`5/3/2021`, `05-03-2021`: 5 March). Nothing else is guessed: JavaScript's own parser
 * reads `05/03/2021` as 3 May and `"12"` as 2001.
 */
function calendarDayText(text: string): string | null {
  const pad = (n: string) => n.padStart(2, '0');
  let match = /^(\d{4})[-/](\d{2})[-/](\d{2})(?:Z|[+-]\d{2}:\d{2})?$/.exec(text);
  if (match) return `${match[1]}-${match[2]}-${match[3]}`;
  match = /^(\d{4})(?:-(\d{2}))?$/.exec(text);
  if (match) return `${match[1]}-${match[2] ?? '01'}-01`;
  match = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  if (match) return `${match[3]}-${pad(match[2]!)}-${pad(match[1]!)}`;
  return null;
}

/** A whole, non-negative number of bytes from a number or numeric text (`"151040"`, `151040.0`). */
export function cleanByteSize(value: unknown): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.0+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : null;
}

/**
 * A file's declared size: a `cleanByteSize` above zero. Portals write 0 for "not known" (HDX's API
 * links, CKAN resources whose size nobody filled in); taken at its word, every such file would be
 * reported as not matching its catalogue once captured.
 */
export function cleanFileSize(value: unknown): number | null {
  const size = cleanByteSize(value);
  return size !== null && size > 0 ? size : null;
}

/** Where controlled vocabularies put formats and media types: the code is the IRI's last part. */
const VOCABULARY_CODES = { format: /\/file-type\/([^/]+)$/, mediaType: /\/media-types\/([^/]+\/[^/]+)$/ } as const;

/** What a vocabulary code names: a format (the EU's file types) or a media type (IANA's). */
export type VocabularyKind = keyof typeof VOCABULARY_CODES;

/**
 * A format or a media type as declared: text, or the code a vocabulary IRI ends in (the EU's file
 * types, `…/authority/file-type/CSV`; IANA's media types, `…/assignments/media-types/text/csv`),
 * as DCAT-AP catalogues and ckanext-dcat's CKAN fields write them. Null for blank or non-text.
 */
export function vocabularyCode(value: unknown, kind: VocabularyKind): string | null {
  const text = cleanText(value);
  const coded = text ? VOCABULARY_CODES[kind].exec(text)?.[1] : undefined;
  if (!coded) return text;
  try {
    return decodeURIComponent(coded);
  } catch {
    // One badly escaped code (`%E0%A4%A`) must not fail the whole catalogue: kept as written.
    return coded;
  }
}

/** `SHA-256`, `sha256`, spdx's `checksumAlgorithm_sha256` → `sha256`. */
export function algorithmName(value: string): string {
  return value
    .replace(/^.*checksumAlgorithm_/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** The algorithm a bare hexadecimal digest's length implies. */
const ALGORITHM_BY_HEX_LENGTH: Record<number, string> = { 32: 'md5', 40: 'sha1', 64: 'sha256', 128: 'sha512' };

/**
 * A checksum from a declared algorithm and hexadecimal value; without an algorithm (CKAN's `hash`
 * is free text: `sha256:…`, `md5:…` or a bare digest), the prefix or the digest's length names it.
 */
export function cleanChecksum(rawValue: unknown, rawAlgorithm?: string | null): CatalogChecksum | null {
  let value = cleanText(rawValue);
  if (!value) return null;
  let algorithm = rawAlgorithm ? algorithmName(rawAlgorithm) : null;
  const prefixed = /^([A-Za-z0-9-]+):([0-9A-Fa-f]+)$/.exec(value);
  if (prefixed) {
    algorithm ??= algorithmName(prefixed[1]!);
    value = prefixed[2]!;
  }
  if (!/^[0-9A-Fa-f]+$/.test(value)) return null;
  algorithm ??= ALGORITHM_BY_HEX_LENGTH[value.length] ?? null;
  return algorithm ? { algorithm, value: value.toLowerCase() } : null;
}

/**
 * Keywords as a list of texts (DCAT-US, CKAN tags given as names), or as one comma-separated
 * string, as some portals write them; distinct, blanks dropped.
 */
export function cleanKeywords(value: unknown): string[] {
  const list = typeof value === 'string' ? value.split(',') : arrayOf(value);
  return distinct(list.map(cleanText));
}

/** Distinct values, first occurrence first, blanks dropped. */
export function distinct(values: Array<string | null>): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}

/**
 * An e-mail address from what a catalogue declares (`datos@x.gob.do`, vCard's `mailto:datos@x.gob.do`,
 * with or without `?subject=`); null for anything that is not one ("N/A", a web page, a name).
 */
export function cleanEmail(value: unknown): string | null {
  let text = cleanText(value);
  if (!text) return null;
  if (/^mailto:/i.test(text)) {
    text = text.slice('mailto:'.length).split('?')[0]!;
    try {
      text = decodeURIComponent(text);
    } catch {
      // Badly escaped: judged as written.
    }
    text = text.trim();
  }
  // The rule every reader of a stored address applies again.
  return publishableEmail(text);
}

/** A contact point as the archive publishes it (`publishableContact`), or null when it has neither a name nor an address. */
export function cleanContact(name: unknown, email: unknown): CatalogContact | null {
  return publishableContact(cleanText(name), cleanEmail(email));
}

const pad = (number: number, width = 2) => String(number).padStart(width, '0');

/**
 * A calendar date (`YYYY-MM-DD`) from a declared date, date-time, month (`2017-03`) or year
 * (`2017`): a month or a year stands for its first day as a `start` and its last as an `end`. A
 * date-time's own date is kept as written, not moved to another zone: a coverage is days, not
 * instants. Null for anything else, and for dates that do not exist (`2017-02-30`).
 */
export function cleanCalendarDate(value: unknown, side: 'start' | 'end'): string | null {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : cleanText(value);
  if (!text) return null;
  const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ]\d{2}:\d{2}.*)?)?)?$/.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const month = match[2] === undefined ? (side === 'start' ? 1 : 12) : Number(match[2]);
  // Day 0 of the next month is the last of this one.
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const day = match[3] === undefined ? (side === 'start' ? 1 : lastDay) : Number(match[3]);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > lastDay) return null;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/**
 * A temporal coverage from declared start and end dates and/or a text. A text that is dates — an
 * ISO 8601 interval (`2017-01-01/2017-12-31`, data.json's form) or one date or year — becomes
 * them; any other text is kept as written, as are start or end values that are not dates.
 * Null when nothing is declared.
 */
export function cleanTemporal(startValue: unknown, endValue: unknown, textValue?: unknown): CatalogTemporal | null {
  let start = cleanCalendarDate(startValue, 'start');
  let end = cleanCalendarDate(endValue, 'end');
  const undated = [start ? null : cleanText(startValue), end ? null : cleanText(endValue)];
  let text = cleanText(textValue);
  if (text && !start && !end) {
    const [from, to, ...rest] = text.split('/').map((part) => part.trim());
    const [fromDate, toDate] = [cleanCalendarDate(from, 'start'), cleanCalendarDate(to ?? from, 'end')];
    // `..` is ISO 8601-2's open end: a coverage still running.
    const open = (part: string | undefined) => part === '..' || part === '';
    if (rest.length === 0 && (fromDate || open(from)) && (toDate || (to !== undefined && open(to))) && (fromDate || toDate)) {
      [start, end, text] = [fromDate, toDate, null];
    }
  }
  const [undatedStart, undatedEnd] = undated;
  text ??= undatedStart && undatedEnd ? `${undatedStart} – ${undatedEnd}` : undatedStart ? `Desde ${undatedStart}` : undatedEnd ? `Hasta ${undatedEnd}` : null;
  return start || end || text ? { start, end, text } : null;
}

/** The EU's language authority table (DCAT-AP's vocabulary for `dct:language`), as its IRIs begin. */
export const EU_LANGUAGE_NS = 'http://publications.europa.eu/resource/authority/language/';

/**
 * ISO 639-1 codes, the bibliographic ISO 639-2 codes that differ from the terminological ones, and
 * the languages' own names in Spanish and English, as the EU table's code (ISO 639-3). A
 * three-letter code is read only when it is one of these codes (`sin` is also a Spanish word).
 */
const LANGUAGE_CODES: Readonly<Record<string, string>> = {
  es: 'SPA', en: 'ENG', pt: 'POR', fr: 'FRA', de: 'DEU', it: 'ITA', ca: 'CAT', eu: 'EUS', gl: 'GLG', nl: 'NLD',
  ht: 'HAT', qu: 'QUE', gn: 'GRN', ay: 'AYM', zh: 'ZHO', ja: 'JPN', ru: 'RUS', ar: 'ARA',
  // The two-letter codes of the languages below known only by their bibliographic codes: what a
  // BCP 47 tag (schema.org, the archive's own API) names them by.
  fa: 'FAS', cs: 'CES', el: 'ELL', ro: 'RON', sk: 'SLK', sq: 'SQI', hy: 'HYE', ka: 'KAT', is: 'ISL', mk: 'MKD', mi: 'MRI', ms: 'MSA',
  my: 'MYA', bo: 'BOD', cy: 'CYM',
  fre: 'FRA', ger: 'DEU', dut: 'NLD', baq: 'EUS', chi: 'ZHO', per: 'FAS', esp: 'SPA', cze: 'CES', gre: 'ELL', rum: 'RON',
  slo: 'SLK', alb: 'SQI', arm: 'HYE', geo: 'KAT', ice: 'ISL', mac: 'MKD', mao: 'MRI', may: 'MSA', bur: 'MYA', tib: 'BOD', wel: 'CYM',
  espanol: 'SPA', castellano: 'SPA', spanish: 'SPA', ingles: 'ENG', english: 'ENG', portugues: 'POR', portuguese: 'POR',
  frances: 'FRA', french: 'FRA', catalan: 'CAT', euskera: 'EUS', gallego: 'GLG', criollo: 'HAT', creole: 'HAT',
};

/** The EU table's codes the archive knows: those `LANGUAGE_CODES` leads to. */
const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(LANGUAGE_CODES));

/** The languages the archive knows, as the EU table's IRIs: a moderator's choices for a catalogue that declares none. */
export const KNOWN_LANGUAGES: readonly string[] = [...KNOWN_CODES].map((code) => `${EU_LANGUAGE_NS}${code}`);

/**
 * A language a catalogue declares, as the EU table's IRI: that IRI itself, a code (`es`, `es-AR`,
 * `spa`) or an IRI that ends in one (lexvo's, the Library of Congress's), or a language's name
 * (`Español`); null for anything else, rather than a guess.
 */
export function cleanLanguage(value: unknown): string | null {
  const text = cleanText(value);
  if (!text || text.length > 200) return null;
  if (text.toLowerCase().startsWith(EU_LANGUAGE_NS) || text.toLowerCase().startsWith(EU_LANGUAGE_NS.replace('http:', 'https:'))) {
    const code = (text.split('/').pop() ?? '').toUpperCase();
    return KNOWN_CODES.has(code) ? `${EU_LANGUAGE_NS}${code}` : null;
  }
  // An IRI's last segment (`http://lexvo.org/id/iso639-3/spa`, `http://id.loc.gov/vocabulary/iso639-1/es`).
  const word = (/^https?:\/\//i.test(text) ? (text.split(/[/#]/).pop() ?? '') : text).normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const primary = word.split(/[-_]/, 1)[0]!;
  const code = LANGUAGE_CODES[primary] ?? (KNOWN_CODES.has(primary.toUpperCase()) ? primary.toUpperCase() : undefined);
  return code ? `${EU_LANGUAGE_NS}${code}` : null;
}

/**
 * The area a dataset covers, as a catalogue declares it: a web IRI (a country of the EU's table, a
 * GeoNames place) or a place's name; not a bounding box or a geometry (GeoJSON, WKT), which name
 * no place a reader would recognise, nor another scheme's IRI. Null for those and for anything blank.
 */
export function cleanSpatial(value: unknown): string | null {
  const text = cleanText(value);
  if (!text || text.length > 500) return null;
  if (/^https?:\/\//i.test(text)) return cleanUrl(text);
  // Another scheme's IRI (`urn:`, `javascript:`): no place, and no web address.
  if (/^(urn|javascript|data|file|ftp|mailto|tel|vbscript):/i.test(text)) return null;
  // `{"type": "Polygon", …}`, `POLYGON((…))`, `-71.9,17.5,-68.3,19.9`.
  if (/^[{[]/.test(text) || /^(POINT|POLYGON|MULTIPOLYGON|LINESTRING|ENVELOPE)\b/i.test(text) || /^[-\d.,\s]+$/.test(text)) return null;
  return text;
}
