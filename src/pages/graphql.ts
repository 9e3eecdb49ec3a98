/** `/graphql`: the read-only GraphQL API (GET and POST; GraphiQL when opened in a browser). */
import type { APIRoute } from 'astro';
import { getArchive } from '../lib/server/archive.ts';
import { createGraphqlHandler } from '../lib/server/graphql/index.ts';

export const prerender = false;

const yoga = createGraphqlHandler(async () => (await getArchive()).db);

/**
 * Yoga answers with its own fetch ponyfill's Response under Node, which Astro does not accept as
 * a Response (it checks the class): the answer is handed over as a standard one.
 */
export const ALL: APIRoute = async ({ request, locals }) => {
  const answer = await yoga.fetch(request, { origin: locals.origin });
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
};
