/**
 * The access rules of DECISIONS.md 'Access', read by the middleware and the endpoints from the
 * user it resolved (`locals.user`), never from the request again:
 * - anonymous browsing by default; `ARCHIVE_REQUIRE_LOGIN=true` sends every path but /auth/* to
 *   the sign-in page while logged out (the spec's stated routing rule), whether the session
 *   came as a cookie or as `Authorization: Bearer` (the README's API clients);
 * - signed in, /auth and the sign-in page lead to the dashboard.
 */
import type { User } from '../../domain/user.ts';
import type { ArchiveConfig } from '../config.ts';
import { UnauthorizedError } from '../http/errors.ts';

/** Pages a signed-in visitor has no use for. */
const SIGNED_OUT_PAGES = new Set(['/auth', '/auth/', '/auth/login', '/auth/forgot-password']);
/**
 * What the sign-in page itself needs while everything else is closed (`/login` leads there with
 * its `?next=`), and the health check (a load balancer has no session; it tells only whether the
 * database answers).
 */
const ALWAYS_OPEN = /^\/(auth(\/|$)|_astro\/|favicon\.svg$|login$|logout$|robots\.txt$|v2\/health$)/;

/** Where the access rules send a request for `path`, or null to serve it. */
export function accessRedirect(
  request: { method: string; path: string },
  user: User | null,
  config: Pick<ArchiveConfig, 'requireLogin'>,
): '/dashboard' | '/auth/login' | null {
  if (user && request.method === 'GET' && SIGNED_OUT_PAGES.has(request.path)) return '/dashboard';
  if (config.requireLogin && !user && !ALWAYS_OPEN.test(request.path)) return '/auth/login';
  return null;
}

/** The signed-in user of this request, or a 401. */
export function requireUser(locals: Pick<App.Locals, 'user'>): User {
  if (!locals.user) throw new UnauthorizedError();
  return locals.user;
}
