/**
 * What /docs says about compatibility with the original service's API (issue #22): what the
 * archive accepts as the original did, what differs and why. tests/integration/compat-original-client.test.ts
 * and tests/e2e/compat-cors.spec.ts hold the archive to it.
 */
import { MAX_LIMIT } from '../queries/find.ts';

export interface CompatNote {
  /** The call or convention, as a client writes it. */
  call: string;
  text: string;
}

export const COMPAT_INTRO =
  'Quien usaba la API del servicio original (su aplicación web, scripts, cuadernos) puede apuntar a este archivo y seguir funcionando: ' +
  'GraphQL en /graphql y las rutas REST aceptan las mismas consultas, con los mismos nombres de campos. Se comprueba con cada consulta ' +
  'que envía la aplicación original.';

/** Conventions of the original accepted the same way. */
export const COMPAT_ACCEPTED: CompatNote[] = [
  {
    call: 'GET /alexandrias, /sources, /departments, /categories, /imports',
    text: 'Las rutas del antiguo servidor de administración (Strapi v3): una lista JSON sin sobre; /{colección}/{id} da un objeto y /{colección}/count un número.',
  },
  {
    call: '_limit, _start, _sort=campo:asc|desc, _where[campo]=valor',
    text: 'Como en Strapi: cualquier otro parámetro filtra por igualdad (type=pdf, category=3, status=under_review); los demás parámetros con _ se ignoran. Las rutas getAll de la API abierta aceptan también _start y _limit.',
  },
  {
    call: 'sort: "desc", _sort=desc',
    text: 'Una dirección sin campo, que el servicio original aceptaba, ordena por id.',
  },
  {
    call: 'alexandrias { … } dentro de una fuente, institución, categoría o importación',
    text: `Sin limit, la lista anidada trae hasta ${MAX_LIMIT} registros: la aplicación original cuenta los registros de un grupo por su largo (y muestra «+100»).`,
  },
  {
    call: 'imports { source wallet }',
    text: 'source es el nombre de la fuente y wallet la cartera, como textos (vacíos si no hay); la fuente como grupo está en sourceGroup { id name url }.',
  },
  {
    call: 'icon { id name url }',
    text: 'Cada categoría tiene un icono SVG servido por el archivo.',
  },
  {
    call: 'GET /v1/services/filecoin/{cid}',
    text: 'El estado de cada pin se escribe como lo respondía el proveedor original (Pinned, Queued, Pinning, Failed).',
  },
  {
    call: 'Otro origen',
    text: 'Las lecturas públicas (REST de datos abiertos y de estilo Strapi, consultas GraphQL por POST) responden a cualquier origen sin credenciales, también sus errores; la comprobación previa (preflight) admite Content-Type y las cabeceras X-RapidAPI-Host y X-RapidAPI-Key, cuyo valor se ignora.',
  },
];

/** Where the archive answers differently, on purpose. */
export const COMPAT_DIFFERENCES: CompatNote[] = [
  {
    call: '_limit=-1, _limit=0',
    text: `Strapi los leía como «sin límite»; aquí devuelven ${MAX_LIMIT} filas, y el resto se pide por páginas con _start: una lista sin tope dejaría a un solo cliente leer el archivo entero en cada petición. Un _limit mayor que ${MAX_LIMIT} se rechaza con un 400 que lo explica.`,
  },
  {
    call: 'GraphQL limit',
    text: `Entre 0 y ${MAX_LIMIT}; más es un error claro. Cada consulta tiene además un costo máximo, calculado con lo que el archivo realmente guarda (cuántos grupos y registros hay), y las más costosas se racionan por dirección.`,
  },
  {
    call: 'Estados HTTP',
    text: 'El servicio original respondía 200 también a los errores; en REST, aquí el estado es el real (400, 404, 429…) y el code del sobre lo repite, con un mensaje en español. GraphQL sigue GraphQL over HTTP: a quien pide application/graphql-response+json, un error de la consulta llega con su 4xx; a quien pide application/json (el cliente original), con 200 y la lista errors, como entonces.',
  },
  {
    call: 'Token de sesión',
    text: 'El «token» del original era el texto base64 de cartera y proveedor: cualquiera podía escribirlo. Aquí se rechaza. Un cliente inicia sesión con Sign-In with Ethereum: pide un nonce (GET /auth/nonce), firma con su cartera el mensaje EIP-4361 que lo incluye, lo envía a POST /auth/login como { message, signature, provider } y usa el accessToken que recibe en Authorization: Bearer.',
  },
  {
    call: 'Subidas, sesión y datos de la persona',
    text: 'POST /v2/ops/assets/add, /auth/* y GET /auth/get-user no se abren a otros orígenes: una página de otro sitio no puede subir, iniciar sesión ni leer a quien usa el archivo.',
  },
  {
    call: 'nfts, nftsConnection, /nfts',
    text: 'El widget de NFT de la aplicación original no forma parte de este archivo: esas consultas no existen.',
  },
];
