/**
 * The OpenAPI 3.1 document of the REST API, generated from the same zod schemas that validate the
 * requests: a parameter documented here is exactly a parameter the endpoint accepts.
 */
import { z } from 'zod';
import { assetPayloadSchema, CONFIRMATION_SENTENCE } from '../../domain/upload.ts';
import { PROVIDERS } from '../../domain/user.ts';
import { registerRequestSchema } from '../../domain/auth.ts';
import { ASSET_STATUS_VALUES, SOURCE_REVIEW_STATUS_VALUES } from '../../domain/constants.ts';
import { departmentStatusChange, recordStatusChange, sourceStatusChange } from '../moderation/index.ts';
import { NOTIFICATIONS_LIMIT } from '../queries/notifications.ts';
import { harvestSourceEdit, newHarvestSourceInput } from '../harvest/manage.ts';
import { alexandriasGetAllParams, categoriesGetAllParams, cidParam, namedGetAllParams, strapiAlexandriasParams, strapiWindowParams } from './params.ts';

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
            ? { type: 'string', description: 'Lista en JSON, como texto (la forma de la API original).' }
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

/** The admin host's other Strapi-style paths (api/strapi.ts): each collection's list, one by id, and its count. */
function strapiPaths(): Record<string, ReturnType<typeof read>> {
  const plain = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } });
  const capitalized = (text: string) => text[0]!.toUpperCase() + text.slice(1);
  const collections = { sources: 'fuentes', departments: 'instituciones', categories: 'categorías', imports: 'importaciones', alexandrias: 'archivos' } as const;
  const paths: Array<[string, ReturnType<typeof read>]> = [];
  for (const [collection, named] of Object.entries(collections)) {
    // `/alexandrias` is described above, with its record filters.
    if (collection !== 'alexandrias') {
      const list = plain(`Lista de ${named} (un arreglo JSON, sin sobre)`, { type: 'array', items: { type: 'object' } });
      paths.push([`/${collection}`, read(`Listado de ${named} al estilo Strapi (_limit, _start, _sort, igualdad de campos)`, strapiWindowParams, list)]);
    }
    const id: Parameter = { name: 'id', in: 'path', required: true, description: 'Id.', schema: { type: 'integer', minimum: 0 } };
    paths.push(
      [`/${collection}/{id}`, read(`${capitalized(named)} por id, al estilo Strapi`, null, plain('Un objeto JSON, sin sobre', { type: 'object' }), [id])],
      [`/${collection}/count`, read(`Cuenta de ${named} que cumplen los filtros (los parámetros de la lista)`, null, plain('Un número JSON, sin sobre', { type: 'integer' }))],
    );
  }
  return Object.fromEntries(paths);
}

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
  ...strapiPaths(),
  '/v2/open-data/alexandrias/{id}/sheets': read('Las hojas de un XLSX u ODS, extraídas como CSV (cada una con su CID)', null, envelope('Lista de hojas'), [
    { name: 'id', in: 'path', required: true, description: 'Id del registro.', schema: { type: 'integer', minimum: 1 } },
  ]),
  '/v2/open-data/alexandrias/{id}/versions': read(
    'Las versiones de un archivo capturado, de la primera a la actual, y qué cambió en cada una',
    null,
    envelope(
      'Lista de versiones: { number, cid, sha256, size, type, capturedAt, url, capture: { finalUrl, status, etag, lastModified }, diff, diffStatus }. ' +
        '`diff` (null en la v1 y mientras `diffStatus` es "pending"): { kind: "table" | "file", sizeBefore, sizeAfter, typeBefore, typeAfter, ' +
        'columnsAdded, columnsRemoved, rowsAdded, rowsRemoved, rowsChanged, sample, note }; `sample` es una tabla en el formato de daff: ' +
        'una cabecera "@@" y filas cuya primera celda dice la acción ("+++" añadida, "---" quitada, "->" cambiada, con celdas "antes->después").',
    ),
    [{ name: 'id', in: 'path', required: true, description: 'Id del registro.', schema: { type: 'integer', minimum: 1 } }],
  ),
  '/v1/services/filecoin/{cid}': read('Anclajes y acuerdos de almacenamiento de un CID', null, envelope('Anclajes y acuerdos', false), [
    { name: 'cid', in: 'path', required: true, description: cidParam.description, schema: { type: 'string' } },
  ]),
} as const;

