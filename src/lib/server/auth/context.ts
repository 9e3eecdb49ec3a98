/** Builds the auth recipes' context from an Astro request. */
import type { APIContext } from 'astro';
import { getArchive } from '../archive.ts';
import type { AuthContext } from './index.ts';

export async function authContext(context: Pick<APIContext, 'request' | 'cookies' | 'locals'>): Promise<AuthContext> {
  const { db, config } = await getArchive();
  return {
    db,
    request: context.request,
    cookies: context.cookies,
    clientAddress: context.locals.clientAddress,
    // The domains a wallet may sign in for come from configuration, never from the request's Host:
    // a page on another domain could otherwise have a moderator sign for it (issue #16).
    domains: config.allowedHosts,
    chainIds: config.chainIds,
    secureCookies: new URL(config.publicUrl).protocol === 'https:',
  };
}
