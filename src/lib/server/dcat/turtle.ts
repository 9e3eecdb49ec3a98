/**
 * Turtle (RDF 1.1) from the catalogue's resources, written as it streams: the prefixes, what the
 * catalogue says of itself, then for each page of datasets the catalogue's links to them and their
 * descriptions. A subject may take several statements in Turtle, so nothing waits for the end.
 */
import { dcat, iri, NS, xsd, type Literal, type NamedNode, type RdfObject, type Resource } from './rdf.ts';
import type { CatalogGraph } from './catalog.ts';

/** A local name that a prefixed name can carry without escapes. */
const SIMPLE_LOCAL_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const PREFIXES = Object.entries(NS) as Array<[string, string]>;

/** An IRI as a prefixed name when one of the catalogue's namespaces covers it, else `<…>`. */
export function turtleIri(value: string): string {
  for (const [prefix, namespace] of PREFIXES) {
    if (value.startsWith(namespace) && SIMPLE_LOCAL_NAME.test(value.slice(namespace.length))) {
      return `${prefix}:${value.slice(namespace.length)}`;
    }
  }
  // Every IRI the catalogue builds went through `webIri` or `mailtoLink` (domain/contact-point.ts) or is a constant: nothing here needs escaping.
  return `<${value}>`;
}

const STRING_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** Text as a Turtle string: quotes, backslashes, line breaks and other control characters escaped. */
export function turtleString(value: string): string {
  const escaped = value.replace(
    /["\\\u0000-\u001f\u007f]/g,
    (character) => STRING_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}

function turtleLiteral(literal: Literal): string {
  if (literal.language) return `${turtleString(literal.value)}@${literal.language}`;
  if (literal.datatype === xsd.string) return turtleString(literal.value);
  return `${turtleString(literal.value)}^^${turtleIri(literal.datatype)}`;
}

/**
 * The statements of `node` as one Turtle block. Blank nodes are written in place (`[ … ]`); a
 * nested resource with an IRI is referred to and its own block follows, as do the statements
 * of which `node` is the object (`reverse`), each in its subject's block.
 */
export function turtleBlock(node: Resource): string {
  if (!node.id) throw new Error('A top-level Turtle block needs a subject IRI.');
  const following: Resource[] = [];
  const body = predicateList(node, '    ', following);
  return `${turtleIri(node.id)}\n${body} .\n${following.map((next) => `\n${turtleBlock(next)}`).join('')}`;
}

/** `subject predicate object` as a block of the subject's: its own, or one with that statement alone. */
function statedOf(subject: NamedNode | Resource, predicate: string, object: string): Resource {
  const link: [string, RdfObject[]] = [predicate, [iri(object)]];
  if (subject.kind === 'iri') return { kind: 'resource', id: subject.value, types: [], properties: [link], reverse: [] };
  return { ...subject, properties: [...subject.properties, link] };
}

function predicateList(node: Resource, indent: string, following: Resource[]): string {
  for (const [predicate, subjects] of node.reverse) {
    // `resource()` refuses a reverse statement on a blank node, so `node.id` is there.
    for (const subject of subjects) following.push(statedOf(subject, predicate, node.id!));
  }
  const lines: string[] = [];
  if (node.types.length > 0) lines.push(`${indent}a ${node.types.map(turtleIri).join(', ')}`);
  for (const [predicate, objects] of node.properties) {
    const written = objects.map((object) => turtleObject(object, indent, following));
    lines.push(`${indent}${turtleIri(predicate)} ${written.join(', ')}`);
  }
  return lines.join(' ;\n');
}

function turtleObject(object: RdfObject, indent: string, following: Resource[]): string {
  if (object.kind === 'iri') return turtleIri(object.value);
  if (object.kind === 'literal') return turtleLiteral(object);
  if (object.id) {
    following.push(object);
    return turtleIri(object.id);
  }
  return `[\n${predicateList(object, `${indent}    `, following)}\n${indent}]`;
}

/** The whole catalogue as Turtle, in chunks: the head, then one chunk per page of datasets. */
export async function* catalogTurtle(graph: CatalogGraph): AsyncGenerator<string> {
  const prefixes = PREFIXES.map(([prefix, namespace]) => `@prefix ${prefix}: <${namespace}> .\n`).join('');
  yield `${prefixes}\n${[graph.catalog, ...graph.described].map(turtleBlock).join('\n')}`;
  const catalog = turtleIri(graph.catalog.id!);
  for await (const page of graph.datasets) {
    if (page.length === 0) continue;
    const links = `\n${catalog} ${turtleIri(dcat.dataset)} ${page.map((dataset) => turtleIri(dataset.id!)).join(', ')} .\n`;
    yield `${links}\n${page.map(turtleBlock).join('\n')}`;
  }
}
