/** `/sitemap.xml`: every public catalogue page, or the index of the sitemap files once there are many. */
import type { APIRoute } from 'astro';
import { getArchive } from '../lib/server/archive.ts';
import { renderSitemap, SITEMAP_HEADERS } from '../lib/server/seo/sitemap.ts';

export const prerender = false;

export const GET: APIRoute = async ({ locals }) => {
  const { db } = await getArchive();
  return new Response(await renderSitemap(db, locals.origin), { headers: SITEMAP_HEADERS });
};
