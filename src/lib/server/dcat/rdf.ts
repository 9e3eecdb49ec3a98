/**
 * A small RDF model for the catalogue: resources with their properties, built once and written as
 * both JSON-LD and Turtle, so the two documents state the same graph by construction.
 */

import { declaredDate } from '../../domain/calendar-day.ts';

export const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  spdx: 'http://spdx.org/rdf/terms#',
  adms: 'http://www.w3.org/ns/adms#',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
} as const;

export const rdf = { type: `${NS.rdf}type` } as const;
export const rdfs = { label: `${NS.rdfs}label` } as const;
export const xsd = {
  string: `${NS.xsd}string`,
  date: `${NS.xsd}date`,
  dateTime: `${NS.xsd}dateTime`,
  decimal: `${NS.xsd}decimal`,
  hexBinary: `${NS.xsd}hexBinary`,
} as const;
export const dcat = {
  Catalog: `${NS.dcat}Catalog`,
  Dataset: `${NS.dcat}Dataset`,
  Distribution: `${NS.dcat}Distribution`,
  CatalogRecord: `${NS.dcat}CatalogRecord`,
  dataset: `${NS.dcat}dataset`,
  record: `${NS.dcat}record`,
  distribution: `${NS.dcat}distribution`,
  themeTaxonomy: `${NS.dcat}themeTaxonomy`,
  theme: `${NS.dcat}theme`,
  keyword: `${NS.dcat}keyword`,
  landingPage: `${NS.dcat}landingPage`,
  accessURL: `${NS.dcat}accessURL`,
  downloadURL: `${NS.dcat}downloadURL`,
  mediaType: `${NS.dcat}mediaType`,
  byteSize: `${NS.dcat}byteSize`,
  contactPoint: `${NS.dcat}contactPoint`,
  startDate: `${NS.dcat}startDate`,
  endDate: `${NS.dcat}endDate`,
} as const;
export const dct = {
  title: `${NS.dct}title`,
  description: `${NS.dct}description`,
  identifier: `${NS.dct}identifier`,
  issued: `${NS.dct}issued`,
  modified: `${NS.dct}modified`,
  publisher: `${NS.dct}publisher`,
  language: `${NS.dct}language`,
  spatial: `${NS.dct}spatial`,
  accessRights: `${NS.dct}accessRights`,
  rights: `${NS.dct}rights`,
  format: `${NS.dct}format`,
  isVersionOf: `${NS.dct}isVersionOf`,
  source: `${NS.dct}source`,
  accrualPeriodicity: `${NS.dct}accrualPeriodicity`,
  temporal: `${NS.dct}temporal`,
  license: `${NS.dct}license`,
  RightsStatement: `${NS.dct}RightsStatement`,
  LicenseDocument: `${NS.dct}LicenseDocument`,
  Location: `${NS.dct}Location`,
  PeriodOfTime: `${NS.dct}PeriodOfTime`,
  Frequency: `${NS.dct}Frequency`,
} as const;
export const foaf = {
  Agent: `${NS.foaf}Agent`,
  name: `${NS.foaf}name`,
  homepage: `${NS.foaf}homepage`,
  primaryTopic: `${NS.foaf}primaryTopic`,
} as const;
export const skos = {
  ConceptScheme: `${NS.skos}ConceptScheme`,
  Concept: `${NS.skos}Concept`,
  prefLabel: `${NS.skos}prefLabel`,
  definition: `${NS.skos}definition`,
  inScheme: `${NS.skos}inScheme`,
  notation: `${NS.skos}notation`,
} as const;
export const spdx = {
  Checksum: `${NS.spdx}Checksum`,
  checksum: `${NS.spdx}checksum`,
  algorithm: `${NS.spdx}algorithm`,
  checksumValue: `${NS.spdx}checksumValue`,
  checksumAlgorithm_sha256: `${NS.spdx}checksumAlgorithm_sha256`,
} as const;
export const adms = {
  Identifier: `${NS.adms}Identifier`,
  identifier: `${NS.adms}identifier`,
  schemaAgency: `${NS.adms}schemaAgency`,
  status: `${NS.adms}status`,
} as const;

export const vcard = {
  Kind: `${NS.vcard}Kind`,
  fn: `${NS.vcard}fn`,
  hasEmail: `${NS.vcard}hasEmail`,
} as const;

export interface NamedNode {
  kind: 'iri';
  value: string;
}

