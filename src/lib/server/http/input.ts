/**
 * Reading a request's input, once for every endpoint: a body or query checked against its zod
 * schema becomes typed data or a `ValidationError` with the first message of each field
 * (Starlight's `parseWithFriendlyErrors` is the model). Text PostgreSQL cannot store, with a NUL
 * character (U+0000), would make any query that carries it fail (22021) and surface as a 500: it
 * is refused here with a 400 too.
 */
import { z } from 'zod';
import { fieldErrors } from '../../domain/auth.ts';
import { UnsupportedMediaTypeError, ValidationError } from './errors.ts';

// zod's own messages (a body that is an array, a number where a text goes) in Spanish, as every
// answer of the archive; the schemas' own messages are written in Spanish, or as the spec words them.
z.config(z.locales.es());

export const NUL_MESSAGE = 'El texto contiene un carácter nulo (NUL), que no se admite.';
const NOT_JSON = 'El cuerpo de la petición debe ser JSON.';
const NOT_JSON_TYPE = 'El cuerpo de la petición debe ser JSON, enviado con la cabecera Content-Type: application/json.';

/** `application/json`, or a type built on it (`application/problem+json`), whatever its parameters. */
const isJsonType = (contentType: string) => /^application\/([\w.+-]+\+)?json$/i.test(contentType.split(';')[0]!.trim());

/**
 * Deepest nesting of arrays and objects accepted in a request's JSON. The archive's deepest input
 * (a GraphQL filter, an upload's fields) needs a handful of levels; a body of 200,000 brackets
 * would only cost time and memory (issue: the NUL check recursed on it until the stack overflowed).
 */
export const MAX_JSON_DEPTH = 64;
const TOO_DEEP = `El JSON anida más de ${MAX_JSON_DEPTH} niveles de listas u objetos, que no se admiten.`;

/**
 * What makes a JSON-like value unfit for the archive: a NUL in a string or a key, or nesting deeper
 * than `MAX_JSON_DEPTH`; null when neither. Walked with a stack of its own, so that no depth can
 * overflow the call stack, and stopped at the first problem.
 */
export function jsonProblem(value: unknown): string | null {
  const pending: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 0 }];
  while (pending.length > 0) {
    const { item, depth } = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\0')) return NUL_MESSAGE;
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
    if (Array.isArray(item)) {
      for (const element of item) pending.push({ item: element, depth: depth + 1 });
      continue;
    }
    for (const [key, element] of Object.entries(item)) {
      if (key.includes('\0')) return NUL_MESSAGE;
      pending.push({ item: element, depth: depth + 1 });
    }
  }
  return null;
}

/** Throws the 400 for input that holds a NUL, or nests too deep (`jsonProblem`). */
export function refuseUnfitInput(value: unknown): void {
  const problem = jsonProblem(value);
  if (problem) throw new ValidationError(problem);
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

/**
 * A request's body read as JSON: a 415 when it says it is something else (a form, plain text:
 * `fetch` names a bare string `text/plain`), a 400 when it is not JSON. A body that names no type
 * is read as JSON.
 */
export async function readJson(request: Request): Promise<unknown> {
  const declared = request.headers.get('content-type');
  if (declared !== null && !isJsonType(declared)) throw new UnsupportedMediaTypeError(NOT_JSON_TYPE);
  try {
    return await request.json();
  } catch {
    throw new ValidationError(NOT_JSON);
  }
}

/** A JSON body checked against `schema`: a 400 for what is not JSON, holds a NUL, nests too deep, or does not fit. */
export async function parseJson<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  const body = await readJson(request);
  refuseUnfitInput(body);
  return parseInput(schema, body);
}

/** The query string of `url` checked against `schema` (unknown parameters are ignored). */
export function readQuery<T extends z.ZodType>(url: URL, schema: T): z.infer<T> {
  return parseInput(schema, Object.fromEntries(url.searchParams), 'Parámetros no válidos.');
}
