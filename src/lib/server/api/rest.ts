/**
 * The REST calls of SPEC §7, each a recipe: read the query with its zod schema, run the query
 * layer, answer the `{ code, body }` envelope with `body` a JSON string where the spec says so.
 * Status codes are real (the original answered 200 on errors) and `code` always equals them.
 */
import { toResponse } from '../http/errors.ts';

export { readQuery } from '../http/input.ts';

/** Public reads: any origin may read them, without credentials (issue #4 'Cross-origin'). */
export const PUBLIC_READ_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': 'public, max-age=60',
} as const;

export function envelope(body: unknown, { stringify = true } = {}): Response {
  return new Response(JSON.stringify({ code: 200, body: stringify ? JSON.stringify(body) : body }), {
    status: 200,
    headers: PUBLIC_READ_HEADERS,
  });
}

/** Errors answered as everywhere (`toResponse`), readable from any origin too, and never cached. */
const ERROR_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' };

export async function rest(recipe: () => Promise<Response>): Promise<Response> {
  try {
    return await recipe();
  } catch (error) {
    return toResponse(error, ERROR_HEADERS);
  }
}

/** CORS preflight for the public reads. */
export function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, OPTIONS',
      'Access-Control-Allow-Headers': 'Content-Type',
      'Access-Control-Max-Age': '86400',
    },
  });
}
