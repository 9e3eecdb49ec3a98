import type { APIRoute } from 'astro';
import { openApiDocument } from '../lib/server/api/openapi.ts';
import { PUBLIC_READ_HEADERS } from '../lib/server/api/rest.ts';

/** GET /openapi.json: the REST API described from the schemas that validate it. */
export const GET: APIRoute = ({ locals, url }) =>
  new Response(JSON.stringify(openApiDocument(locals.origin ?? url.origin), null, 2), { headers: PUBLIC_READ_HEADERS });
