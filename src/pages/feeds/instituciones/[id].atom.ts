/** `/feeds/instituciones/{id}.atom`: one institution's new versions and disappearances (Atom). */
import type { APIRoute } from 'astro';
import { getArchive } from '../../../lib/server/archive.ts';
import { atomResponse, departmentChangesFeed } from '../../../lib/server/feeds/index.ts';
import { parseId } from '../../../lib/server/queries/index.ts';

export const prerender = false;

export const GET: APIRoute = async ({ locals, params, request }) => {
  const id = parseId(params.id);
  const { db } = await getArchive();
  const body = id === null ? null : await departmentChangesFeed(db, locals.origin, id);
  if (body === null) {
    return new Response('No existe esa institución en el archivo.\n', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
    });
  }
  return atomResponse(request, body);
};
