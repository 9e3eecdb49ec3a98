/**
 * A DCAT catalogue page as an RDF graph (an N3.js store), parsed by real libraries: Turtle and
 * N-Triples by N3.js, JSON-LD by jsonld.js to N-Quads and then N3.js. The syntax comes from the
 * Content-Type, or from the body when the server says nothing useful (`text/plain`, none).
 */
import jsonld from 'jsonld';
import type { RemoteDocument } from 'jsonld/jsonld-spec';
import { Parser, Store } from 'n3';
import { bodyText, parseJsonPage } from './body.ts';
import { BUNDLED_CONTEXTS } from './contexts.ts';
import { CatalogReadError } from './errors.ts';
import type { FetchedPage } from './types.ts';

type RdfSyntax = 'jsonld' | 'turtle' | 'ntriples';

const SYNTAX_BY_MEDIA_TYPE: Record<string, RdfSyntax> = {
  'application/ld+json': 'jsonld',
  'application/json': 'jsonld',
  'text/turtle': 'turtle',
  'application/x-turtle': 'turtle',
  'application/n-triples': 'ntriples',
  'application/n-quads': 'ntriples',
};

/** Turtle may open with an IRI (`<https://…> a dcat:Catalog`); markup opens with `<!`, `<?` or a tag name. */
const OPENING_IRI = /^<[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"]*>/;

function rdfSyntax(page: FetchedPage, url: string): RdfSyntax {
  const mediaType = page.contentType?.split(';', 1)[0]!.trim().toLowerCase() ?? '';
  const known = SYNTAX_BY_MEDIA_TYPE[mediaType];
  if (known) return known;
  if (mediaType.includes('xml')) {
    throw new CatalogReadError('wrong-kind', url, `${url} sirve RDF/XML u otro XML (${mediaType}); el archivo lee DCAT en JSON-LD o Turtle (en CKAN: catalog.jsonld o catalog.ttl).`);
  }
  const start = bodyText(page).trimStart();
  if (mediaType.includes('html') || (start.startsWith('<') && !OPENING_IRI.test(start))) {
    throw new CatalogReadError('wrong-kind', url, `${url} devolvió una página HTML, no un catálogo DCAT. Revise la dirección y el tipo del catálogo.`);
  }
  return start.startsWith('{') || start.startsWith('[') ? 'jsonld' : 'turtle';
}

/** The page's graph; `url` is the base for relative IRIs. */
export async function parseRdfPage(page: FetchedPage, url: string): Promise<Store> {
  const syntax = rdfSyntax(page, url);
  if (syntax === 'jsonld') return parseJsonLd(parseJsonPage(page, url, 'un catálogo DCAT en JSON-LD'), url);
  try {
    return new Store(new Parser({ format: syntax === 'turtle' ? 'text/turtle' : 'N-Triples', baseIRI: url }).parse(bodyText(page)));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CatalogReadError('wrong-kind', url, `${url} no es un catálogo DCAT en Turtle válido: ${reason}`, { cause: error });
  }
}

async function parseJsonLd(document: unknown, url: string): Promise<Store> {
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
        `El JSON-LD de ${url} usa un @context remoto (${refused}) que el archivo no descarga: el catálogo debe llevar su contexto en línea.`,
        { cause: error },
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new CatalogReadError('wrong-kind', url, `${url} no es JSON-LD válido: ${reason}`, { cause: error });
  }
  return new Store(new Parser({ format: 'N-Quads' }).parse(nquads));
}
