/**
 * A DCAT catalogue page as an RDF graph (an N3.js store), parsed by real libraries: Turtle and
 * N-Triples by N3.js, JSON-LD by jsonld.js to N-Quads and then N3.js, RDF/XML (DCAT-AP's own
 * syntax, ckanext-dcat's `catalog.rdf`) by rdfxml-streaming-parser. The syntax comes
 * from the Content-Type, or from the body when the server says nothing useful (`text/plain`,
 * `application/xml`, none). A graph stops at `maxTriples`: Turtle and RDF/XML are refused as soon
 * as they state one more, JSON-LD once jsonld.js has turned it into N-Quads (its expansion cannot
 * be stopped part-way; the worker's time and memory limits bound that).
 *
 * RDF/XML's entities are checked before it is parsed. Its parser never reads an external one, nor
 * expands the entities inside an internal one, but it replaces each reference by the whole value:
 * a 1 MB value named 400 times is one 400 MB string, a single allocation that V8 cannot fit under
 * the worker's heap limit and that ends the whole process. So only the idiom RDF/XML writers use
 * is read, short plain values that abbreviate IRIs (`<!ENTITY xsd "http://…#">`, `&xsd;integer`),
 * and only while all their references together add no more text than the page holds; a page that
 * declares any other entity is refused. (DCAT exporters such as ckanext-dcat write no DTD at all.)
 *
 * This runs in the page's worker thread (`dcat-worker.ts`): only erasable TypeScript here.
 */
import jsonld from 'jsonld';
import type { RemoteDocument } from 'jsonld/jsonld-spec';
import { DataFactory, Parser, Store, type Quad } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { bodyText, kindHint, parseJsonPage } from './body.ts';
import { BUNDLED_CONTEXTS } from './contexts.ts';
import { CatalogReadError } from './errors.ts';
import type { FetchedPage } from './types.ts';
import { formatCount } from '../../../text.ts';

type RdfSyntax = 'jsonld' | 'turtle' | 'ntriples' | 'rdfxml';

const SYNTAX_BY_MEDIA_TYPE: Record<string, RdfSyntax> = {
  'application/ld+json': 'jsonld',
  'application/json': 'jsonld',
  'text/turtle': 'turtle',
  'application/x-turtle': 'turtle',
  'application/n-triples': 'ntriples',
  'application/n-quads': 'ntriples',
  'application/rdf+xml': 'rdfxml',
};

/**
 * Turtle may open with an IRI, absolute or relative (`<https://…> a dcat:Catalog`, `<#catalogo> a
 * dcat:Catalog`); markup opens with `<!`, `<?` or a tag, and a tag name is all an IRI can look like.
 * What follows tells them apart: Turtle goes on with a predicate (`a`, an IRI, a prefixed name),
 * markup with text or another tag (`<p>Error 500</p>`, `<title>Inicio</title>`).
 */
