/**
 * Cross-site form posts are refused (a form on another site cannot sign a visitor out, send a
 * contact message or upload in their name), as Astro's own origin check does, with one
 * difference: "our origin" is what the configuration names, not the URL the adapter rebuilt from
 * the request. Behind a proxy that ends TLS the adapter sees `http://…` while the browser sends
 * `Origin: https://…`, and Astro's check refused the archive's own forms (the sign-out button).
 * Astro's check is off (astro.config.mjs) so that this one is the only one.
 */
import { bearerToken } from '../auth/sessions.ts';
import { ForbiddenError } from './errors.ts';

/** What a browser can send cross-site without a CORS preflight. */
const FORM_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const NO_ORIGIN =
  'Una petición que cambia algo sin cabecera Origin debe llevar su token (Authorization: Bearer) o un cuerpo JSON (Content-Type: application/json): un formulario solo se acepta desde las páginas del archivo.';

/** Whether `origin` (an `Origin` header) is one of the archive's own: http(s) on a host it serves. */
function isOwnOrigin(origin: string | null, allowedHosts: readonly string[]): boolean {
  if (!origin) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && allowedHosts.includes(url.host) && url.origin === origin;
  } catch {
    return false;
  }
}

/**
 * Throws a 403 for a state-changing request that a page on another site could have sent: a form
 * content type (or none at all) with an `Origin` that is not ours, or with no `Origin` and no
 * Bearer token. JSON bodies need a preflight, which the archive never grants to other origins, so
 * they pass as Astro's check lets them.
 */
export function refuseCrossSiteForm(request: Request, allowedHosts: readonly string[]): void {
  if (SAFE_METHODS.has(request.method)) return;
  if (isOwnOrigin(request.headers.get('origin'), allowedHosts)) return;
  // A script (curl) with its own token sends no Origin, which every browser sends on a cross-site
  // post: no form riding on a visitor's cookie, and with a Bearer token the cookie is never read
  // (`sessionToken`). A browser page of another site keeps being refused, token or not.
  if (!request.headers.has('origin') && bearerToken(request) !== undefined) return;
  const contentType = request.headers.get('content-type');
  const formLike = contentType === null || FORM_CONTENT_TYPES.some((type) => contentType.toLowerCase().includes(type));
  if (!formLike) return;
  // A browser always names the page's origin: none at all is a script, told what it may send.
  if (!request.headers.has('origin')) throw new ForbiddenError(NO_ORIGIN);
  throw new ForbiddenError('Formulario enviado desde otro sitio: no se acepta.');
}
