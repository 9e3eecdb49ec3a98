/**
 * The REST calls of SPEC §7, each a recipe: read the query with its zod schema, run the query
 * layer, answer the `{ code, body }` envelope with `body` a JSON string where the spec says so.
 * Status codes are real (the original answered 200 on errors) and `code` always equals them.
 */
import type { z } from 'zod';
import { fieldErrors } from '../../domain/auth.ts';
import { HttpError, ValidationError } from '../http/errors.ts';

/** Public reads: any origin may read them, without credentials (issue #4 'Cross-origin'). */
export const PUBLIC_READ_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': 'public, max-age=60',
} as const;

/** The query string of `url` checked against `schema` (unknown parameters are ignored). */
export function readQuery<T extends z.ZodType>(url: URL, schema: T): z.infer<T> {
  const result = schema.safeParse(Object.fromEntries(url.searchParams));
  if (!result.success) {
    const issues = fieldErrors(result.error);
    throw new ValidationError(issues[0]?.message ?? 'Parámetros no válidos.', issues);
  }
  return result.data;
}

export function envelope(body: unknown, { stringify = true } = {}): Response {
  return new Response(JSON.stringify({ code: 200, body: stringify ? JSON.stringify(body) : body }), {
    status: 200,
    headers: PUBLIC_READ_HEADERS,
  });
}

/** Errors in the same envelope, with the real status; readable from any origin too. */
export function envelopeError(error: unknown): Response {
  const status = error instanceof HttpError ? error.status : 500;
  if (status === 500) console.error(error);
  const message = error instanceof HttpError ? error.message : 'Error interno del archivo.';
  const issues = error instanceof ValidationError ? error.issues : undefined;
  return new Response(JSON.stringify({ code: status, message, ...(issues ? { issues } : {}) }), {
    status,
    headers: { ...PUBLIC_READ_HEADERS, 'Cache-Control': 'no-store' },
  });
}

export async function rest(recipe: () => Promise<Response>): Promise<Response> {
  try {
    return await recipe();
  } catch (error) {
    return envelopeError(error);
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