const OPENING_IRI = /^<[^\s<>"{}|\\^`]*>\s*(a\s|<[^\s<>"]*[:#]|[A-Za-z][\w.-]*:|:)/;
/** An XML document's opening (its declaration, a comment or a doctype), and RDF/XML's root element. */
const XML_OPENING = /^<\?xml[\s?]/i;
const RDF_XML_ROOT = /<rdf:RDF[\s>]/;
const HTML_OPENING = /^<(!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i;
/** An entity declaration, general or parameter: only a DTD holds one (a literal's `<` is escaped). */
const ENTITY_DECLARATION = /<!ENTITY/gi;
/** The one kind read: a general entity whose value is short plain text (no reference, no markup). */
const PLAIN_ENTITY = /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(["'])([^"'&%<]{1,256})\2\s*>/g;
/** XML's predefined entities, which a page may not redefine. */
const PREDEFINED_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);
/** Entities a page may declare at most: an IRI abbreviation per namespace is a handful. */
const MAX_ENTITIES = 64;
/** What the XML parser says most often, as moderators read it. */
const XML_PROBLEMS: ReadonlyArray<[RegExp, string]> = [
  [/unclosed tag: (\S+)/, 'la etiqueta $1 no se cierra (¿la página llegó cortada?)'],
  [/unexpected end/, 'el documento termina antes de tiempo'],
  [/undefined entity/, 'usa una entidad XML que no declara'],
];
/**
 * What N3.js says of broken Turtle, as moderators read it. Its messages end with " on line N.",
 * which becomes the Spanish message's opening; one it says rarely keeps its own words, quoted.
 */
const TURTLE_PROBLEMS: ReadonlyArray<[RegExp, string]> = [
  [/^Undefined prefix "([^"]*)"/, 'usa el prefijo «$1» sin declararlo con @prefix'],
  [/^Expected entity but got eof/, 'el documento termina antes de tiempo (¿la página llegó cortada?)'],
  [/^Expected (?:dot to follow quad|declaration to end with a dot|punctuation to follow .*)$/s, 'falta el punto (o la coma o el punto y coma) que cierra una tripleta'],
  [/^Expected entity but got (.+)$/, 'se esperaba un IRI, un nombre con prefijo o un valor, y aparece «$1»'],
  [/^Expected predicate but got (.+)$/, 'se esperaba una propiedad, y aparece «$1»'],
  [/^Unexpected "(.*)"$/s, 'aparece «$1», que no es Turtle'],
  [/^Unexpected literal$/, 'aparece un valor donde se esperaba un IRI'],
  [/^Invalid IRI$/, 'un IRI no es válido'],
  [/^Token too long$/, 'un valor o un IRI es demasiado largo'],
];
/** How much RDF/XML the parser takes at a time, so that a refusal stops it part-way. */
const RDF_XML_SLICE = 64 * 1024;

function rdfSyntax(page: FetchedPage, url: string): RdfSyntax {
  const mediaType = page.contentType?.split(';', 1)[0]!.trim().toLowerCase() ?? '';
  const start = bodyText(page).trimStart();
  // An error page is named as what it is, even served under the catalogue's type (a proxy's 200).
  if (mediaType.includes('html') || HTML_OPENING.test(start)) {
    throw new CatalogReadError('wrong-kind', url, `${url} devolvió una página HTML, no un catálogo DCAT. Revise la dirección y el tipo del catálogo.`);
  }
  const known = SYNTAX_BY_MEDIA_TYPE[mediaType];
  if (known) return known;
  const rdfXmlRoot = RDF_XML_ROOT.test(start.slice(0, 4096));
  // A server that says only "XML" (`application/xml`, `text/xml`), or nothing of its type, or
  // `text/plain`, may still serve RDF/XML, as ckanext-dcat's `catalog.rdf` may.
  const looksLikeXml = start.startsWith('<') && (XML_OPENING.test(start) || rdfXmlRoot);
  if (mediaType.includes('xml') || looksLikeXml) {
    if (rdfXmlRoot) return 'rdfxml';
    throw new CatalogReadError('wrong-kind', url, `${url} sirve XML que no es RDF/XML (no tiene la raíz rdf:RDF), así que no es un catálogo DCAT.`);
  }
  if (start.startsWith('<') && !OPENING_IRI.test(start)) {
    throw new CatalogReadError('wrong-kind', url, `${url} devolvió una página HTML, no un catálogo DCAT. Revise la dirección y el tipo del catálogo.`);
  }
  return start.startsWith('{') || start.startsWith('[') ? 'jsonld' : 'turtle';
}

/** The page's graph, of at most `maxTriples` triples; `url` is the base for relative IRIs. */
export async function parseRdfPage(page: FetchedPage, url: string, maxTriples: number): Promise<Store> {
  const syntax = rdfSyntax(page, url);
  if (syntax === 'jsonld') return parseJsonLd(parseJsonPage(page, url, 'un catálogo DCAT en JSON-LD'), url, maxTriples);
  try {
    if (syntax === 'rdfxml') return await parseRdfXml(bodyText(page), url, maxTriples);
    return await parseTriples(bodyText(page), syntax === 'turtle' ? 'text/turtle' : 'N-Triples', url, maxTriples);
  } catch (error) {
    if (error instanceof CatalogReadError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const reason = syntax === 'rdfxml' ? xmlInSpanish(message) : turtleInSpanish(message);
    const named = syntax === 'rdfxml' ? 'RDF/XML' : 'Turtle';
    throw new CatalogReadError('wrong-kind', url, `${url} no es un catálogo DCAT en ${named} válido: ${reason}`, { cause: error });
  }
}

function tooManyTriples(url: string, maxTriples: number): CatalogReadError {
  return new CatalogReadError(
    'too-costly',
    url,
    `La página ${url} del catálogo pasa de ${formatCount(maxTriples)} tripletas RDF, el máximo que el archivo lee de una página: el catálogo debe paginarse (Hydra).`,
  );
}

/**
 * Parses `text` quad by quad into a graph, refusing it at the first triple past `maxTriples`
 * (N3.js then goes on lexing to the end, unheard: the worker is terminated as soon as it reports).
 */
function parseTriples(text: string, format: string, url: string, maxTriples: number): Promise<Store> {
  return new Promise((resolve, reject) => {
    const graph = new Store();
    let count = 0;
    let settled = false;
    new Parser({ format, baseIRI: url }).parse(text, (error: Error | null, quad: Quad | null) => {
      if (settled) return;
      if (error || !quad) {
        settled = true;
        if (error) reject(error);
        else resolve(graph);
        return;
      }
      count += 1;
      if (count > maxTriples) {
        settled = true;
        reject(tooManyTriples(url, maxTriples));
        return;
      }
      graph.addQuad(quad);
    });
  });
}

/**
 * Parses RDF/XML into a graph, refusing it at the first triple past `maxTriples`: the text goes in
 * slices, and none after the refusal. Its terms are N3.js's own (`dataFactory`), as the graph's
 * readers compare them. IRIs are not validated here: one download URL with a space would refuse
 * the whole page, when `values.ts` cleans (or drops) each URL on its own.
 */
function parseRdfXml(text: string, url: string, maxTriples: number): Promise<Store> {
  const entities = entityProblem(text);
  if (entities) return Promise.reject(new CatalogReadError('wrong-kind', url, `${url} ${entities}`));
  return new Promise((resolve, reject) => {
    const graph = new Store();
    let count = 0;
    let settled = false;
    const parser = new RdfXmlParser({ baseIRI: url, dataFactory: DataFactory, validateUri: false });
    const stop = (error: Error | null) => {
      if (settled) return;
      settled = true;
      if (error) {
        reject(error);
        // Unheard from now on: the rest of the document is not parsed.
        parser.destroy();
      } else resolve(graph);
    };
    parser.on('data', (quad: Quad) => {
      if (settled) return;
      count += 1;
      if (count > maxTriples) stop(tooManyTriples(url, maxTriples));
      else graph.addQuad(quad);
    });
    parser.on('error', (error: Error) => stop(error));
    parser.on('end', () => stop(null));
    for (let offset = 0; offset < text.length && !settled && !parser.errored; ) {
      // Never between the two halves of a surrogate pair (an emoji): the stream encodes each slice
      // as UTF-8 on its own, and half a pair becomes U+FFFD.
      let end = Math.min(offset + RDF_XML_SLICE, text.length);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      parser.write(text.slice(offset, end));
      offset = end;
    }
    // The parser ends its stream without closing its XML parser, whose last checks (an element
    // left open: a page cut short) would go unheard; closing it reports them as the parser's
    // 'error'. Not after an error of its own, which reaches 'error' a tick later and is the one to
    // tell. A private field of the pinned version (package.json), so a test covers it.
    if (!settled && !parser.errored) (parser as unknown as { saxParser: { close(): void } }).saxParser.close();
    parser.end();
  });
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Why the entities `text` declares cannot be read (see the module's header), or null when it
 * declares none or only short plain ones whose references add at most the page's length.
 */
function entityProblem(text: string): string | null {
  const declared = text.match(ENTITY_DECLARATION)?.length ?? 0;
  if (declared === 0) return null;
  if (declared > MAX_ENTITIES) return `declara ${formatCount(declared)} entidades XML, más de las ${formatCount(MAX_ENTITIES)} que el archivo lee.`;
  const plain = [...text.matchAll(PLAIN_ENTITY)];
  if (plain.length < declared) {
    return 'declara entidades XML que el archivo no lee (externas, de parámetro, anidadas o de más de 256 caracteres): un catálogo DCAT en RDF/XML no las necesita.';
  }
  // XML's own (`&amp;`…) keep their meaning: a page that redefines one says something else by them.
  if (plain.some(([, name]) => PREDEFINED_ENTITIES.has(name!))) return 'redefine una entidad propia de XML (amp, lt, gt, quot o apos), y el archivo no la lee.';
  let added = 0;
  for (const [, name, , value] of plain) added += occurrences(text, `&${name};`) * value!.length;
  if (added > text.length) return `usa sus entidades XML tantas veces que ocuparían ${formatCount(added)} caracteres, más que la página misma: el archivo no las expande.`;
  return null;
}

/** The XML parser's message with what it says most often in Spanish. */
function xmlInSpanish(message: string): string {
  for (const [pattern, spanish] of XML_PROBLEMS) if (pattern.test(message)) return message.replace(pattern, spanish);
  return message;
}

/** What a Turtle message quotes of the page, at most: N3.js quotes a whole token, however long. */
const QUOTED_MAX = 80;

/** N3.js's message in Spanish, opening with its line ("en la línea 4, falta el punto…"). */
function turtleInSpanish(message: string): string {
  const at = message.lastIndexOf(' on line ');
  const line = at >= 0 ? /^ on line (\d+)\.?$/.exec(message.slice(at))?.[1] : undefined;
  const problem = line ? message.slice(0, at) : message;
  const where = line ? `en la línea ${line}, ` : '';
  const quoted = (text: string) => (text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX)}…` : text);
  for (const [pattern, spanish] of TURTLE_PROBLEMS) {
    const found = pattern.exec(problem);
    if (found) return where + spanish.replace('$1', quoted(found[1] ?? ''));
  }
  return `${where}error de sintaxis (N3.js: «${quoted(problem)}»)`;
}

/** How many times `needle` occurs in `text`, counted without splitting it (a page may be 50 MB). */
function occurrences(text: string, needle: string): number {
  let found = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) found += 1;
  return found;
}

async function parseJsonLd(document: unknown, url: string, maxTriples: number): Promise<Store> {
  let refused: string | null = null;
  const documentLoader = async (contextUrl: string): Promise<RemoteDocument> => {
    const bundled = BUNDLED_CONTEXTS.get(contextUrl);
    if (bundled !== undefined) return { documentUrl: contextUrl, document: bundled as RemoteDocument['document'] };
    refused ??= contextUrl;
    throw new Error(`contexto remoto no admitido: ${contextUrl}`);
  };
  let nquads: string;
  try {
    const options: jsonld.Options.ToRdf = { format: 'application/n-quads', base: url, documentLoader };
    nquads = (await jsonld.toRDF(document as jsonld.JsonLdDocument, options)) as unknown as string;
  } catch (error) {
    if (refused) {
      throw new CatalogReadError(
        'remote-context',
        url,
        `El JSON-LD de ${url} usa un @context remoto (${refused}) que el archivo no descarga: el catálogo debe llevar su contexto en línea.${kindHint(document, 'dcat')}`,
        { cause: error },
      );
    }
    // jsonld.js's messages name the JSON-LD rule broken; no short Spanish says it better.
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^Invalid JSON-LD syntax; /, '');
    throw new CatalogReadError('wrong-kind', url, `${url} no es JSON-LD válido, según jsonld.js: «${reason}»`, { cause: error });
  }
  if (occurrences(nquads, '\n') > maxTriples) throw tooManyTriples(url, maxTriples);
  return new Store(new Parser({ format: 'N-Quads' }).parse(nquads));
}
