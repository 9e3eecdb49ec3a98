/** `/robots.txt`: the catalogue is public and meant to be found; crawlers get the sitemap's address. */
import type { APIRoute } from 'astro';
import { absoluteUrl } from '../lib/paths.ts';

export const prerender = false;

export const GET: APIRoute = ({ locals }) =>
  new Response(`User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(locals.origin, '/sitemap.xml')}\n`, {
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=86400' },
  });
