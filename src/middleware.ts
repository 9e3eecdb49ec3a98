/**
 * Runs before every page and endpoint: refuses what no route should see (an unknown Host, a body
 * too large to hold, a NUL), fills `Astro.locals` (the archive's public origin, the client's
 * address, the signed-in user and whether they moderate) and applies the access rules
 * (`lib/server/auth/access.ts`). The session is read here, once, from `Authorization: Bearer` or
 * the cookie; pages, endpoints and guards read `locals`, never the request again.
 */
import { defineMiddleware } from 'astro:middleware';
import { preflight, publicReadMethods, withPublicReadCors } from './lib/server/api/rest.ts';
import { getArchive } from './lib/server/archive.ts';
import { accessRedirect } from './lib/server/auth/access.ts';
import { resolveSession } from './lib/server/auth/sessions.ts';
import { readConfig } from './lib/server/config.ts';
import { pacedBody } from './lib/server/http/backpressure.ts';
import { HttpError, toResponse } from './lib/server/http/errors.ts';
import { checkHost, clientAddressOf } from './lib/server/http/host.ts';
import { refuseCrossSiteForm } from './lib/server/http/origin-check.ts';
import { withSecurityHeaders } from './lib/server/http/security-headers.ts';
import { withSessionCaching } from './lib/server/http/session-caching.ts';
import { NUL_MESSAGE } from './lib/server/http/input.ts';
import { REFUSAL_PAGE_HEADERS, refusalPage, wantsPage } from './lib/server/http/refusal-page.ts';
import { currentOutlet } from './lib/server/http/node-request.ts';
import { isModerator } from './lib/server/moderation/index.ts';

const config = readConfig();

/** Only uploads stream large bodies (with their own limits); every other request stays small. */
const STREAMED_BODIES = new Set(['/v2/ops/assets/add']);
const SMALL_BODY_BYTES = 1024 * 1024;

/**
 * The connection ends with such a refusal: kept alive, Node would read the unread body to its end,
 * however long; closing, it is read only within the bounds of `http/unread-body.ts`.
 */
const CLOSE = { Connection: 'close' };

/** A 411 or 413 for a body that could be too large to hold, before anyone reads it. */
function refuseLargeBody(request: Request, path: string): void {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
  if (STREAMED_BODIES.has(path)) return;
  const length = request.headers.get('content-length');
  if (length === null) {
    // With neither Content-Length nor Transfer-Encoding, HTTP/1.1 says there is no body (a POST
    // that only asks for something: «ejecutar ahora»), though the adapter still hands one over.
    if (request.body && request.headers.has('transfer-encoding')) throw new HttpError(411, 'Indique la longitud del cuerpo (Content-Length).', CLOSE);
    return;
  }
  if (!(Number(length) <= SMALL_BODY_BYTES)) throw new HttpError(413, 'El cuerpo de la petición es demasiado grande.', CLOSE);
}

type Context = Parameters<Parameters<typeof defineMiddleware>[0]>[0];

/** Throws the refusal of a request no route should see; its answer is `toResponse`'s. */
function refuseUnfit(context: Context): void {
  // scripts/start.ts refuses these before the adapter builds a URL from them; this covers every
  // other way of serving the build (astro dev, the adapter's own server).
  const host = checkHost(context.request.headers.get('host') ?? context.url.host, config, context.url.pathname);
  if (!host.ok) throw new HttpError(400, host.message);
  refuseCrossSiteForm(context.request, config.allowedHosts);
  refuseLargeBody(context.request, context.url.pathname);
  // A NUL in the path or a parameter could only fail in the database: refused here, once.
  if (/%00/i.test(context.url.pathname + context.url.search)) throw new HttpError(400, NUL_MESSAGE);
}

// Public reads answer any origin, their errors and 404s included (api/rest.ts).
export const onRequest = defineMiddleware(async (context, next) =>
  paced(withSecurityHeaders(withPublicReadCors(context.request.method, context.url.pathname, withStatusReason(await route(context, next))))),
);

/**
 * The answer with its body produced only as fast as the client reads it (`backpressure.ts`): the
 * adapter would otherwise buffer a whole file or catalogue for a client that stopped reading.
 */
function paced(response: Response): Response {
  const outlet = currentOutlet();
  if (!outlet || !response.body) return response;
  return new Response(pacedBody(response.body, outlet), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Statuses a `Response` cannot be built with a body for (their reason phrase is left as it is). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A page that sets `Astro.response.status` (a form's 400, a 403) keeps Astro's "OK" as its reason
 * phrase ("400 OK"; Astro mends only 404 and 500): without one, Node writes the status's own.
 */
function withStatusReason(response: Response): Response {
  if (response.status === 200 || response.statusText !== 'OK' || NULL_BODY_STATUSES.has(response.status)) return response;
  return new Response(response.body, { status: response.status, headers: response.headers });
}

async function route(context: Context, next: () => Promise<Response>): Promise<Response> {
  context.locals.origin = config.publicUrl;
  context.locals.user = null;
  context.locals.moderator = false;
  // Pages built ahead (the docs) are the same for everyone: no request, no session to read.
  if (context.isPrerendered) return next();
  try {
    refuseUnfit(context);
  } catch (error) {
    if (error instanceof HttpError && wantsPage(context.request.method, context.request.headers.get('accept'))) {
      return new Response(context.request.method === 'HEAD' ? null : refusalPage(error.status, error.message, config.publicUrl), {
        status: error.status,
        headers: { ...REFUSAL_PAGE_HEADERS, ...error.headers },
      });
    }
    return toResponse(error);
  }
  // The preflight of a public read, for every path under the API (an unknown one too); no session.
  const publicMethods = publicReadMethods(context.url.pathname);
  if (publicMethods && context.request.method === 'OPTIONS') return preflight(publicMethods);
  context.locals.clientAddress = clientAddressOf(context.clientAddress, context.request.headers.get('x-forwarded-for'), config.trustedProxies);

  const user = await resolveSession(context.request, context.cookies, async () => (await getArchive()).db);
  context.locals.user = user;
  context.locals.moderator = isModerator(user, config.moderators);

  const redirect = accessRedirect({ method: context.request.method, path: context.url.pathname }, user, config);
  if (redirect) return context.redirect(redirect, 302);
  return withSessionCaching(await next(), { signedIn: user !== null, loginRequired: config.requireLogin });
}
