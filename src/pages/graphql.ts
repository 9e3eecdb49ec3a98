/** `/graphql`: the read-only GraphQL API (GET and POST; a browser opening it is sent to /docs#graphql). */
import type { APIRoute } from 'astro';
import { getArchive } from '../lib/server/archive.ts';
import { createGraphqlHandler } from '../lib/server/graphql/index.ts';
import { HttpError, toResponse, UnsupportedMediaTypeError } from '../lib/server/http/errors.ts';
import { NUL_MESSAGE } from '../lib/server/http/input.ts';

export const prerender = false;

const yoga = createGraphqlHandler(async () => (await getArchive()).db);

const NOT_A_QUERY_TYPE = 'Envíe la consulta como JSON (Content-Type: application/json) o como texto GraphQL (Content-Type: application/graphql).';

/**
 * Yoga answers with its own fetch ponyfill's Response under Node, which Astro does not accept as
 * a Response (it checks the class): the answer is handed over as a standard one.
 */
export const ALL: APIRoute = async ({ request, locals }) => {
  if (request.method === 'POST') {
    // Read once here to refuse text PostgreSQL cannot hold, then handed to yoga unchanged.
    const body = await request.text();
    if (body.includes('\\u0000') || body.includes('\0')) {
      return toResponse(new HttpError(400, NUL_MESSAGE));
    }
    request = new Request(request.url, { method: 'POST', headers: request.headers, body });
  }
  // The client's address (trusted proxies honoured by the middleware) rations expensive documents.
  const answer = await yoga.fetch(request, { origin: locals.origin, clientAddress: locals.clientAddress });
  // Yoga refuses a body of a type it does not read (plain text, a file) with an empty 415: said in
  // words, with Yoga's CORS headers, so that a page of another origin can read why.
  if (answer.status === 415) {
    const refusal = toResponse(new UnsupportedMediaTypeError(NOT_A_QUERY_TYPE));
    for (const [name, value] of answer.headers) if (name.startsWith('access-control-')) refusal.headers.set(name, value);
    return refusal;
  }
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
};
