/**
 * Reading values out of an RDF graph the way a harvester wants them: one text in the archive's
 * language when a property is stated in several (Spanish, then untagged, then any), IRIs or
 * literals alike where catalogues disagree (ckanext-dcat writes `hydra:nextPage` as a literal,
 * Hydra as an IRI; `dct:format` may be a literal, an IRI or a node with a label).
 */
import { DataFactory, type Store, type Term } from 'n3';
import { NS, rdfs, skos } from '../../dcat/rdf.ts';

const { namedNode } = DataFactory;

export const HYDRA_NS = 'http://www.w3.org/ns/hydra/core#';
export const RDF_VALUE = `${NS.rdf}value`;

/** The objects of `subject predicate ?`, in the order the graph holds them. */
export function objectsOf(graph: Store, subject: Term, predicate: string): Term[] {
  return graph.getObjects(subject, namedNode(predicate), null);
}

/** How much a literal's language suits the archive: Spanish first, then no language, then any. */
function languageRank(term: Term): number {
  if (term.termType !== 'Literal') return 3;
  const language = term.language.toLowerCase();
  if (language === 'es' || language.startsWith('es-')) return 0;
  return language === '' ? 1 : 2;
}

/** A literal in Spanish or without a language. */
export function inArchiveLanguage(term: Term): boolean {
  return languageRank(term) <= 1;
}

/** The literals among `terms`, best language first. */
export function literalsByLanguage(terms: Term[]): Term[] {
  return terms.filter((term) => term.termType === 'Literal').sort((a, b) => languageRank(a) - languageRank(b));
}

/** The one literal to show for `subject predicate`, by language preference, trimmed; or null. */
export function preferredText(graph: Store, subject: Term, predicate: string): string | null {
  for (const term of literalsByLanguage(objectsOf(graph, subject, predicate))) {
    const text = term.value.trim();
    if (text) return text;
  }
  return null;
}

/** The first object's value, whether an IRI or a literal (blank nodes have none worth keeping). */
export function firstValue(graph: Store, subject: Term, predicate: string): string | null {
  const terms = objectsOf(graph, subject, predicate);
  const best = [...terms.filter((term) => term.termType === 'NamedNode'), ...literalsByLanguage(terms)][0];
  return best?.value.trim() || null;
}

/** A node's label: skos:prefLabel, then rdfs:label, then rdf:value (ckanext-dcat's `dct:IMT`). */
export function labelOf(graph: Store, node: Term): string | null {
  return preferredText(graph, node, skos.prefLabel) ?? preferredText(graph, node, rdfs.label) ?? preferredText(graph, node, RDF_VALUE);
}

/** A stable key for a term, for sets and maps. */
export function termKey(term: Term): string {
  return `${term.termType}:${term.value}`;
}