const session = [{ bearer: [] }, { cookie: [] }];
const refusal = (description: string) => ({ ...failure, description });

const jsonBody = (schema: z.ZodType) => ({
  required: true,
  content: { 'application/json': { schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) } },
});
const answer = (description: string, body: object = { type: 'object' }) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', required: ['code', 'body'], properties: { code: { type: 'integer' }, body } } } },
});
const idParameter = (description: string) => [{ name: 'id', in: 'path' as const, required: true, description, schema: { type: 'integer', minimum: 1 } }];
const sourceId = idParameter('Id de la fuente de cosecha.');
const moderatorRefusals = {
  '401': refusal('Sin sesión.'),
  '403': refusal('La cartera de la sesión no es de moderación (ARCHIVE_MODERATORS).'),
};
const counts = { type: 'object', properties: Object.fromEntries(['new', 'updated', 'unchanged', 'withdrawn', 'failed'].map((key) => [key, { type: 'integer' }])) };
const run = {
  type: 'object',
  properties: {
    id: { type: 'integer', description: 'La importación (Import) de la cosecha.' },
    status: { type: 'string', enum: ['in_progress', 'done', 'failed'] },
    counts,
    documents: {
      type: 'integer',
      description: 'Entradas que la cosecha leyó y guardó: nuevas, actualizadas y sin cambios. La importación pública (`/imports`) cuenta solo las que importó: nuevas y actualizadas.',
    },
    startedAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    requestedBy: { type: ['string', 'null'], description: '`programada`, la cartera de quien la pidió o `npm run harvest`.' },
    errorCount: { type: 'integer' },
  },
};
const captureQueue = {
  type: 'object',
  properties: {
    counts: {
      type: 'object',
      properties: {
        queued: { type: 'integer', description: 'Capturas en cola, también las que un proceso ya tomó y esperan el turno de su servidor.' },
        running: { type: 'integer', description: 'Capturas en curso: descargando o guardando su archivo.' },
        done: { type: 'integer', description: 'Registros de la fuente cuyo archivo trajo una captura.' },
        failed: { type: 'integer', description: 'Capturas fallidas cuyo registro sigue sin archivo (como `failedTotal`).' },
      },
    },
    failed: {
      type: 'array',
      description: 'Las capturas fallidas cuyo registro sigue sin archivo, de la más reciente a la más antigua (hasta 50).',
      items: {
        type: 'object',
        properties: {
          jobId: { type: 'integer', description: 'Para POST /v2/ops/jobs/{id}/retry.' },
          alexandriaId: { type: 'integer' },
          title: { type: 'string' },
          url: { type: 'string' },
          reason: { type: ['string', 'null'] },
          attempts: { type: 'integer', description: 'Intentos hechos en total, también los de antes de cada reintento.' },
          failedAt: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
    failedTotal: { type: 'integer' },
    heldForReview: {
      type: 'array',
      description:
        'Registros cuyo archivo se capturó pero esperan a un moderador, del más reciente al más antiguo (hasta 50): el archivo publica lo que captura solo cuando es un documento, no una página web ni una respuesta vacía donde el catálogo declara datos.',
      items: {
        type: 'object',
        properties: {
          alexandriaId: { type: 'integer' },
          title: { type: 'string' },
          cid: { type: 'string' },
          url: { type: 'string', description: 'La dirección de la que se capturó.' },
          mismatch: { type: ['string', 'null'], description: 'En qué difieren los bytes de lo que declara el catálogo.' },
          capturedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
    heldForReviewTotal: { type: 'integer' },
  },
};
const harvestSource = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    url: { type: 'string' },
    kind: { type: 'string', enum: ['ckan', 'dcat', 'datajson'] },
    paused: { type: 'boolean' },
    snapshotOn: {
      type: ['string', 'null'],
      format: 'date',
      description: 'Día en que se tomó una copia del catálogo guardada con el archivo (la exportación de la carga inicial); null para un catálogo en línea. Una copia no se vuelve a cosechar ni se reanuda.',
    },
    interval: { type: ['string', 'null'], enum: ['diaria', 'semanal', 'mensual', null] },
    intervalText: { type: 'string', description: 'El intervalo tal como lo guarda la base de datos.' },
    intervalLabel: { type: 'string', description: 'Cada cuánto se cosecha, en español: «Diaria», «Semanal», «Mensual» o, para otro intervalo, «Cada 36 horas».' },
    defaultCategory: { type: ['object', 'null'], properties: { id: { type: 'integer' }, title: { type: 'string' } } },
    themeMap: { type: 'object', additionalProperties: { type: 'integer' } },
    defaultLanguage: { type: ['string', 'null'], description: 'Idioma (código como «es») que reciben los conjuntos cuyo catálogo no declara el suyo; null si ninguno.' },
    defaultCountry: { type: ['string', 'null'], description: 'País (código ISO de tres letras como «DOM») que cubren los conjuntos cuyo catálogo no declara su cobertura geográfica; null si ninguno.' },
    sourceId: { type: 'integer', description: 'La fuente (`source`) en la que se archivan sus registros.' },
    sourceListed: { type: 'boolean', description: 'Si el público ve esa fuente: la que el archivo crea para un catálogo no se publica hasta su primer registro.' },
    records: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
    lastRun: { oneOf: [run, { type: 'null' }] },
    activeRun: {
      type: ['object', 'null'],
      properties: { jobId: { type: 'integer' }, status: { type: 'string', enum: ['queued', 'running'] }, requestedBy: { type: ['string', 'null'] }, queuedAt: { type: 'string', format: 'date-time' } },
    },
  },
};
const harvestSourceDetail = { ...harvestSource, properties: { ...harvestSource.properties, captures: captureQueue } };

/**
 * How a script gets the Bearer token the moderators' routes take: a nonce, a Sign-In with Ethereum
 * message signed by its wallet, a session (the browser's sign-in page does the same).
 */
export const AUTH_PATHS = {
  '/auth/nonce': {
    get: {
      summary: 'Un nonce de un solo uso para el mensaje de inicio de sesión (Sign-In with Ethereum, EIP-4361)',
      responses: {
        '200': {
          description: 'El nonce y hasta cuándo vale.',
          content: { 'application/json': { schema: { type: 'object', properties: { nonce: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } } } },
        },
      },
    },
  },
  '/auth/login': {
    post: {
      summary: 'Inicia sesión con un mensaje EIP-4361 firmado por la cartera: devuelve el accessToken para `Authorization: Bearer`',
      description:
        'El mensaje nombra como dominio el host del archivo, su dirección como URI, la red (chain id) que el archivo acepta, ' +
        'el nonce de GET /auth/nonce y la frase «Inicio de sesion en Archivo Abierto con esta cartera.»; la firma es la de `personal_sign` ' +
        '(ethers: `wallet.signMessage(message)`). El README lo muestra paso a paso.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['message', 'signature', 'provider'],
              properties: { message: { type: 'string', maxLength: 4000 }, signature: { type: 'string' }, provider: { enum: [...PROVIDERS] } },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'La sesión: `accessToken` y la cuenta.',
          content: { 'application/json': { schema: { type: 'object', properties: { accessToken: { type: 'string' }, user: { type: 'object' } } } } },
        },
        '400': refusal('El mensaje o la firma no se pueden leer.'),
        '401': refusal('La firma, el dominio, el nonce, la vigencia o la red no se pueden aceptar.'),
        '429': refusal('Demasiados intentos.'),
      },
    },
  },
  '/auth/register': {
    post: {
      summary: 'Como POST /auth/login, y guarda en la cuenta el nombre y el apellido que se den (opcionales)',
      requestBody: jsonBody(registerRequestSchema),
      responses: {
        '200': {
          description: 'La sesión: `accessToken` y la cuenta.',
          content: { 'application/json': { schema: { type: 'object', properties: { accessToken: { type: 'string' }, user: { type: 'object' } } } } },
        },
        '400': refusal('El mensaje, la firma o un nombre no se pueden leer.'),
        '401': refusal('La firma, el dominio, el nonce, la vigencia o la red no se pueden aceptar.'),
        '429': refusal('Demasiados intentos.'),
      },
    },
  },
  '/auth/get-user': {
    get: {
      summary: 'La cuenta de la sesión, y si su cartera es de moderación',
      security: session,
      responses: {
        '200': {
          description: 'La cuenta (`user`) y `moderator`.',
          content: { 'application/json': { schema: { type: 'object', properties: { user: { type: 'object' }, moderator: { type: 'boolean' } } } } },
        },
        '401': refusal('Sin sesión.'),
      },
    },
  },
} as const;

/** What the archive tells the wallet of the session. */
export const ACCOUNT_PATHS = {
  '/v2/account/notifications': {
    get: {
      summary: `Las últimas decisiones de los moderadores sobre las subidas de la cartera de la sesión (hasta ${NOTIFICATIONS_LIMIT}, de la más nueva a la más antigua)`,
      description: 'Privada: `Cache-Control: private, no-store`. El motivo es el público que dio el moderador, vacío si no dio ninguno.',
      security: session,
      responses: {
        '200': answer('Las decisiones.', {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              recordId: { type: 'integer' },
              title: { type: 'string' },
              path: { type: 'string', description: 'La página del registro.' },
              status: { enum: [...ASSET_STATUS_VALUES] },
              reason: { type: 'string' },
              at: { type: 'string', format: 'date-time' },
            },
          },
        }),
        '401': refusal('Sin sesión.'),
      },
    },
  },
} as const;

