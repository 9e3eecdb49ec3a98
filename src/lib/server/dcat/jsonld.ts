/**
 * JSON-LD from the catalogue's resources, written as it streams. The context is inline (a harvester
 * never has to fetch one) and gives short names to the DCAT-AP properties with the coercions they
 * need (`"title": "…"` is Spanish text, `"landingPage": "https://…"` an IRI), so the document also
 * reads as plain JSON. A value that does not fit a short name's coercion keeps the prefixed
 * property and an explicit value object: the graph is the one the Turtle states, either way.
 *
 * Layout: `{"@context": …, "@graph": [described resources…, {catalogue…, "dataset": [datasets…]}]}`,
 * one node per line, the datasets embedded in the catalogue as they are read, each with the
 * catalogue record about it embedded in it (`"catalogRecord"`, a reverse property): the catalogue
 * node cannot take a second list while its datasets stream, and a record belongs with its dataset.
 */
import { dcat, dct, foaf, LANGUAGE_TAG, NS, rdfs, skos, spdx, vcard, xsd, type Literal, type RdfObject, type Resource } from './rdf.ts';
import type { CatalogGraph } from './catalog.ts';

type Coercion = { kind: 'iri' } | { kind: 'language' } | { kind: 'datatype'; datatype: string } | { kind: 'none' };

interface Term {
  name: string;
  iri: string;
  coercion: Coercion;
}

const IRI: Coercion = { kind: 'iri' };
const SPANISH: Coercion = { kind: 'language' };
const NONE: Coercion = { kind: 'none' };
const datatype = (value: string): Coercion => ({ kind: 'datatype', datatype: value });

const TERMS: readonly Term[] = [
  { name: 'title', iri: dct.title, coercion: SPANISH },
  { name: 'description', iri: dct.description, coercion: SPANISH },
  { name: 'identifier', iri: dct.identifier, coercion: NONE },
  { name: 'issued', iri: dct.issued, coercion: datatype(xsd.dateTime) },
  { name: 'modified', iri: dct.modified, coercion: datatype(xsd.dateTime) },
  { name: 'publisher', iri: dct.publisher, coercion: IRI },
  { name: 'language', iri: dct.language, coercion: IRI },
  { name: 'spatial', iri: dct.spatial, coercion: IRI },
  { name: 'accessRights', iri: dct.accessRights, coercion: IRI },
  { name: 'rights', iri: dct.rights, coercion: NONE },
  { name: 'format', iri: dct.format, coercion: IRI },
  { name: 'isVersionOf', iri: dct.isVersionOf, coercion: IRI },
  { name: 'accrualPeriodicity', iri: dct.accrualPeriodicity, coercion: IRI },
  { name: 'temporal', iri: dct.temporal, coercion: NONE },
  { name: 'dataset', iri: dcat.dataset, coercion: NONE },
  { name: 'distribution', iri: dcat.distribution, coercion: NONE },
  { name: 'themeTaxonomy', iri: dcat.themeTaxonomy, coercion: IRI },
  { name: 'theme', iri: dcat.theme, coercion: IRI },
  { name: 'keyword', iri: dcat.keyword, coercion: SPANISH },
  { name: 'landingPage', iri: dcat.landingPage, coercion: IRI },
  { name: 'accessURL', iri: dcat.accessURL, coercion: IRI },
  { name: 'downloadURL', iri: dcat.downloadURL, coercion: IRI },
  { name: 'mediaType', iri: dcat.mediaType, coercion: IRI },
  { name: 'byteSize', iri: dcat.byteSize, coercion: datatype(xsd.decimal) },
  { name: 'contactPoint', iri: dcat.contactPoint, coercion: NONE },
  { name: 'startDate', iri: dcat.startDate, coercion: datatype(xsd.date) },
  { name: 'endDate', iri: dcat.endDate, coercion: datatype(xsd.date) },
  { name: 'checksum', iri: spdx.checksum, coercion: NONE },
  { name: 'algorithm', iri: spdx.algorithm, coercion: IRI },
  { name: 'checksumValue', iri: spdx.checksumValue, coercion: datatype(xsd.hexBinary) },
  { name: 'name', iri: foaf.name, coercion: SPANISH },
  { name: 'homepage', iri: foaf.homepage, coercion: IRI },
  { name: 'fn', iri: vcard.fn, coercion: SPANISH },
  { name: 'hasEmail', iri: vcard.hasEmail, coercion: IRI },
  { name: 'prefLabel', iri: skos.prefLabel, coercion: SPANISH },
  { name: 'definition', iri: skos.definition, coercion: SPANISH },
  { name: 'inScheme', iri: skos.inScheme, coercion: IRI },
  { name: 'notation', iri: skos.notation, coercion: NONE },
  { name: 'label', iri: rdfs.label, coercion: SPANISH },
];

/**
 * Short names for statements written inside their object's node (`Resource.reverse`): a dataset's
 * `"catalogRecord"` is the record whose `foaf:primaryTopic` it is, and the record's `"inCatalog"`
 * the catalogue that lists it (`dcat:record`). Their values are node objects or IRIs.
 */
