/** Builds the auth recipes' context from an Astro request. */
import type { APIContext } from 'astro';
import { getArchive } from '../archive.ts';
import type { AuthContext } from './index.ts';

export async function authContext(context: Pick<APIContext, 'request' | 'cookies' | 'clientAddress' | 'url'>): Promise<AuthContext> {
  const { db, config } = await getArchive();
  // The SIWE domain is where the archive is reached: its configured public address, or this request's host.
  const domain = new URL(config.publicUrl ?? context.url.origin).host;
  return {
    db,
    request: context.request,
    cookies: context.cookies,
    clientAddress: context.clientAddress,
    domain,
    chainIds: config.chainIds,
  };
}
