/**
 * The REST calls of SPEC §7, each a recipe: read the query with its zod schema, run the query
 * layer, answer the `{ code, body }` envelope with `body` a JSON string where the spec says so.
 * Status codes are real (the original answered 200 on errors) and `code` always equals them.
 */
import { toResponse } from '../http/errors.ts';
import { withEditedHeaders } from '../http/response-headers.ts';

export { readQuery } from '../http/input.ts';

/** Public reads: any origin may read them, without credentials (issue #4 'Cross-origin'). */
export const PUBLIC_READ_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': 'public, max-age=60',
} as const;

export function envelope(body: unknown, { stringify = true } = {}): Response {
  return new Response(JSON.stringify({ code: 200, body: stringify ? JSON.stringify(body) : body }), {
    status: 200,
    headers: PUBLIC_READ_HEADERS,
  });
}

/** Errors answered as everywhere (`toResponse`), readable from any origin too, and never cached. */
const ERROR_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' };

export async function rest(recipe: () => Promise<Response>): Promise<Response> {
  try {
    return await recipe();
  } catch (error) {
    return toResponse(error, ERROR_HEADERS);
  }
}

/**
 * Request headers a cross-origin reader may send: `Content-Type` (GraphQL's JSON posts) and the
 * API-marketplace headers the original front end adds to its storage-status and latest-uploads
 * reads (SPEC §7: "a hosted API-marketplace client sends JSON with an API-key header"), whose
 * values the archive ignores; and a download's range and conditions, which the browser sends only
 * after a preflight for a range other than `bytes=N-M` and for every condition. Without them in
 * the preflight, the browser would not send the read at all.
 */
export const PUBLIC_READ_REQUEST_HEADERS = ['Content-Type', 'X-RapidAPI-Host', 'X-RapidAPI-Key', 'Range', 'If-None-Match', 'If-Modified-Since', 'If-Range'] as const;

/**
 * Response headers a cross-origin reader may read besides the safelisted ones: a download's
 * validator, range, name and the ranges it accepts.
 */
const PUBLIC_READ_EXPOSED_HEADERS = 'ETag, Content-Range, Accept-Ranges, Content-Disposition';

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;
/** GraphQL is read-only (no mutations), so its POSTs are reads too. */
const GRAPHQL_METHODS = ['GET', 'POST', 'OPTIONS'] as const;

/**
 * The paths of the public reads, which any origin may read without credentials (issue #22): the
 * open-data API, the v1 overview and storage-status reads, GraphQL, the admin host's Strapi-style
 * lists, and the open data itself (the gateway's files, the exports, the feeds, the DCAT catalogue
 * and the OpenAPI document). Never the state-changing `/v2/ops/*` nor the per-user `/auth/*`.
 */
const PUBLIC_READ_PREFIXES = ['/v1/api/', '/v1/services/filecoin/', '/v2/open-data/', '/ipfs/', '/export/', '/feeds/', '/catalog/'];
/** Documents of the whole catalogue (and the catalogue's own IRI) and of the API itself. */
const PUBLIC_READ_DOCUMENTS = ['/catalog', '/catalog.jsonld', '/catalog.ttl', '/openapi.json'];
const STRAPI_COLLECTIONS = ['/alexandrias', '/sources', '/departments', '/categories', '/imports'];

/** The methods `path` answers to any origin, or null when it is not a public read. */
export function publicReadMethods(path: string): readonly string[] | null {
  if (path === '/graphql') return GRAPHQL_METHODS;
  if (PUBLIC_READ_DOCUMENTS.includes(path)) return READ_METHODS;
  if (PUBLIC_READ_PREFIXES.some((prefix) => path.startsWith(prefix))) return READ_METHODS;
  if (STRAPI_COLLECTIONS.some((collection) => path === collection || path.startsWith(`${collection}/`))) return READ_METHODS;
  return null;
}

/** CORS preflight of a public read: any origin, no credentials, the methods of its path. */
export function preflight(methods: readonly string[] = READ_METHODS): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': methods.join(', '),
      'Access-Control-Allow-Headers': PUBLIC_READ_REQUEST_HEADERS.join(', '),
      'Access-Control-Max-Age': '86400',
    },
  });
}

/**
 * `response` readable from any origin when it answers a public read, whatever it is: an error of
 * the route, of the middleware's checks or a 404 of an unknown path under the API, so that a
 * cross-origin client reads the error instead of failing with a CORS error.
 */
export function withPublicReadCors(method: string, path: string, response: Response): Response {
  const methods = publicReadMethods(path);
  if (!methods?.includes(method)) return response;
  const missing = [
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Expose-Headers', PUBLIC_READ_EXPOSED_HEADERS],
  ].filter(([name]) => !response.headers.has(name!));
  if (missing.length === 0) return response;
  return withEditedHeaders(response, (headers) => {
    for (const [name, value] of missing) headers.set(name!, value!);
  });
}
