/**
 * `/catalog` and `/catalog/…`: the IRIs the DCAT catalogue gives the catalogue, its datasets, their
 * distributions and catalogue records. Each names a thing, not a document: it answers 303 See Other
 * with the document that describes it (`catalogIriDocument`), so a linked-data client that follows
 * an IRI of `/catalog.jsonld` or `/catalog.ttl` lands somewhere instead of on a 404.
 */
import type { APIRoute } from 'astro';
import { absoluteUrl } from '../../lib/paths.ts';
import { catalogIriDocument } from '../../lib/server/dcat/catalog.ts';

export const prerender = false;

export const GET: APIRoute = ({ locals, request, url }) => {
  const document = catalogIriDocument(url.pathname, request.headers.get('accept'));
  if (document === null) {
    return new Response('El catálogo no nombra nada con esa dirección.\n', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
    });
  }
  return new Response(null, {
    status: 303,
    headers: { Location: absoluteUrl(locals.origin, document), 'Cache-Control': 'public, max-age=3600', Vary: 'Accept' },
  });
};