/** Moderating records and the sources and institutions contributors create (issues #8 and #16). */
export const MODERATION_PATHS = {
  '/v2/ops/assets/{id}/status': {
    post: {
      summary: 'Cambiar el estado de un registro (publicarlo, devolverlo a revisión, bloquearlo o marcarlo como roto), con su motivo público',
      security: session,
      parameters: idParameter('El id del registro.'),
      requestBody: jsonBody(recordStatusChange),
      responses: {
        '200': answer('El registro y su nuevo estado.', { type: 'object', properties: { id: { type: 'integer' }, status: { enum: [...ASSET_STATUS_VALUES] } } }),
        '400': refusal('Estado desconocido, el que ya tiene, o sin el motivo que bloquear y marcar como roto piden.'),
        ...moderatorRefusals,
        '404': refusal('Ese registro no existe.'),
      },
    },
  },
  '/v2/ops/sources/{id}/status': {
    post: {
      summary: 'Aceptar o rechazar una fuente que creó un contribuyente, con su motivo público',
      security: session,
      parameters: idParameter('El id de la fuente.'),
      requestBody: jsonBody(sourceStatusChange),
      responses: {
        '200': answer('La fuente y su nuevo estado.', { type: 'object', properties: { id: { type: 'integer' }, status: { enum: [...SOURCE_REVIEW_STATUS_VALUES] } } }),
        '400': refusal('Estado desconocido, el que ya tiene, o un rechazo sin motivo.'),
        ...moderatorRefusals,
        '404': refusal('Esa fuente no existe.'),
      },
    },
  },
  '/v2/ops/departments/{id}/status': {
    post: {
      summary: 'Aceptar o rechazar una institución que creó un contribuyente, con su motivo público',
      security: session,
      parameters: idParameter('El id de la institución.'),
      requestBody: jsonBody(departmentStatusChange),
      responses: {
        '200': answer('La institución y su nuevo estado.', { type: 'object', properties: { id: { type: 'integer' }, status: { enum: [...SOURCE_REVIEW_STATUS_VALUES] } } }),
        '400': refusal('Estado desconocido, el que ya tiene, o un rechazo sin motivo.'),
        ...moderatorRefusals,
        '404': refusal('Esa institución no existe.'),
      },
    },
  },
} as const;

