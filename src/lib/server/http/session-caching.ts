/**
 * Who may keep a copy of an answer. Pages and reads the same for everyone say `public, max-age=…`
 * (a visitor's browser or a CDN may keep them a while). That holds only without a session:
 *
 * - a page answered to a signed-in request (a cookie or a Bearer token) is the user's (a
 *   moderator's controls): `private, no-cache`, so that no shared cache keeps it and their own
 *   browser asks again; a contributor who has just uploaded sees their import on the dashboard,
 *   not the copy from a minute ago;
 * - with `ARCHIVE_REQUIRE_LOGIN`, every answer is for signed-in users only: a shared cache that kept
 *   one would hand it to anyone, past the login. Pages as above; files, API reads and feeds keep
 *   their lifetime, `private`;
 * - a public page says `Vary: Cookie`, so that a CDN keeps the anonymous copy apart from a
 *   signed-in visitor's. Files and API reads do not differ by session and are left as they are.
 */
import { varyWith, withEditedHeaders } from './response-headers.ts';

const SHARED = /(^|,)\s*(public|s-maxage=\d+)\s*(?=,|$)/gi;

export function withSessionCaching(response: Response, { signedIn, loginRequired }: { signedIn: boolean; loginRequired: boolean }): Response {
  const cacheControl = response.headers.get('cache-control');
  if (!cacheControl || !/\bpublic\b|\bs-maxage\b/i.test(cacheControl)) return response;
  const page = response.headers.get('content-type')?.startsWith('text/html') === true;
  if (page && (signedIn || loginRequired)) return withEditedHeaders(response, (headers) => headers.set('Cache-Control', 'private, no-cache'));
  if (loginRequired) {
    const kept = cacheControl.replace(SHARED, '').replace(/^\s*,\s*/, '');
    return withEditedHeaders(response, (headers) => headers.set('Cache-Control', kept ? `private, ${kept}` : 'private'));
  }
  return page ? withEditedHeaders(response, (headers) => headers.set('Vary', varyWith(headers.get('vary'), 'Cookie'))) : response;
}
