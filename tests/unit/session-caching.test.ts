/**
 * What a cache may keep of an answer, by session (`http/session-caching.ts`); the middleware's use
 * of it on real pages is checked in tests/e2e/headers.spec.ts and auth.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { withEditedHeaders } from '../../src/lib/server/http/response-headers.ts';
import { withSessionCaching } from '../../src/lib/server/http/session-caching.ts';

const page = () => new Response('<p>hola</p>', { headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=60' } });
const file = () => new Response('x', { headers: { 'Content-Type': 'application/pdf', 'Cache-Control': 'public, max-age=31536000, immutable, no-transform' } });
const cacheOf = (response: Response) => [response.headers.get('cache-control'), response.headers.get('vary')];

describe('caching by session', () => {
  it('lets any cache keep a public page for an anonymous visitor, apart from signed-in ones', () => {
    expect(cacheOf(withSessionCaching(page(), { signedIn: false, loginRequired: false }))).toEqual(['public, max-age=60', 'Cookie']);
    expect(cacheOf(withSessionCaching(file(), { signedIn: false, loginRequired: false }))).toEqual(['public, max-age=31536000, immutable, no-transform', null]);
  });

  it('adds Cookie to the page’s Vary once, beside what it names already', () => {
    const varied = (vary: string) => {
      const response = page();
      response.headers.set('Vary', vary);
      return withSessionCaching(response, { signedIn: false, loginRequired: false }).headers.get('vary');
    };
    expect(varied('Accept-Encoding')).toBe('Accept-Encoding, Cookie');
    expect(varied('accept-encoding, cookie')).toBe('accept-encoding, cookie');
    expect(varied('*')).toBe('*');
  });

  it('keeps a signed-in user’s page out of shared caches and asks again each time; files stay public', () => {
    expect(cacheOf(withSessionCaching(page(), { signedIn: true, loginRequired: false }))).toEqual(['private, no-cache', null]);
    expect(cacheOf(withSessionCaching(file(), { signedIn: true, loginRequired: false }))[0]).toBe('public, max-age=31536000, immutable, no-transform');
  });

  it('behind a login, lets no shared cache keep anything, files keeping their lifetime in the browser', () => {
    expect(cacheOf(withSessionCaching(page(), { signedIn: true, loginRequired: true }))[0]).toBe('private, no-cache');
    expect(cacheOf(withSessionCaching(file(), { signedIn: true, loginRequired: true }))[0]).toBe('private, max-age=31536000, immutable, no-transform');
    const shared = new Response('{}', { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=60, s-maxage=600, public' } });
    expect(cacheOf(withSessionCaching(shared, { signedIn: true, loginRequired: true }))[0]).toBe('private, max-age=60');
  });

  it('leaves answers no cache may share as they are', () => {
    const own = new Response('<p>mío</p>', { headers: { 'Content-Type': 'text/html', 'Cache-Control': 'private, no-store' } });
    expect(cacheOf(withSessionCaching(own, { signedIn: true, loginRequired: false }))[0]).toBe('private, no-store');
  });

  it('copies a response whose headers cannot change (Response.redirect, a fetched one) before changing them', () => {
    const redirect = Response.redirect('http://archivo.test/otra', 302);
    expect(() => redirect.headers.set('X-Prueba', '1')).toThrow();
    const changed = withEditedHeaders(redirect, (headers) => headers.set('X-Prueba', '1'));
    expect([changed.status, changed.headers.get('location'), changed.headers.get('x-prueba')]).toEqual([302, 'http://archivo.test/otra', '1']);
  });
});