/** What the archive serves to the machines around it rather than to readers. */
export const SERVICE_PATHS = {
  '/graphql': {
    post: {
      summary: 'La API GraphQL, de solo lectura (también por GET con `?query=`); /docs#graphql tiene ejemplos y sus límites',
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['query'], properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } } } } } },
      responses: {
        '200': { description: '`data`, y `errors` si alguna parte de la consulta no se pudo responder.', content: { 'application/json': { schema: { type: 'object' } } } },
        '400': refusal('Consulta que no se puede leer, o que pasa de los límites de la API.'),
      },
    },
  },
  '/v2/health': {
    get: {
      summary: 'Si este servidor puede trabajar (alcanza su base de datos, conserva su turno de instancia y puede escribir en su almacén): para el control de salud de un balanceador',
      responses: {
        '200': {
          description:
            '`{ "estado": "ok", "trabajador": … }`: `trabajador` dice si este servidor ejecuta la cola de trabajos. `avisos`, si los hay: lo que funciona pero sorprenderá, en castellano (otros servidores en marcha que guardan sus archivos en otro almacén de bloques, sin pasarelas entre ellos).',
          content: { 'application/json': { schema: { type: 'object', properties: { estado: { const: 'ok' }, trabajador: { type: 'boolean' }, avisos: { type: 'array', items: { type: 'string' } } } } } },
        },
        '503': { description: '`{ "estado": "error", "message": … }`: qué le falta, en castellano.', content: { 'application/json': { schema: { type: 'object', properties: { estado: { const: 'error' }, message: { type: 'string' } } } } } },
      },
    },
  },
  '/openapi.json': {
    get: {
      summary: 'Este documento',
      responses: { '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
} as const;

/** Moderating the harvest (issue #18): the sources of catalogues, their runs and capture queue. */
export const HARVEST_OPS_PATHS = {
  '/v2/ops/harvest-sources': {
    get: {
      summary: 'Las fuentes de cosecha, de la más nueva a la más antigua, con su última cosecha y la que esté en cola o en curso',
      security: session,
      responses: { '200': answer('Las fuentes.', { type: 'array', items: harvestSource }), ...moderatorRefusals },
    },
    post: {
      summary: 'Registrar un catálogo para cosechar (CKAN, DCAT-AP o data.json)',
      security: session,
      requestBody: jsonBody(newHarvestSourceInput),
      responses: {
        '201': answer('La fuente creada.', harvestSourceDetail),
        '400': refusal('Dirección que no es http(s), tipo o frecuencia desconocidos, categoría que no existe.'),
        ...moderatorRefusals,
        '409': refusal('Ya hay una fuente de cosecha para ese catálogo, quizá con otra forma de su dirección (la raíz de un portal CKAN y su API, o http y https).'),
      },
    },
  },
  '/v2/ops/harvest-sources/{id}': {
    get: {
      summary: 'Una fuente de cosecha con su última cosecha y su cola de capturas (la página de moderación la consulta cada 2 s durante una cosecha)',
      security: session,
      parameters: sourceId,
      responses: { '200': answer('La fuente.', harvestSourceDetail), ...moderatorRefusals, '404': refusal('No existe esa fuente.') },
    },
    patch: {
      summary: 'Cambiar el nombre, la dirección, la categoría por omisión, la frecuencia, el mapa de temas o la pausa',
      description:
        'Solo cambian los campos enviados. Pausada, la programación no la cosecha; POST …/run sí. Una dirección nueva se comprueba como la de una fuente nueva, y los registros cosechados siguen siendo de la fuente.',
      security: session,
      parameters: sourceId,
      requestBody: jsonBody(harvestSourceEdit),
      responses: {
        '200': answer('La fuente cambiada.', harvestSourceDetail),
        '400': refusal('Campos no válidos, una dirección que el archivo no lee o nada que cambiar.'),
        ...moderatorRefusals,
        '404': refusal('No existe esa fuente.'),
        '409': refusal(
          'Se pidió reanudar o mover una copia del catálogo (`snapshotOn`), que no se vuelve a cosechar; otra fuente cosecha ya el catálogo de la dirección nueva; o cambian el nombre o la dirección mientras una cosecha de la fuente está en cola o en curso.',
        ),
      },
    },
    delete: {
      summary: 'Eliminar una fuente de cosecha que no trajo ningún registro (una dirección mal escrita, un catálogo que nunca respondió)',
      description:
        'Se van con ella sus cosechas (también de la cronología pública del panel), sus cosechas en cola y la fuente del archivo creada para ese catálogo, si nada más está en ella. Una fuente con registros no se elimina: se pausa.',
      security: session,
      parameters: sourceId,
      responses: {
        '200': answer('Eliminada.', { type: 'object', properties: { id: { type: 'integer' }, deleted: { const: true } } }),
        ...moderatorRefusals,
        '404': refusal('No existe esa fuente.'),
        '409': refusal('La fuente ya trajo registros, o una cosecha suya está en curso.'),
      },
    },
  },
  '/v2/ops/harvest-sources/{id}/run': {
    post: {
      summary: 'Cosechar ahora: pone en cola una cosecha de la fuente, aunque esté pausada',
      security: session,
      parameters: sourceId,
      responses: {
        '200': answer('Ya había una cosecha en cola o en curso: se devuelve esa (`created: false`).', { type: 'object', properties: { jobId: { type: 'integer' }, created: { const: false } } }),
        '202': answer('En cola: el trabajador del servidor la empieza en un segundo.', { type: 'object', properties: { jobId: { type: 'integer' }, created: { const: true } } }),
        ...moderatorRefusals,
        '404': refusal('No existe esa fuente.'),
        '409': refusal('La fuente es una copia del catálogo guardada con el archivo (`snapshotOn`): no se vuelve a cosechar.'),
      },
    },
  },
  '/v2/ops/harvest-sources/{id}/runs': {
    get: {
      summary: 'Sus últimas 20 cosechas, de la más reciente a la más antigua, con sus cuentas y cada fallo con su motivo (hasta 50 por cosecha)',
      security: session,
      parameters: sourceId,
      responses: {
        '200': answer('Las cosechas.', { type: 'array', items: { ...run, properties: { ...run.properties, errors: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, message: { type: 'string' }, record: { type: 'integer', description: 'El registro de una captura fallida (dos conjuntos pueden enlazar el mismo archivo).' } } } }, mended: { type: 'array', items: { type: 'integer' }, description: 'Los registros de esos fallos cuyo archivo llegó después (un reintento o una cosecha posterior): su captura más reciente salió bien.' } } } }),
        ...moderatorRefusals,
        '404': refusal('No existe esa fuente.'),
      },
    },
  },
  '/v2/ops/harvest-sources/{id}/captures': {
    get: {
      summary: 'Su cola de capturas: cuántas en cola, en curso, hechas y fallidas, y las fallidas con su motivo y su URL',
      security: session,
      parameters: sourceId,
      responses: { '200': answer('La cola de capturas.', captureQueue), ...moderatorRefusals, '404': refusal('No existe esa fuente.') },
    },
  },
  '/v2/ops/harvest-sources/{id}/captures/retry': {
    post: {
      summary: 'Reintentar todas sus capturas fallidas cuyo registro sigue sin archivo (hasta 1000)',
      security: session,
      parameters: sourceId,
      responses: { '200': answer('Cuántas volvieron a la cola.', { type: 'object', properties: { retried: { type: 'integer' } } }), ...moderatorRefusals, '404': refusal('No existe esa fuente.') },
    },
  },
  '/v2/ops/harvest-sources/{id}/captures/check': {
    post: {
      summary:
        'Comprobar ahora en su origen cada archivo capturado que el catálogo sigue listando (una petición condicional, como la vigilancia diaria): un archivo que cambió sin que el catálogo lo dijera da una versión nueva',
      security: session,
      parameters: sourceId,
      responses: { '200': answer('Cuántas comprobaciones se pusieron en cola.', { type: 'object', properties: { checks: { type: 'integer' } } }), ...moderatorRefusals, '404': refusal('No existe esa fuente.') },
    },
  },
  '/v2/ops/jobs/{id}/retry': {
    post: {
      summary: 'Reintentar una captura fallida: vuelve a la cola con todos sus intentos',
      security: session,
      parameters: idParameter('Id del trabajo (`jobId` de la cola de capturas).'),
      responses: {
        '200': answer('En cola de nuevo.', { type: 'object', properties: { jobId: { type: 'integer' } } }),
        ...moderatorRefusals,
        '404': refusal('No existe ese trabajo.'),
        '409': refusal('El trabajo no es una captura fallida.'),
      },
    },
  },
} as const;

