/**
 * The open API's query parameters, as zod schemas: they validate every request and generate the
 * OpenAPI document, so the documentation cannot drift from what the endpoints accept.
 * Unknown parameters are ignored, as the original API did; known ones are strict.
 */
import { z } from 'zod';
import { ASSET_STATUS_VALUES, ASSET_TYPE_VALUES, SEARCH_TEXT_MAX } from '../../domain/constants.ts';
import { MAX_LIMIT } from '../queries/find.ts';

/**
 * A whole number written in decimal digits, as a query string carries it. `z.coerce.number()` takes
 * whatever `Number()` does: «0x10», «1e1», «0b1» and an empty value (0) would be read as numbers.
 */
const wholeNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && /^\s*-?\d{1,16}\s*$/.test(value) ? Number(value) : value), schema);

const limit = (fallback: number) =>
  wholeNumber(
    z
      .number({ error: 'limit debe ser un número entero.' })
      .int('limit debe ser un número entero.')
      .min(1, 'limit debe ser al menos 1.')
      .max(MAX_LIMIT, `limit no puede pasar de ${MAX_LIMIT}.`)
      .default(fallback),
  ).describe(`Cuántos resultados devolver (1 a ${MAX_LIMIT}).`);

const text = (name: string, description: string) =>
  z.string().trim().min(1, `${name} no puede estar vacío.`).max(SEARCH_TEXT_MAX, `${name} es demasiado largo.`).optional().describe(description);

const wallet = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'wallet_address debe ser una dirección de cartera (0x y 40 caracteres hexadecimales).')
  .optional()
  .describe('Dirección de la cartera que contribuyó (sin distinguir mayúsculas).');

/** `field:-1` / `field:1`, as the original client sent it (`createdAt:-1`). */
const signedSort = z
  .enum(['createdAt:-1', 'createdAt:1', 'updatedAt:-1', 'updatedAt:1', 'title:1', 'title:-1'], {
    error: 'sort debe ser createdAt, updatedAt o title seguido de :1 o :-1.',
  })
  .optional()
  .describe('Orden: campo:1 ascendente o campo:-1 descendente. Con title, las coincidencias más pertinentes en ese orden; sin sort, de la más pertinente a la menos.');

/**
 * Strapi v3's `_limit`: a whole number, where -1 (and 0, which Strapi also left unapplied) meant
 * "no limit". Unbounded lists are not served: those answer `MAX_LIMIT` rows. A larger number
 * written out is refused, as GraphQL's `limit` is: the client asked for more than it will get.
 */
export const strapiLimit = wholeNumber(
  z
    .number({ error: '_limit debe ser un número entero.' })
    .int('_limit debe ser un número entero.')
    .min(-1, '_limit debe ser -1, 0 o un número positivo.')
    .max(MAX_LIMIT, `_limit no puede pasar de ${MAX_LIMIT}; pida las siguientes con _start.`),
)
  .transform((value) => (value <= 0 ? MAX_LIMIT : value))
  .describe(`Cuántos resultados devolver, hasta ${MAX_LIMIT}. Como en Strapi v3, -1 o 0 piden "sin límite": el archivo devuelve ${MAX_LIMIT}; el resto, por páginas con _start.`);

export const strapiStart = wholeNumber(
  z
    .number({ error: '_start debe ser un número entero.' })
    .int('_start debe ser un número entero.')
    .min(0, '_start no puede ser negativo.')
    .max(1_000_000, '_start es demasiado grande.'),
).describe('Cuántos resultados saltar.');

export const alexandriasGetAllParams = z.object({
  wallet_address: wallet,
  title: text(
    'title',
    'Lo que se busca, como en el buscador del archivo: por palabras, sus plurales y raíces, sin distinguir mayúsculas ni acentos (ni la «ñ» de la «n»), mejores coincidencias primero; después, los títulos que contienen el texto tal cual (ahí la «ñ» sí se distingue).',
  ),
  limit: limit(5),
  sort: signedSort,
});

export const namedGetAllParams = z.object({
  name: text(
    'name',
    'Lo que se busca en los nombres (y siglas): por palabras, sin distinguir mayúsculas ni acentos (ni la «ñ» de la «n»), o por parecido; después, los nombres que contienen el texto tal cual (ahí la «ñ» sí se distingue).',
  ),
  limit: limit(5),
  _limit: strapiLimit.optional().describe('Como limit, al estilo Strapi (la página de grupos del cliente original pide _limit=15); gana sobre limit.'),
  _start: strapiStart.default(0).describe('Cuántos resultados saltar, al estilo Strapi.'),
});

export const categoriesGetAllParams = z.object({ limit: limit(MAX_LIMIT) });

/**
 * The window of the admin host's Strapi-style lists (`/alexandrias`, `/departments`, `/sources`,
 * `/categories`, `/imports`). Field filters are any other parameter (api/strapi.ts), checked by
 * the same rules as GraphQL's `where`.
 */
export const strapiWindowParams = z.object({
  _limit: strapiLimit.optional(),
  _start: strapiStart.default(0),
  _sort: z
    .string()
    .max(100, '_sort es demasiado largo.')
    .optional()
    .describe('Orden, campo:asc o campo:desc (por defecto asc). Solo asc o desc, como aceptaba el servicio original, ordena por id.'),
});

const relation = (name: string, description: string) => z.string().regex(/^\d{1,15}$/, `${name} debe ser un id numérico.`).optional().describe(description);

/** `GET /alexandrias`, for the OpenAPI document: the window and the record filters. */
export const strapiAlexandriasParams = strapiWindowParams.extend({
  wallet_address: z.string().trim().max(200, 'wallet_address es demasiado largo.').optional().describe('Dirección de la cartera que contribuyó (sin distinguir mayúsculas).'),
  cid: z.string().trim().min(1, 'cid no puede estar vacío.').max(120, 'cid es demasiado largo para ser un CID.').optional().describe('CID del archivo: el actual de cada registro, o el de una versión anterior (el registro, con su archivo actual).'),
  status: z.enum(ASSET_STATUS_VALUES, { error: `status debe ser uno de: ${ASSET_STATUS_VALUES.join(', ')}.` }).optional().describe('Estado del registro.'),
  type: z.enum(ASSET_TYPE_VALUES, { error: `type debe ser uno de: ${ASSET_TYPE_VALUES.join(', ')}.` }).optional().describe('Formato del registro.'),
  title_contains: z.string().max(SEARCH_TEXT_MAX, 'title_contains es demasiado largo.').optional().describe('Texto contenido en el título, sin distinguir mayúsculas ni acentos (la «ñ» sí se distingue de la «n»).'),
  source: relation('source', 'Id de la fuente.'),
  department: relation('department', 'Id de la institución.'),
  category: relation('category', 'Id de la categoría.'),
});

export const cidParam = z.string().trim().min(1).max(120).describe('CID (v0 o v1) del archivo.');