const REVERSE_TERMS: ReadonlyArray<{ name: string; iri: string }> = [
  { name: 'catalogRecord', iri: foaf.primaryTopic },
  { name: 'inCatalog', iri: dcat.record },
];

const TERM_BY_IRI = new Map(TERMS.map((term) => [term.iri, term]));
const REVERSE_TERM_BY_IRI = new Map(REVERSE_TERMS.map((term) => [term.iri, term]));
const PREFIXES = Object.entries(NS) as Array<[string, string]>;

/** The inline context: the namespaces as prefixes, then the short names. */
export const CATALOG_CONTEXT: Record<string, unknown> = {
  ...Object.fromEntries(PREFIXES),
  ...Object.fromEntries(
    TERMS.map((term) => {
      const id = compactIri(term.iri);
      const { coercion } = term;
      if (coercion.kind === 'iri') return [term.name, { '@id': id, '@type': '@id' }];
      if (coercion.kind === 'language') return [term.name, { '@id': id, '@language': LANGUAGE_TAG }];
      if (coercion.kind === 'datatype') return [term.name, { '@id': id, '@type': compactIri(coercion.datatype) }];
      return [term.name, id];
    }),
  ),
  ...Object.fromEntries(REVERSE_TERMS.map((term) => [term.name, { '@reverse': compactIri(term.iri), '@type': '@id' }])),
};

/** `prefix:local` when one of the namespaces covers the IRI (and the rest cannot be mistaken for a path). */
function compactIri(value: string): string {
  for (const [prefix, namespace] of PREFIXES) {
    const local = value.slice(namespace.length);
    if (value.startsWith(namespace) && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(local)) return `${prefix}:${local}`;
  }
  return value;
}

function fitsCoercion(object: RdfObject, coercion: Coercion): boolean {
  switch (coercion.kind) {
    case 'iri':
      return object.kind === 'iri';
    case 'language':
      return object.kind === 'literal' && object.language === LANGUAGE_TAG;
    case 'datatype':
      return object.kind === 'literal' && !object.language && object.datatype === coercion.datatype;
    case 'none':
      return object.kind === 'resource' || (object.kind === 'literal' && !object.language && object.datatype === xsd.string);
  }
}

/** The short form of a value under its term's coercion. */
function shortValue(object: RdfObject): unknown {
  if (object.kind === 'iri') return compactIri(object.value);
  if (object.kind === 'literal') return object.value;
  return jsonLdNode(object);
}

/** The explicit form of a value, valid under any property name. */
function valueObject(object: RdfObject): unknown {
  if (object.kind === 'iri') return { '@id': compactIri(object.value) };
  if (object.kind === 'resource') return jsonLdNode(object);
  return literalObject(object);
}

function literalObject(literal: Literal): Record<string, string> {
  if (literal.language) return { '@value': literal.value, '@language': literal.language };
  if (literal.datatype === xsd.string) return { '@value': literal.value };
  return { '@value': literal.value, '@type': compactIri(literal.datatype) };
}

const single = (values: unknown[]): unknown => (values.length === 1 ? values[0] : values);

/** A resource as a JSON-LD node object, its nested resources embedded. */
export function jsonLdNode(node: Resource): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (node.id) out['@id'] = node.id;
  if (node.types.length > 0) out['@type'] = single(node.types.map(compactIri));
  for (const [predicate, objects] of node.properties) {
    const term = TERM_BY_IRI.get(predicate);
    if (term && objects.every((object) => fitsCoercion(object, term.coercion))) {
      out[term.name] = single(objects.map(shortValue));
    } else {
      out[compactIri(predicate)] = single(objects.map(valueObject));
    }
  }
  const unnamed: Record<string, unknown> = {};
  for (const [predicate, subjects] of node.reverse) {
    const term = REVERSE_TERM_BY_IRI.get(predicate);
    if (term) out[term.name] = single(subjects.map(shortValue));
    else unnamed[compactIri(predicate)] = single(subjects.map(valueObject));
  }
  if (Object.keys(unnamed).length > 0) out['@reverse'] = unnamed;
  return out;
}

/** The whole catalogue as JSON-LD, in chunks: the head, then one chunk per page of datasets. */
export async function* catalogJsonLd(graph: CatalogGraph): AsyncGenerator<string> {
  const catalog = JSON.stringify(jsonLdNode(graph.catalog));
  const described = graph.described.map((node) => `${JSON.stringify(jsonLdNode(node))},\n`).join('');
  // The catalogue's node stays open: its "dataset" list is filled as the pages arrive.
  yield `{"@context":${JSON.stringify(CATALOG_CONTEXT)},\n"@graph":[\n${described}${catalog.slice(0, -1)},"dataset":[\n`;
  let first = true;
  for await (const page of graph.datasets) {
    if (page.length === 0) continue;
    const nodes = page.map((dataset) => JSON.stringify(jsonLdNode(dataset))).join(',\n');
    yield first ? nodes : `,\n${nodes}`;
    first = false;
  }
  yield '\n]}\n]}\n';
}
