/**
 * `/robots.txt`: the catalogue is public and meant to be found, and crawlers get the sitemap's
 * address. An archive that requires signing in (`ARCHIVE_REQUIRE_LOGIN`) asks them to stay out.
 */
import type { APIRoute } from 'astro';
import { absoluteUrl } from '../lib/paths.ts';
import { readConfig } from '../lib/server/config.ts';

export const prerender = false;

const { requireLogin } = readConfig();

export const GET: APIRoute = ({ locals }) =>
  new Response(
    requireLogin ? 'User-agent: *\nDisallow: /\n' : `User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(locals.origin, '/sitemap.xml')}\n`,
    { headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=86400' } },
  );
