/**
 * Reading a request's input, once for every endpoint: a body or query checked against its zod
 * schema becomes typed data or a `ValidationError` with the first message of each field
 * (Starlight's `parseWithFriendlyErrors` is the model). Text PostgreSQL cannot store, with a NUL
 * character (U+0000), would make any query that carries it fail (22021) and surface as a 500: it
 * is refused here with a 400 too.
 */
import type { z } from 'zod';
import { fieldErrors } from '../../domain/auth.ts';
import { ValidationError } from './errors.ts';

export const NUL_MESSAGE = 'El texto contiene un carácter nulo (NUL), que no se admite.';
const NOT_JSON = 'El cuerpo de la petición debe ser JSON.';

/** Whether `value` (any JSON-like value) holds a NUL in a string or a key, however deep. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => key.includes('\0') || containsNul(item));
  }
  return false;
}

/** Throws the 400 for input that holds a NUL. */
export function refuseNul(value: unknown): void {
  if (containsNul(value)) throw new ValidationError(NUL_MESSAGE);
}

/**
 * `value` checked against `schema`, or a 400 whose message is the first field's and whose issues
 * hold the first message of each field; `fallback` only shows if zod named no issue at all.
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, fallback = 'Petición no válida.'): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = fieldErrors(result.error);
  throw new ValidationError(issues[0]?.message ?? fallback, issues);
}

/** A request's body read as JSON, or a 400 when it is not JSON. */
export async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new ValidationError(NOT_JSON);
  }
}

/** A JSON body checked against `schema`: a 400 for what is not JSON, holds a NUL, or does not fit. */
export async function parseJson<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  const body = await readJson(request);
  refuseNul(body);
  return parseInput(schema, body);
}

/** The query string of `url` checked against `schema` (unknown parameters are ignored). */
export function readQuery<T extends z.ZodType>(url: URL, schema: T): z.infer<T> {
  return parseInput(schema, Object.fromEntries(url.searchParams), 'Parámetros no válidos.');
}
