/**
 * The open API's query parameters, as zod schemas: they validate every request and generate the
 * OpenAPI document, so the documentation cannot drift from what the endpoints accept.
 * Unknown parameters are ignored, as the original API did; known ones are strict.
 */
import { z } from 'zod';
import { ASSET_STATUS_VALUES, ASSET_TYPE_VALUES } from '../../domain/constants.ts';
import { MAX_LIMIT } from '../queries/find.ts';

const limit = (fallback: number) =>
  z.coerce
    .number({ error: 'limit debe ser un número entero.' })
    .int('limit debe ser un número entero.')
    .min(1, 'limit debe ser al menos 1.')
    .max(MAX_LIMIT, `limit no puede pasar de ${MAX_LIMIT}.`)
    .default(fallback)
    .describe(`Cuántos resultados devolver (1 a ${MAX_LIMIT}).`);

const text = (name: string, description: string) =>
  z.string().trim().min(1, `${name} no puede estar vacío.`).max(200, `${name} es demasiado largo.`).optional().describe(description);

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
  .describe('Orden: campo:1 ascendente o campo:-1 descendente.');

export const alexandriasGetAllParams = z.object({
  wallet_address: wallet,
  title: text('title', 'Texto contenido en el título, sin distinguir mayúsculas ni acentos.'),
  limit: limit(5),
  sort: signedSort,
});

export const namedGetAllParams = z.object({
  name: text('name', 'Texto contenido en el nombre, sin distinguir mayúsculas ni acentos.'),
  limit: limit(5),
});

export const categoriesGetAllParams = z.object({ limit: limit(MAX_LIMIT) });

/** The admin host's Strapi-style listing: `_limit`, `_start`, `_sort=field:asc|desc`, field equality. */
export const strapiAlexandriasParams = z.object({
  wallet_address: wallet,
  cid: z.string().trim().min(1).max(120).optional().describe('CID del archivo.'),
  status: z.enum(ASSET_STATUS_VALUES, { error: 'status no es un estado válido.' }).optional().describe('Estado del registro.'),
  type: z.enum(ASSET_TYPE_VALUES, { error: 'type no es un formato válido.' }).optional().describe('Formato del registro.'),
  _limit: limit(3).describe(`Cuántos resultados devolver (1 a ${MAX_LIMIT}).`),
  _start: z.coerce.number({ error: '_start debe ser un número entero.' }).int('_start debe ser un número entero.').min(0, '_start no puede ser negativo.').max(1_000_000, '_start es demasiado grande.').default(0).describe('Cuántos resultados saltar.'),
  _sort: z
    .string()
    .regex(/^(createdAt|updatedAt|title|id):(asc|desc)$/, '_sort debe ser campo:asc o campo:desc (createdAt, updatedAt, title o id).')
    .default('createdAt:desc')
    .describe('Orden, campo:asc o campo:desc.'),
});

export const cidParam = z.string().trim().min(1).max(120).describe('CID (v0 o v1) del archivo.');
