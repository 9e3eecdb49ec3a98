/**
 * A request refused before any route sees it (a «%» that forms no character, a NUL in the address,
 * an unknown Host) is answered in JSON, as the API's errors are. A person who followed or pasted
 * such an address into a browser gets the same status and words as a page of its own instead of
 * raw JSON: small, standalone (the refusal comes before the site's pages could be drawn), with a
 * way back into the archive.
 */
import { escapeXml } from '../seo/sitemap.ts';
import { acceptWeight } from './accept.ts';

/** Whether a request is a browser's for a page: a GET or HEAD that prefers HTML to JSON. */
export function wantsPage(method: string | undefined, accept: string | null | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const html = acceptWeight(accept ?? null, 'text/html');
  return html > 0 && html > acceptWeight(accept ?? null, 'application/json');
}

/** Only a GET or a HEAD gets a page: refused before any route, that is a 400, or a 500 when the adapter failed. */
const TITLES = { clientError: 'La dirección no es válida', serverError: 'Error del archivo' } as const;

/**
 * The page's headers: HTML, never cached, and a policy that lets it do nothing but show its own
 * inline style (no script, no other resource, no framing).
 */
export const REFUSAL_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** What a refusal page may add to the status's own: its heading, and a link that helps (the record whose page gives a withdrawal's reason). */
export interface RefusalPageExtras {
  title?: string;
  link?: { href: string; label: string };
}

/**
 * The page for a refusal with `status` and its Spanish `message`. Its links lead to `publicUrl`,
 * the configured address: a refused Host would make a relative link lead back to the refusal.
 */
export function refusalPage(status: number, message: string, publicUrl: string, extras: RefusalPageExtras = {}): string {
  const title = extras.title ?? (status >= 500 ? TITLES.serverError : TITLES.clientError);
  const link = extras.link ? `\n<p><a href="${escapeXml(extras.link.href)}">${escapeXml(extras.link.label)}</a></p>` : '';
  const home = new URL('/', publicUrl).href;
  const search = new URL('/buscar', publicUrl).href;
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeXml(title)} · Archivo Abierto</title>
<style>
body{margin:0;padding:0 1rem;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#0f172a;background:#f8fafc;line-height:1.5}
main{max-width:36rem;margin:4rem auto;padding:2rem 1.5rem;background:#fff;border:1px solid #e2e8f0;border-radius:.75rem}
p.code{margin:0;font-size:.875rem;font-weight:600;color:#4338ca}
h1{margin:.25rem 0 1rem;font-size:1.5rem}
a{color:#4338ca}
</style>
</head>
<body>
<main>
<p class="code">Error ${status}</p>
<h1>${escapeXml(title)}</h1>
<p>${escapeXml(message)}</p>${link}
<p><a href="${escapeXml(home)}">Ir al inicio</a> · <a href="${escapeXml(search)}">Buscar en el archivo</a></p>
</main>
</body>
</html>
`;
}

/**
 * An API route's refusal (`toResponse`'s JSON: `{ code, message }`) as its page, for a browser that
 * asked for one (`wantsPage`): the same status, message and headers (its caching above all), in
 * HTML. Anything else is given back as it is.
 */
export async function refusalAsPage(response: Response, request: Request, publicUrl: string, title: string): Promise<Response> {
  if (response.ok || !wantsPage(request.method, request.headers.get('accept'))) return response;
  const { message, recordPage } = (await response.clone().json().catch(() => ({}))) as { message?: unknown; recordPage?: unknown };
  if (typeof message !== 'string') return response;
  // Only a path of this archive: the answer is ours, but a link is built from nothing else.
  const link = typeof recordPage === 'string' && /^\/(?!\/)/.test(recordPage) ? { href: new URL(recordPage, publicUrl).href, label: 'Ver el motivo en la página del registro' } : undefined;
  const headers = new Headers(response.headers);
  headers.delete('Content-Length');
  for (const [name, value] of Object.entries(REFUSAL_PAGE_HEADERS)) if (name !== 'Cache-Control' || !headers.has(name)) headers.set(name, value);
  return new Response(request.method === 'HEAD' ? null : refusalPage(response.status, message, publicUrl, { title, link }), { status: response.status, headers });
}
