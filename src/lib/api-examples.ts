/**
 * The examples /docs shows. A test runs every one against the real archive, so the
 * documentation cannot promise an answer the API does not give.
 */
export interface RestExample {
  title: string;
  path: string;
}

export interface GraphqlExample {
  title: string;
  query: string;
}

export const REST_EXAMPLES: RestExample[] = [
  { title: 'Buscar archivos por título (sin distinguir acentos)', path: '/v2/open-data/alexandrias/getAll?title=construccion&limit=5' },
  { title: 'Los últimos archivos de una cartera', path: '/v2/open-data/alexandrias/getAll?wallet_address=0x71c7656ec7ab88b098defb751b7401b5f6d8976f&limit=5&sort=createdAt:-1' },
  { title: 'Instituciones por nombre', path: '/v2/open-data/departments/getAll?name=estadistica&limit=5' },
  { title: 'Fuentes por nombre', path: '/v2/open-data/sources/getAll?name=portal' },
  { title: 'Todas las categorías', path: '/v2/open-data/categories/getAll' },
  { title: 'Las 5 categorías con más archivos', path: '/v1/api/categories/getAll?limit=5' },
  { title: 'Listado al estilo Strapi, paginado', path: '/alexandrias?_limit=3&_start=0&_sort=updatedAt:desc' },
];

export const GRAPHQL_EXAMPLES: GraphqlExample[] = [
  {
    title: 'Las 5 categorías con más archivos',
    query: '{ categories(limit: 5, sort: "alexandrias:desc") { id title description } }',
  },
  {
    title: 'Archivos por formato en una categoría, y cuántos siguen en revisión',
    query:
      '{ alexandriasConnection(where: { category: 1 }) { groupBy { type { key connection { aggregate { count } } } } } ' +
      'pending: alexandriasConnection(where: { category: 1, status: "under_review" }) { aggregate { count } } }',
  },
  {
    title: 'Las últimas 5 importaciones',
    query: '{ imports(limit: 5, sort: "updatedAt:desc") { id updatedAt documents status source wallet } }',
  },
  {
    title: 'Una institución, buscada por sus siglas (MINERD), con sus primeros 10 archivos',
    query: '{ departments(where: { name_contains: "MINERD" }, limit: 1) { name desciption website alexandrias(limit: 10) { title type status cid } } }',
  },
];
