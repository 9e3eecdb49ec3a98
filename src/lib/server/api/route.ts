/** Builds an Astro endpoint from a REST recipe: the archive, the request, the envelope on errors. */
import type { APIRoute } from 'astro';
import { getArchive } from '../archive.ts';
import type { ApiRequest } from './endpoints.ts';
import { preflight, rest } from './rest.ts';

export function publicRead(recipe: (request: ApiRequest, params: Record<string, string | undefined>) => Promise<Response>): {
  GET: APIRoute;
  OPTIONS: APIRoute;
} {
  return {
    GET: ({ url, params, locals }) =>
      rest(async () => {
        const { db } = await getArchive();
        return recipe({ db, url, origin: locals.origin ?? url.origin }, params);
      }),
    OPTIONS: () => preflight(),
  };
}
