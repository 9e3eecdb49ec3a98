/** `/feeds/cambios.atom`: the archive's new versions and disappearances, newest first (Atom). */
import type { APIRoute } from 'astro';
import { getArchive } from '../../lib/server/archive.ts';
import { archiveChangesFeed, ATOM_HEADERS } from '../../lib/server/feeds/index.ts';

export const prerender = false;

export const GET: APIRoute = async ({ locals }) => {
  const { db } = await getArchive();
  return new Response(await archiveChangesFeed(db, locals.origin), { headers: ATOM_HEADERS });
};
