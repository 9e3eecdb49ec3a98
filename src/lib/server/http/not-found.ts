import type { AstroGlobal } from 'astro';

/**
 * Answers a real 404 for something that does not exist (a record, a group). Marked as such so the
 * 404 page does not treat it as an unknown path, which signed-in visitors are sent home from.
 */
export function notFound(Astro: AstroGlobal): Promise<Response> {
  Astro.locals.missing = true;
  return Astro.rewrite('/404');
}

/**
 * A 404 for a page number past a list's end: an old link (a list shrinks as records leave it) or a
 * hand-edited URL. Still a 404, so that no search engine keeps it, but the page says how many
 * pages the list has and links the last one, `hrefFor(pages)`, rather than leaving the reader lost.
 */
export function pastLastPage(Astro: AstroGlobal, pages: number, hrefFor: (page: number) => string): Promise<Response> {
  const last = Math.max(1, pages);
  Astro.locals.lastPage = { page: last, href: hrefFor(last) };
  return notFound(Astro);
}
