/**
 * Signing in with a wallet, as the endpoints under /auth use it: each function is one request's
 * recipe (validate, limit, verify, answer) on top of nonces, SIWE, sessions and rate limits.
 * Who is signed in is not asked here: the middleware resolved it into `locals.user` (access.ts).
 */
import type { AstroCookies } from 'astro';
import { loginRequestSchema, registerRequestSchema, resetEmailSchema } from '../../domain/auth.ts';
import { toUser } from '../../domain/user.ts';
import type { Db } from '../db/index.ts';
import { parseInput, parseJson } from '../http/input.ts';
import { issueNonce } from './nonces.ts';
import { spend } from './rate-limit.ts';
import { createSession, revokeSession, SESSION_COOKIE, sessionToken, upsertUser } from './sessions.ts';
import { verifySignIn } from './siwe.ts';

export interface AuthContext {
  db: Db;
  request: Request;
  cookies: AstroCookies;
  clientAddress: string;
  /** Hosts the archive is served on (`ArchiveConfig.allowedHosts`): a SIWE message must name one. */
  domains: readonly string[];
  chainIds: readonly number[];
  /**
   * The session cookie is `Secure` whatever the request says: the archive's public address
   * (`ARCHIVE_PUBLIC_URL`) is https, so a proxy that does not pass `X-Forwarded-Proto` does not
   * leave the session readable over plain http.
   */
  secureCookies?: boolean;
}

export const LIMITS = {
  noncePerIp: { max: 30, windowSeconds: 60 },
  loginPerIp: { max: 20, windowSeconds: 60 },
  loginPerAddress: { max: 10, windowSeconds: 60 },
  resetPerIp: { max: 5, windowSeconds: 60 },
} as const;

function setSessionCookie(context: AuthContext, token: string, expiresAt: Date): void {
  context.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    // Behind a TLS-terminating proxy the request arrives as http: its X-Forwarded-Proto tells.
    // (A forged header could only make the cookie stricter.)
    secure:
      context.secureCookies === true ||
      new URL(context.request.url).protocol === 'https:' ||
      (context.request.headers.get('x-forwarded-proto') ?? '').split(',')[0]?.trim() === 'https',
    path: '/',
    expires: expiresAt,
  });
}

export async function nonce(context: AuthContext) {
  await spend(context.db, `nonce:ip:${context.clientAddress}`, LIMITS.noncePerIp);
  return issueNonce(context.db);
}

async function signIn(context: AuthContext, proof: { message: string; signature: string; provider: string }, names = {}) {
  // Attempts, failed ones above all, count against the client that sends them. A wallet's own
  // allowance is spent only by valid signatures: anybody can write an address into a message,
  // and junk naming a victim must not lock the victim out (issue #16).
  await spend(context.db, `login:ip:${context.clientAddress}`, LIMITS.loginPerIp);
  const account = await verifySignIn(context.db, {
    message: proof.message,
    signature: proof.signature,
    domains: context.domains,
    chainIds: context.chainIds,
  });
  await spend(context.db, `login:address:${account}`, LIMITS.loginPerAddress);
  const userId = await upsertUser(context.db, account, proof.provider, names);
  const session = await createSession(context.db, userId);
  setSessionCookie(context, session.token, session.expiresAt);
  return { accessToken: session.token, user: toUser(account, proof.provider) };
}

export async function login(context: AuthContext) {
  return signIn(context, await parseJson(context.request, loginRequestSchema));
}

export async function register(context: AuthContext) {
  const { firstname, lastname, ...proof } = await parseJson(context.request, registerRequestSchema);
  return signIn(context, proof, { firstname, lastname });
}

export async function logout(context: Pick<AuthContext, 'db' | 'request' | 'cookies'>): Promise<void> {
  const token = sessionToken(context.request, context.cookies);
  if (token) await revokeSession(context.db, token);
  context.cookies.delete(SESSION_COOKIE, { path: '/' });
}

/**
 * Password reset keeps its form, but wallets have no password: whatever the address, the answer
 * is the same, so nobody can learn whether an account exists (DECISIONS).
 */
export async function forgotPassword(context: AuthContext, form?: Record<string, unknown>) {
  await spend(context.db, `reset:ip:${context.clientAddress}`, LIMITS.resetPerIp);
  // The page's form sent without its script comes as a web form (`form`); the API's call as JSON.
  if (form) parseInput(resetEmailSchema, form);
  else await parseJson(context.request, resetEmailSchema);
  return { code: 200, message: 'Sent password reset. Please check your email' };
}
