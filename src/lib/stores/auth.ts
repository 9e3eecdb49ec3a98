/**
 * `$auth`: who is signed in, shared by every island and script (wallet button, search, upload).
 * Persisted under a versioned key (SPEC §3) so a reload keeps the session; the key's version
 * changes whenever the stored shape does, and an unreadable value simply means signed out.
 * Browser only: the server reads sessions from the cookie, never from this store.
 */
import { atom } from 'nanostores';
import type { User } from '../domain/user.ts';

export const AUTH_STORAGE_KEY = 'archivo-abierto:auth:v1';

export interface AuthState {
  accessToken: string | null;
  user: User | null;
}

const SIGNED_OUT: AuthState = { accessToken: null, user: null };

function read(): AuthState {
  if (typeof localStorage === 'undefined') return SIGNED_OUT;
  try {
    const stored = JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null') as Partial<AuthState> | null;
    return stored?.accessToken && stored.user ? { accessToken: stored.accessToken, user: stored.user } : SIGNED_OUT;
  } catch {
    return SIGNED_OUT;
  }
}

export const $auth = atom<AuthState>(read());

$auth.listen((state) => {
  if (state.accessToken) localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify(state));
  else localStorage.removeItem(AUTH_STORAGE_KEY);
});

/** Login: the token and the user the server answered. */
export function signedIn(accessToken: string, user: User): void {
  $auth.set({ accessToken, user });
}

/** Logout, on this device: the server side is ended by /logout. */
export function signedOut(): void {
  $auth.set(SIGNED_OUT);
}
