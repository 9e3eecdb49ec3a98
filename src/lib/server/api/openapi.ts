/**
 * The OpenAPI 3.1 document of the REST API, generated from the same zod schemas that validate the
 * requests: a parameter documented here is exactly a parameter the endpoint accepts.
 */
import { z } from 'zod';
import { alexandriasGetAllParams, categoriesGetAllParams, cidParam, namedGetAllParams, strapiAlexandriasParams } from './params.ts';

type ZodObject = z.ZodObject<Record<string, z.ZodType>>;

interface Parameter {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  description?: unknown;
  schema: object;
}

function queryParameters(schema: ZodObject): Parameter[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const json = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const { description, $schema: _, ...rest } = json;
    return { name, in: 'query' as const, required: !field.safeParse(undefined).success, description: description ?? field.description, schema: rest };
  });
}

const envelope = (description: string, bodyIsString = true) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['code', 'body'],
        properties: {
          code: { type: 'integer', const: 200 },
          body: bodyIsString
            ? { type: 'string', description: 'Lista en JSON, como texto (la forma del API original).' }
            : { type: 'object', properties: { pins: { type: 'array' }, deals: { type: 'array' } } },
        },
      },
    },
  },
});

const failure = {
  description: 'Parámetros no válidos (400), no encontrado (404) o error (500); `code` repite el estado HTTP.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'integer' }, message: { type: 'string' }, issues: { type: 'array' } },
      },
    },
  },
};

const read = (summary: string, schema: ZodObject | null, ok: object, extra: Parameter[] = []) => ({
  get: {
    summary,
    parameters: [...extra, ...(schema ? queryParameters(schema) : [])],
    responses: { '200': ok, '400': failure, '404': failure, '500': failure },
  },
});

/** The REST paths the archive serves, with the zod schema of each one's query. */
export const REST_PATHS = {
  '/v2/open-data/alexandrias/getAll': read('Archivos de una cartera, o por título', alexandriasGetAllParams, envelope('Lista de archivos')),
  '/v2/open-data/departments/getAll': read('Ministerios o instituciones por nombre', namedGetAllParams, envelope('Lista de instituciones')),
  '/v2/open-data/sources/getAll': read('Fuentes por nombre', namedGetAllParams, envelope('Lista de fuentes')),
  '/v2/open-data/categories/getAll': read('Todas las categorías', categoriesGetAllParams, envelope('Lista de categorías')),
  '/v1/api/{entity}/getAll': read('Las fuentes, instituciones o categorías con más archivos', namedGetAllParams.pick({ limit: true }), envelope('Lista, de mayor a menor'), [
    { name: 'entity', in: 'path', required: true, schema: { type: 'string', enum: ['sources', 'departments', 'categories'] } },
  ]),
  '/alexandrias': read('Listado al estilo Strapi (_limit, _start, _sort, igualdad de campos)', strapiAlexandriasParams, {
    description: 'Lista de archivos (un arreglo JSON, sin sobre)',
    content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
  }),
  '/v1/services/filecoin/{cid}': read('Anclajes y acuerdos de almacenamiento de un CID', null, envelope('Anclajes y acuerdos', false), [
    { name: 'cid', in: 'path', required: true, description: cidParam.description, schema: { type: 'string' } },
  ]),
} as const;

export function openApiDocument(origin: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Archivo Abierto: API abierta',
      version: '1.0.0',
      description:
        'Lecturas públicas del archivo. Cada lista llega en el sobre `{ code, body }` con `body` como texto JSON, ' +
        'como lo hacía el API original; los estados HTTP son reales y `code` los repite. Para consultas más ricas, use GraphQL en /graphql.',
    },
    servers: [{ url: origin }],
    paths: REST_PATHS,
  };
}
