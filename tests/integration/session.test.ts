/**
 * Who the user is, resolved once per request by the middleware (`resolveSession`), and the access
 * rules it applies with that user (`accessRedirect`): a session sent as `Authorization: Bearer`,
 * as the README documents for API clients, counts as much as the cookie, with or without
 * `ARCHIVE_REQUIRE_LOGIN`.
 */
import type { AstroCookies } from 'astro';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toUser } from '../../src/lib/domain/user.ts';
import { accessRedirect, requireUser } from '../../src/lib/server/auth/access.ts';
import { createSession, resolveSession, revokeSession, SESSION_COOKIE, upsertUser } from '../../src/lib/server/auth/sessions.ts';
import { HttpError } from '../../src/lib/server/http/errors.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { ALICE, MALLORY } from '../helpers/siwe.ts';

/** The cookies of a request that carries `cookie` as its session cookie (or none). */
function cookiesWith(cookie?: string): AstroCookies {
  return { get: (name: string) => (name === SESSION_COOKIE && cookie !== undefined ? { value: cookie } : undefined) } as unknown as AstroCookies;
}

function requestWith(bearer?: string): Request {
  return new Request('http://localhost/v2/open-data/alexandrias/getAll', bearer === undefined ? {} : { headers: { Authorization: `Bearer ${bearer}` } });
}

const alice = toUser(ALICE.address.toLowerCase(), 'metamask');
const mallory = toUser(MALLORY.address.toLowerCase(), 'metamask');

describe.each(testEngines())('the session of a request on %s', (engine) => {
  let database: TestDatabase;
  let aliceToken: string;
  let malloryToken: string;
  const openDb = () => Promise.resolve(database.db);

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    aliceToken = (await createSession(database.db, await upsertUser(database.db, ALICE.address, 'metamask'))).token;
    malloryToken = (await createSession(database.db, await upsertUser(database.db, MALLORY.address, 'metamask'))).token;
  });
  afterAll(() => database?.destroy());

  it('is the user of an Authorization: Bearer token', async () => {
    expect(await resolveSession(requestWith(aliceToken), cookiesWith(), openDb)).toEqual(alice);
  });

  it('is the user of the session cookie', async () => {
    expect(await resolveSession(requestWith(), cookiesWith(malloryToken), openDb)).toEqual(mallory);
  });

  it('takes the Bearer token before the cookie', async () => {
    expect(await resolveSession(requestWith(aliceToken), cookiesWith(malloryToken), openDb)).toEqual(alice);
  });

  it('is nobody without either, and then never opens the database', async () => {
    const unused = vi.fn(openDb);
    expect(await resolveSession(requestWith(), cookiesWith(), unused)).toBeNull();
    expect(unused).not.toHaveBeenCalled();
  });

  it('is nobody for a token the server does not know, or has revoked', async () => {
    expect(await resolveSession(requestWith('caducado'), cookiesWith(), openDb)).toBeNull();
    const { token } = await createSession(database.db, await upsertUser(database.db, ALICE.address, 'metamask'));
    await revokeSession(database.db, token);
    expect(await resolveSession(requestWith(token), cookiesWith(), openDb)).toBeNull();
  });

  it('lets a Bearer-signed client through the closed archive, pages and API alike', async () => {
    const user = await resolveSession(requestWith(aliceToken), cookiesWith(), openDb);
    for (const path of ['/dashboard', '/v2/open-data/alexandrias/getAll', '/graphql', '/auth/get-user']) {
      expect(accessRedirect({ method: 'GET', path }, user, { requireLogin: true })).toBeNull();
      expect(accessRedirect({ method: 'GET', path }, user, { requireLogin: false })).toBeNull();
    }
  });
});

describe('the access rules', () => {
  it('send the logged-out visitor of a closed archive to sign in, everywhere but /auth/* and what the sign-in page needs', () => {
    for (const path of ['/', '/dashboard', '/group/src', '/sitemap.xml', '/v2/open-data/alexandrias/getAll', '/graphql', '/v2/healthz', '/v2/health/x']) {
      expect(accessRedirect({ method: 'GET', path }, null, { requireLogin: true })).toBe('/auth/login');
    }
    for (const path of ['/auth/login', '/auth/nonce', '/auth', '/_astro/app.js', '/favicon.svg', '/login', '/logout', '/robots.txt', '/v2/health']) {
      expect(accessRedirect({ method: 'GET', path }, null, { requireLogin: true })).toBeNull();
    }
    expect(accessRedirect({ method: 'GET', path: '/dashboard' }, null, { requireLogin: false })).toBeNull();
  });

  it('lead a signed-in visitor from the sign-in pages to the dashboard, but let the sign-in API answer', () => {
    for (const path of ['/auth', '/auth/', '/auth/login', '/auth/forgot-password']) {
      expect(accessRedirect({ method: 'GET', path }, alice, { requireLogin: false })).toBe('/dashboard');
    }
    expect(accessRedirect({ method: 'POST', path: '/auth/login' }, alice, { requireLogin: true })).toBeNull();
    expect(accessRedirect({ method: 'GET', path: '/auth/nonce' }, alice, { requireLogin: true })).toBeNull();
  });

  it('require a user where one is needed: a 401 for nobody', () => {
    expect(requireUser({ user: alice })).toEqual(alice);
    let refused: unknown;
    try {
      requireUser({ user: null });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(401);
  });
});
