/**
 * Sessions: an opaque random token for the browser, its SHA-256 in the database. The token goes
 * out once (cookie and `accessToken`); a stolen database copy holds nothing that signs anyone in.
 * A request carries it as `Authorization: Bearer …` (API clients, the islands) or as the cookie
 * (pages); `resolveSession` reads it once per request, in the middleware, into `locals.user`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AstroCookies } from 'astro';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { toUser, type User } from '../../domain/user.ts';
import type { Db } from '../db/index.ts';
import { sessions, users } from '../db/schema.ts';

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_COOKIE = 'archivo_session';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Finds or creates the user of `account` (lower-cased) and `provider`. */
export async function upsertUser(
  db: Db,
  account: string,
  provider: string,
  names: { firstname?: string; lastname?: string } = {},
): Promise<number> {
  const [row] = await db
    .insert(users)
    .values({ account: account.toLowerCase(), provider, ...names })
    .onConflictDoUpdate({
      target: [users.account, users.provider],
      // Registering again may add names; signing in never erases them.
      set: names.firstname || names.lastname ? names : { account: account.toLowerCase() },
    })
    .returning({ id: users.id });
  if (!row) throw new Error('user was not saved');
  return row.id;
}

/** Opens a session for `userId`; the token is returned once and never stored. */
export async function createSession(db: Db, userId: number, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.insert(sessions).values({ tokenHash: hashToken(token), userId, createdAt: now, expiresAt });
  return { token, expiresAt };
}

/** The user of a live session, or null for an unknown, revoked or expired token. */
export async function findSessionUser(db: Db, token: string | undefined | null, now = new Date()): Promise<User | null> {
  if (!token || token.length > 200) return null;
  const [row] = await db
    .select({ account: users.account, provider: users.provider })
    .from(sessions)
    .innerJoin(users, eq(sessions.userId, users.id))
    .where(and(eq(sessions.tokenHash, hashToken(token)), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .limit(1);
  return row ? toUser(row.account, row.provider) : null;
}

/** Ends a session on the server: its token stops working everywhere at once. */
export async function revokeSession(db: Db, token: string, now = new Date()): Promise<void> {
  await db.update(sessions).set({ revokedAt: now }).where(and(eq(sessions.tokenHash, hashToken(token)), isNull(sessions.revokedAt)));
}

/**
 * The token of `Authorization: Bearer …`, or undefined when the header is absent, names another
 * scheme or holds no token. With one, a request is that token's, whatever cookie it carries.
 */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  if (!header?.toLowerCase().startsWith('bearer ')) return undefined;
  return header.slice(7).trim() || undefined;
}

/** The session token of a request: `Authorization: Bearer …` first, then the cookie. */
export function sessionToken(request: Request, cookies: AstroCookies): string | undefined {
  if (request.headers.get('authorization')?.toLowerCase().startsWith('bearer ')) return bearerToken(request);
  return cookies.get(SESSION_COOKIE)?.value;
}

/**
 * The signed-in user of a request (Bearer token or cookie), or null. Only a request that carries
 * a token opens the database (`openDb`): anonymous reads never wait for it, and still render
 * while it is out of reach.
 */
export async function resolveSession(request: Request, cookies: AstroCookies, openDb: () => Promise<Db>): Promise<User | null> {
  const token = sessionToken(request, cookies);
  return token ? findSessionUser(await openDb(), token) : null;
}
