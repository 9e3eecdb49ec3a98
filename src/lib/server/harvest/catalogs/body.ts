/**
 * Reading a catalogue page's body as JSON, with the error a moderator can act on when the address
 * gives something else: most often an HTML page (the portal's home, a login or error page).
 */
import { CatalogReadError } from './errors.ts';
import type { CatalogKind, FetchedPage } from './types.ts';
import { formatCount } from '../../../text.ts';

/** True when the page is HTML (or XML) by its Content-Type or by its first character. */
export function looksLikeMarkup(page: FetchedPage): boolean {
  const type = page.contentType?.toLowerCase() ?? '';
  return type.includes('html') || page.body.trimStart().startsWith('<');
}

/** The body without a leading byte-order mark. */
export function bodyText(page: FetchedPage): string {
  return page.body.charCodeAt(0) === 0xfeff ? page.body.slice(1) : page.body;
}

/**
 * The page parsed as JSON. `expected` names what should be there ("la respuesta de la API de
 * CKAN"), for the error message.
 */
export function parseJsonPage(page: FetchedPage, url: string, expected: string): unknown {
  if (looksLikeMarkup(page)) {
    throw new CatalogReadError('wrong-kind', url, `${url} devolvió una página HTML, no ${expected}. Revise la dirección y el tipo del catálogo.`);
  }
  const text = bodyText(page);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogReadError('wrong-kind', url, `La respuesta de ${url} no es JSON válido (${whereJsonBreaks(error, text)}), así que no es ${expected}.`, { cause: error });
  }
}

/**
 * Where JSON.parse stopped, in Spanish. Its own message is English and quotes the body, which may
 * be anything (binary, NUL characters): neither goes into a reason a moderator reads.
 */
function whereJsonBreaks(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : '';
  const position = /position (\d+)/.exec(message)?.[1];
  if (/end of JSON input/i.test(message) || (position !== undefined && Number(position) >= text.trimEnd().length)) return 'acaba antes de tiempo';
  return position ? `falla en el carácter ${formatCount(Number(position) + 1)}` : 'no se puede leer';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `value` when it is an array; a lone value as a list of one (a data.json's `"theme": "economia"`,
 * a `distribution` written as one object); an empty list for nothing (catalogues leave lists out
 * or null them).
 */
export function arrayOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === null || value === undefined ? [] : [value];
}

/** A hint when the JSON, read as a `reading` catalogue, looks like another kind of catalogue. */
export function kindHint(json: unknown, reading: CatalogKind): string {
  if (!isObject(json)) return '';
  const looksLike: CatalogKind | null = looksLikeDataJson(json) ? 'datajson' : '@context' in json || '@graph' in json ? 'dcat' : isObject(json.result) ? 'ckan' : null;
  if (looksLike === null || looksLike === reading) return '';
  return ` ${KIND_HINTS[looksLike]}`;
}

/**
 * A list of datasets with no JSON-LD context, or with DCAT-US's (ArcGIS Hub names it, and states
 * `conformsTo` its schema): compact DCAT JSON-LD may have a `dataset` list too.
 */
function looksLikeDataJson(json: Record<string, unknown>): boolean {
  if (!Array.isArray(json.dataset)) return false;
  const projectOpenData = (value: unknown) => typeof value === 'string' && value.includes('project-open-data');
  return !('@context' in json) || projectOpenData(json['@context']) || projectOpenData(json.conformsTo);
}

const KIND_HINTS: Readonly<Record<CatalogKind, string>> = {
  datajson: 'Parece un data.json: elija el tipo data.json.',
  dcat: 'Parece JSON-LD: elija el tipo DCAT.',
  ckan: 'Parece una respuesta de la API de CKAN: elija el tipo CKAN.',
};
