/** `/sitemap-{n}.xml`: the n-th file of 50,000 URLs that `/sitemap.xml` indexes once the archive outgrows one. */
import type { APIRoute } from 'astro';
import { getArchive } from '../lib/server/archive.ts';
import { renderSitemapFile, SITEMAP_HEADERS } from '../lib/server/seo/sitemap.ts';

export const prerender = false;

export const GET: APIRoute = async ({ locals, params }) => {
  const { db } = await getArchive();
  const body = await renderSitemapFile(db, locals.origin, params.n);
  if (body === null) {
    return new Response('No existe este sitemap.\n', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
    });
  }
  return new Response(body, { headers: SITEMAP_HEADERS });
};
