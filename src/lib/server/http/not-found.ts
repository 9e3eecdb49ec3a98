import type { AstroGlobal } from 'astro';

/**
 * Answers a real 404 for something that does not exist (a record, a group). Marked as such so the
 * 404 page does not treat it as an unknown path, which signed-in visitors are sent home from.
 */
export function notFound(Astro: AstroGlobal): Promise<Response> {
  Astro.locals.missing = true;
  return Astro.rewrite('/404');
}
