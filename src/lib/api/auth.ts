/** The browser's calls to /auth (same origin: the session cookie travels with them). */
import type { User } from '../domain/user.ts';

export class ApiError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(path, { credentials: 'same-origin', ...init });
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) throw new ApiError(String(response.status), body.message ?? response.statusText);
  return body as T;
}

export function fetchNonce(): Promise<{ nonce: string; expiresAt: string }> {
  return call('/auth/nonce');
}

export function postLogin(payload: { message: string; signature: string; provider: string }): Promise<{ accessToken: string; user: User }> {
  return call('/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) });
}

export function fetchUser(accessToken: string): Promise<{ user: User; moderator?: boolean }> {
  return call('/auth/get-user', { headers: { Authorization: `Bearer ${accessToken}` } });
}

export function postForgotPassword(email: string): Promise<{ message: string }> {
  return call('/auth/forgot-password', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email }) });
}

/** A moderator's decision on one of the session's uploads (`GET /v2/account/notifications`). */
export interface AccountNotification {
  recordId: number;
  title: string;
  path: string;
  status: 'under_review' | 'on_line' | 'blocked' | 'broken';
  reason: string;
  at: string;
}

export async function fetchNotifications(accessToken: string): Promise<AccountNotification[]> {
  return (await call<{ body: AccountNotification[] }>('/v2/account/notifications', { headers: { Authorization: `Bearer ${accessToken}` } })).body;
}
