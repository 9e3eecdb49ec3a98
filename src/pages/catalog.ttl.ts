/** `/catalog.ttl`: the archive's DCAT-AP catalogue as Turtle, the same graph as `/catalog.jsonld`. */
import type { APIRoute } from 'astro';
import { getArchive } from '../lib/server/archive.ts';
import { catalogResponse } from '../lib/server/dcat/response.ts';
import { handle } from '../lib/server/http/errors.ts';

export const prerender = false;

export const GET: APIRoute = ({ locals, request }) =>
  handle(async () => {
    const { db } = await getArchive();
    return catalogResponse('turtle', { db, origin: locals.origin, request });
  });
