/** `/feeds/cambios.atom`: the archive's new versions and disappearances, newest first (Atom). */
import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { archiveChangesFeed, atomResponse } from '../../lib/server/feeds/index.ts';

export const prerender = false;

export const GET: APIRoute = async ({ locals, request }) => {
  const { db } = await getArchive();
  return atomResponse(request, await archiveChangesFeed(db, locals.origin));
};