export interface Literal {
  kind: 'literal';
  value: string;
  /** A language tag, or '' for a typed literal. */
  language: string;
  datatype: string;
}

/** A node with its types and properties; without an id it is a blank node, written in place. */
export interface Resource {
  kind: 'resource';
  id: string | null;
  types: string[];
  properties: Array<[predicate: string, objects: RdfObject[]]>;
  /**
   * Statements that have this node as their object (`subject predicate this`), written with it:
   * a dataset carries the catalogue record about it (`foaf:primaryTopic`), which carries the
   * catalogue's `dcat:record` link, so each is read and written with its dataset, page by page.
   * Only a node with an id can be the object of a statement written elsewhere (Turtle).
   */
  reverse: Array<[predicate: string, subjects: Array<NamedNode | Resource>]>;
}

export type RdfObject = NamedNode | Literal | Resource;

/** The language of the archive's text. */
export const LANGUAGE_TAG = 'es';

export function iri(value: string): NamedNode {
  return { kind: 'iri', value };
}

/** Spanish text: titles, descriptions, names, labels. */
export function text(value: string): Literal {
  return { kind: 'literal', value, language: LANGUAGE_TAG, datatype: '' };
}

/**
 * Words in `language` (a BCP 47 tag), or a plain string when their language is not known: a
 * harvested record's title, in whatever language its catalogue wrote it.
 */
export function textIn(value: string, language: string | null): Literal {
  return language ? { kind: 'literal', value, language, datatype: '' } : plain(value);
}

/** A plain string (identifiers, codes): no language. */
export function plain(value: string): Literal {
  return typed(value, xsd.string);
}

export function typed(value: string, datatype: string): Literal {
  return { kind: 'literal', value, language: '', datatype };
}

export function dateTime(value: Date): Literal {
  return typed(value.toISOString(), xsd.dateTime);
}

/** A calendar date (`YYYY-MM-DD`, as the records keep coverage dates): a day, with no zone to shift it. */
export function date(value: string): Literal {
  return typed(value, xsd.date);
}

/** A date an original's catalogue declared: a day when it gave a day (`calendar-day.ts`), else the instant. */
export function originDate(value: Date): Literal {
  const declared = declaredDate(value);
  return typeof declared === 'string' ? date(declared) : dateTime(declared);
}

type Values<T> = T | ReadonlyArray<T | undefined> | undefined;

/** A map of predicate IRIs to values as entries, in the order given, absent values left out. */
function entriesOf<T>(values: Record<string, Values<T>>): Array<[string, T[]]> {
  const entries: Array<[string, T[]]> = [];
  for (const [predicate, value] of Object.entries(values)) {
    const objects = (Array.isArray(value) ? value : [value]).filter((item): item is T => item !== undefined);
    if (objects.length > 0) entries.push([predicate, objects]);
  }
  return entries;
}

/**
 * A resource from a map of predicate IRIs to values, in the order given; absent values (undefined,
 * or empty lists) leave their property out, so an unknown fact is missing rather than empty.
 * `reverse` maps predicates to the subjects that state them of this resource (see `Resource`).
 */
export function resource(
  id: string | null,
  types: string[],
  properties: Record<string, Values<RdfObject>>,
  reverse: Record<string, Values<NamedNode | Resource>> = {},
): Resource {
  const reversed = entriesOf(reverse);
  if (reversed.length > 0 && !id) throw new Error('A resource stated as the object of another needs an IRI.');
  return { kind: 'resource', id, types, properties: entriesOf(properties), reverse: reversed };
}

/** Characters an IRI may not hold in Turtle (IRIREF) nor, unescaped, in any RDF syntax. */
const UNSAFE_IRI_CHARACTERS = /[\u0000-\u0020<>"{}|^`\\\u007f]/g;

/** `text` with each character `unsafe` matches percent-encoded (UTF-8 bytes). */
function percentEncode(text: string, unsafe: RegExp): string {
  return text.replace(unsafe, (character) =>
    [...new TextEncoder().encode(character)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/**
 * An absolute http(s) URL from text someone typed (a source page, an issuer's website), as an IRI
 * that every syntax can carry: parsed and normalised by the URL standard, with what remains
 * unsafe percent-encoded. Anything else (other schemes, not a URL) gives undefined.
 */
export function webIri(raw: string | null | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return percentEncode(url.href, UNSAFE_IRI_CHARACTERS);
}