/** Contributing (needs a signed-in wallet): the upload and the nonce its confirmation carries. */
export const OPS_PATHS = {
  '/v2/ops/assets/nonce': {
    post: {
      summary: 'Un nonce de un solo uso para la confirmación de la próxima subida',
      security: session,
      responses: {
        '200': {
          description: 'El nonce, ligado a la cartera de la sesión; caduca a los 10 minutos.',
          content: { 'application/json': { schema: { type: 'object', properties: { code: { const: 200 }, body: { type: 'object', properties: { nonce: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } } } } } },
        },
        '401': refusal('Sin sesión.'),
        '429': refusal('Demasiadas solicitudes.'),
      },
    },
  },
  '/v2/ops/assets/add': {
    post: {
      summary: 'Contribuir un documento con su captura de prueba, firmado por la cartera',
      description:
        'Multipart, en este orden: `asset`, `nonce` y `signature`, luego los archivos `proof` (PNG, JPEG o WebP) y `fileUploaded`. ' +
        'La firma (EIP-191, personal_sign) es la del mensaje que empieza por «' + CONFIRMATION_SENTENCE + '», seguido de una línea en blanco y de ' +
        '`Documento (SHA-256): …`, `Prueba (SHA-256): …` y `Nonce: …`; el servidor lo reconstruye con lo que recibe. El registro queda en revisión (under_review).',
      security: session,
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['asset', 'nonce', 'signature', 'proof', 'fileUploaded'],
              properties: {
                asset: { type: 'string', contentMediaType: 'application/json', contentSchema: z.toJSONSchema(assetPayloadSchema, { io: 'input', unrepresentable: 'any' }) },
                nonce: { type: 'string', description: 'De POST /v2/ops/assets/nonce.' },
                signature: { type: 'string', description: 'Firma hexadecimal (0x…) del mensaje de confirmación.' },
                proof: { type: 'string', contentMediaType: 'image/png', description: 'Captura de pantalla que prueba el origen.' },
                fileUploaded: { type: 'string', contentMediaType: 'application/octet-stream', description: 'El documento.' },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'Archivado: el CID del documento y el id del registro.',
          content: { 'application/json': { schema: { type: 'object', properties: { code: { const: 200 }, body: { type: 'object', properties: { assetCID: { type: 'string' }, assetId: { type: 'integer' } } } } } } },
        },
        '400': refusal('Campos no válidos (con los mensajes del asistente) o subida incompleta.'),
        '401': refusal('Sin sesión.'),
        '403': refusal('La firma no es de la cartera de la sesión, o el nonce ya se usó.'),
        '413': refusal('El documento o la prueba pasan del límite.'),
        '415': refusal('El contenido no es del tipo declarado, o la prueba no es una imagen.'),
        '429': refusal('Demasiadas subidas.'),
      },
    },
  },
} as const;

