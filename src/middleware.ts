/**
 * Runs before every page and endpoint: fills `Astro.locals` (the archive's public origin, the
 * signed-in user) and applies the access rules of DECISIONS.md 'Access':
 * - anonymous browsing by default; `ARCHIVE_REQUIRE_LOGIN=true` sends every path but /auth/* to
 *   the sign-in page while logged out (the spec's stated routing rule);
 * - signed in, /auth and the sign-in page lead to the dashboard.
 */
import { defineMiddleware } from 'astro:middleware';
import { getArchive } from './lib/server/archive.ts';
import { SESSION_COOKIE } from './lib/server/auth/index.ts';
import { findSessionUser } from './lib/server/auth/sessions.ts';
import { readConfig } from './lib/server/config.ts';
import { checkHost, clientAddressOf } from './lib/server/http/host.ts';
import { withSecurityHeaders } from './lib/server/http/security-headers.ts';
import { NUL_MESSAGE } from './lib/server/http/input.ts';

const config = readConfig();

/** Pages a signed-in visitor has no use for. */
const SIGNED_OUT_PAGES = new Set(['/auth', '/auth/', '/auth/login', '/auth/forgot-password']);
/** What the sign-in page itself needs while everything else is closed. */
const ALWAYS_OPEN = /^\/(auth(\/|$)|_astro\/|favicon\.svg$|logout$|robots\.txt$)/;

/** Only uploads stream large bodies (with their own limits); every other request stays small. */
const STREAMED_BODIES = new Set(['/v2/ops/assets/add']);
const SMALL_BODY_BYTES = 1024 * 1024;

/** A 411 or 413 for a body that could be too large to hold, before anyone reads it. */
function refuseLargeBody(request: Request, path: string): Response | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return undefined;
  if (STREAMED_BODIES.has(path)) return undefined;
  const length = request.headers.get('content-length');
  if (length === null) {
    if (!request.body) return undefined;
    return Response.json({ code: 411, message: 'Indique la longitud del cuerpo (Content-Length).' }, { status: 411 });
  }
  if (!(Number(length) <= SMALL_BODY_BYTES)) {
    return Response.json({ code: 413, message: 'El cuerpo de la petición es demasiado grande.' }, { status: 413 });
  }
  return undefined;
}

export const onRequest = defineMiddleware(async (context, next) => withSecurityHeaders(await route(context, next)));

async function route(context: Parameters<Parameters<typeof defineMiddleware>[0]>[0], next: () => Promise<Response>): Promise<Response> {
  context.locals.origin = config.publicUrl;
  context.locals.user = null;
  // Pages built ahead (the docs) are the same for everyone: no request, no session to read.
  if (context.isPrerendered) return next();
  // scripts/start.ts refuses these before the adapter builds a URL from them; this covers every
  // other way of serving the build (astro dev, the adapter's own server).
  const host = checkHost(context.request.headers.get('host') ?? context.url.host, config, context.url.pathname);
  if (!host.ok) return Response.json({ code: 400, message: host.message }, { status: 400 });
  context.locals.clientAddress = clientAddressOf(context.clientAddress, context.request.headers.get('x-forwarded-for'), config.trustedProxies);
  const path = context.url.pathname;
  const refused = refuseLargeBody(context.request, path);
  if (refused) return refused;
  // A NUL in the path or a parameter could only fail in the database: refused here, once.
  if (/%00/i.test(context.url.pathname + context.url.search)) {
    return Response.json({ code: 400, message: NUL_MESSAGE }, { status: 400 });
  }

  // Only a request that carries a session pays for looking it up.
  const token = context.cookies.get(SESSION_COOKIE)?.value;
  if (token) {
    const { db } = await getArchive();
    context.locals.user = await findSessionUser(db, token);
  }

  if (context.locals.user && context.request.method === 'GET' && SIGNED_OUT_PAGES.has(path)) {
    return context.redirect('/dashboard', 302);
  }
  if (config.requireLogin && !context.locals.user && !ALWAYS_OPEN.test(path)) {
    return context.redirect('/auth/login', 302);
  }
  return next();
}