/**
 * A document of the open data itself, in `type` (no envelope): what it is, and its conditional
 * answers: by `ETag` always, and by `Last-Modified` for the exports, written to a file, which alone
 * send one (the catalogue and the feeds are written as they are read).
 */
const document = (summary: string, description: string, type: string, parameters: Parameter[] = [], { lastModified = false } = {}) => ({
  get: {
    summary,
    description,
    parameters,
    responses: {
      '200': { description: summary, content: { [type]: { schema: { type: 'string' } } } },
      '304': { description: lastModified ? 'La copia del cliente sigue al día (If-None-Match o If-Modified-Since).' : 'La copia del cliente sigue al día (If-None-Match con el ETag recibido).' },
    },
  },
});

/** The open data beyond the REST lists: files by CID, the DCAT catalogue, the exports and the change feeds. */
export const OPEN_DATA_PATHS = {
  '/ipfs/{cid}': {
    get: {
      summary: 'Un archivo por su CID, byte a byte',
      description:
        'Los bytes del archivo cuyo CID (CIDv1, como ipfs add --cid-version=1) se pide: ETag "cid" inmutable, rangos (Range, If-Range), ' +
        '?download=nombre para guardarlo con un nombre, y ?format=car (o Accept: application/vnd.ipld.car) para sus bloques en un CAR. ' +
        'Legible desde cualquier origen; ETag, Content-Range, Accept-Ranges y Content-Disposition expuestos.',
      parameters: [
        { name: 'cid', in: 'path' as const, required: true, description: 'El CID del archivo.', schema: { type: 'string' } },
        { name: 'download', in: 'query' as const, required: false, description: 'Guardarlo en vez de mostrarlo: true, o el nombre con el que guardarlo (Content-Disposition: attachment).', schema: { type: 'string' } },
        { name: 'filename', in: 'query' as const, required: false, description: 'Con download=true, el nombre con el que guardarlo.', schema: { type: 'string' } },
        { name: 'format', in: 'query' as const, required: false, description: 'car: sus bloques en un archivo CAR; raw: el bloque que nombra el CID. Otro formato se rechaza con un 400.', schema: { type: 'string', enum: ['car', 'raw'] } },
      ],
      responses: {
        '200': { description: 'El archivo entero.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        '206': { description: 'El rango pedido.' },
        '302': { description: 'Con ARCHIVE_CONTENT_ORIGIN, un navegador que abre el archivo va a ese origen propio del contenido.' },
        '304': { description: 'La copia del cliente es esta (If-None-Match, comparación débil).' },
        '400': failure,
        '404': failure,
        '406': { description: 'Solo se aceptaba un CAR que el archivo no puede dar.' },
        '410': { description: 'Retirado por la moderación del archivo; la página del registro dice por qué (sin caché).' },
        '416': { description: 'El rango pedido cae fuera del archivo.' },
      },
    },
  },
  '/catalog.jsonld': document('El catálogo DCAT-AP en JSON-LD', 'Cada registro publicado como dcat:Dataset, con sus distribuciones en /ipfs/, licencia, palabras clave, editor y temas.', 'application/ld+json'),
  '/catalog.ttl': document('El catálogo DCAT-AP en Turtle', 'El mismo grafo que /catalog.jsonld.', 'text/turtle'),
  '/export/catalogo.csv': document('Exportación del catálogo en CSV', 'Una fila por registro publicado, columnas en español, UTF-8 con BOM.', 'text/csv', [], { lastModified: true }),
  '/export/catalogo.json': document('Exportación del catálogo en JSON', 'Las mismas filas que el CSV, como una lista JSON.', 'application/json', [], { lastModified: true }),
  '/feeds/cambios.atom': document('Cambios del archivo (Atom)', 'Nuevas versiones de archivos, documentos desaparecidos en origen y documentos retirados de su catálogo, lo más reciente primero.', 'application/atom+xml'),
  '/feeds/instituciones/{id}.atom': document('Cambios de una institución (Atom)', 'Como /feeds/cambios.atom, para los registros de una institución.', 'application/atom+xml', [
    { name: 'id', in: 'path', required: true, description: 'El id de la institución.', schema: { type: 'integer' } },
  ]),
} as const;

/**
 * Every operation whose body is JSON alone also answers 415 to a body sent as anything else (a
 * form, plain text: `http/input.ts`), said once here rather than beside each body.
 */
function withJsonTypeRefusal<P extends Record<string, Record<string, unknown>>>(paths: P): P {
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations) as Array<{ requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, unknown> }>) {
      const types = Object.keys(operation.requestBody?.content ?? {});
      if (types.length === 1 && types[0] === 'application/json' && operation.responses && !operation.responses['415']) {
        operation.responses['415'] = refusal('El cuerpo no llegó como JSON: envíelo con la cabecera Content-Type: application/json.');
      }
    }
  }
  return paths;
}

const PATHS = withJsonTypeRefusal({ ...REST_PATHS, ...OPEN_DATA_PATHS, ...AUTH_PATHS, ...ACCOUNT_PATHS, ...OPS_PATHS, ...MODERATION_PATHS, ...HARVEST_OPS_PATHS, ...SERVICE_PATHS });

export function openApiDocument(origin: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Archivo Abierto: API abierta',
      version: '1.0.0',
      description:
        'Lecturas públicas del archivo, y las operaciones de quien inicia sesión (subir) y de moderación (estados, cosechas). Cada lista llega en el sobre `{ code, body }` con `body` como texto JSON, ' +
        'como lo hacía la API original; los estados HTTP son reales y `code` los repite. Para consultas más ricas, use GraphQL en /graphql.',
    },
    servers: [{ url: origin }],
    paths: PATHS,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'El accessToken que devuelve POST /auth/login (tras GET /auth/nonce y la firma de la cartera).' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'archivo_session' },
      },
    },
  };
}
