/**
 * The GraphQL schema, in the shape of the original content service (Strapi v3): plural lists with
 * `where`/`sort`/`limit`/`start`, singles by id, and `<plural>Connection` types with `values`,
 * `aggregate { count totalCount }` and `groupBy { <field> { key connection } }`. Read-only.
 */
import { MAX_LIMIT } from '../queries/find.ts';

/** Rows a list answers when no `limit` is given: Strapi's default, and this API's cap. */
export const DEFAULT_LIMIT = MAX_LIMIT;
/**
 * Records a source, department, category or import lists under itself when no `limit` is given:
 * as many as a list may hold. The original front end counts a group's records as the length of
 * this list and shows '+100' from 100 on (SPEC §9), so fewer would make every large group look
 * small; more is what `limit`/`start` paging is for.
 */
export const DEFAULT_NESTED_LIMIT = MAX_LIMIT;

const LIST_ARGS = (limit: number) =>
  `(
    "Campo y dirección: \\"updatedAt:desc\\", \\"title:asc\\"… Solo \\"asc\\" o \\"desc\\" ordena por id, como aceptaba el servicio original."
    sort: String
    "Filas como mucho (0 a ${MAX_LIMIT})."
    limit: Int = ${limit}
    "Filas que saltar (0 o más): 10 * (página - 1)."
    start: Int = 0
    "Igualdad por campo (ids de relaciones incluidos) y name_contains/title_contains, sin distinguir mayúsculas ni tildes."
    where: JSON
  )`;

/** Strapi names a connection's group type `<Type>Connection<Field>`, the field's first letter upper-cased. */
function connectionTypes(type: string, groupFields: Record<string, 'ID' | 'String'>): string {
  const groupType = (field: string) => `${type}Connection${field[0]!.toUpperCase()}${field.slice(1)}`;
  return `
type ${type}Connection {
  "Las filas, con el sort, limit y start de la conexión."
  values: [${type}!]!
  "Grupos por valor de un campo; los sin valor no forman grupo."
  groupBy: ${type}GroupBy!
  aggregate: ${type}Aggregator!
}

type ${type}Aggregator {
  "Filas que cumplen el where (sin contar limit ni start)."
  count: Int!
  "Filas en total, sin filtro."
  totalCount: Int!
}

type ${type}GroupBy {
${Object.keys(groupFields).map((field) => `  ${field}: [${groupType(field)}!]!`).join('\n')}
}
${Object.entries(groupFields)
  .map(
    ([field, key]) => `
type ${groupType(field)} {
  key: ${key}!
  "La conexión de las filas con este valor."
  connection: ${type}Connection!
}`,
  )
  .join('\n')}
`;
}

const NESTED_RECORDS = `
  "Sus registros, ${DEFAULT_NESTED_LIMIT} como mucho si no se da limit (el máximo de una lista); más, por páginas con start."
  alexandrias${LIST_ARGS(DEFAULT_NESTED_LIMIT)}: [Alexandria!]!`;

const GROUP_COUNTS = `
  "Cuántos registros tiene."
  alexandriasCount: Int!
  "Sus registros por formato (xls y xlsx juntos)."
  counts: FormatCounts!`;

export const typeDefs = /* GraphQL */ `
"Cualquier valor JSON: los filtros where."
scalar JSON
"Fecha y hora en ISO 8601."
scalar DateTime

"Un archivo: el de un registro (en la pasarela IPFS del archivo) o el icono de una categoría."
type UploadFile {
  id: ID!
  url: String
  name: String
  mime: String
  size: Float
}

type Deal {
  dealId: String!
  storageProvider: String!
}

"Una prueba de procedencia (captura de la fuente)."
type Aletheia {
  id: ID!
  _id: ID!
  proof: UploadFile
}

type FormatCounts {
  pdf: Int!
  csv: Int!
  xlsx: Int!
  ods: Int!
  other: Int!
}

"Un registro del archivo: un documento público."
type Alexandria {
  id: ID!
  _id: ID!
  cid: String
  title: String!
  description: String
  type: String!
  status: String!
  website: String
  source_url: String
  original_url: String
  api_endpoint: String
  api_enabled: Boolean!
  file: UploadFile
  proof: UploadFile
  aletheias: [Aletheia!]!
  category: Category
  department: Department
  source: Source
  wallet_address: String
  deals: [Deal!]!
  "Cada archivo que el registro ha tenido (v1 su primera captura, una más por cada cambio en el origen), de la más antigua a la actual."
  versions: [RecordVersion!]!
  createdAt: DateTime!
  updatedAt: DateTime!
}

"Una versión del archivo de un registro capturado, descargable por su CID."
type RecordVersion {
  number: Int!
  cid: String!
  sha256: String!
  size: Float!
  type: String!
  "La dirección del archivo en la pasarela del archivo."
  url: String!
  capturedAt: DateTime!
  "Lo que respondió el origen al capturarla."
  capture: VersionCapture
  "Qué cambió respecto de la versión anterior; nulo para v1 y mientras se compara."
  diff: VersionDiff
  "none, pending, done o failed."
  diffStatus: String!
}

type VersionCapture {
  finalUrl: String
  status: Int
  etag: String
  lastModified: String
}

type VersionDiff {
  "table (CSV y hojas de cálculo) o file."
  kind: String!
  sizeBefore: Float
  sizeAfter: Float
  typeBefore: String
  typeAfter: String
  columnsAdded: [String!]
  columnsRemoved: [String!]
  rowsAdded: Int
  rowsRemoved: Int
  rowsChanged: Int
  "Unas filas cambiadas: la cabecera y luego filas."
  sample: [[String]!]
  note: String
}

"Dónde se encontró un registro: un portal o una institución."
type Source {
  id: ID!
  _id: ID!
  name: String!
  description: String
  url: String
  website: String
  updatedAt: DateTime!
  ${GROUP_COUNTS}
  ${NESTED_RECORDS}
}

"La institución que emitió un documento. La descripción se escribe 'desciption', como en el servicio original."
type Department {
  id: ID!
  _id: ID!
  name: String!
  desciption: String
  website: String
  url: String
  acronym: String
  updatedAt: DateTime!
  ${GROUP_COUNTS}
  ${NESTED_RECORDS}
}

type Category {
  id: ID!
  _id: ID!
  title: String!
  description: String
  "Su icono (SVG servido por el archivo)."
  icon: UploadFile!
  updatedAt: DateTime!
  ${GROUP_COUNTS}
  ${NESTED_RECORDS}
}

"Una cosecha, subida o carga que trajo registros al archivo."
type Import {
  id: ID!
  _id: ID!
  type: String!
  status: String!
  "Documentos que trajo."
  documents: Int!
  documents_failed: Int!
  "La cartera que subió los registros, o un texto vacío (una cosecha no tiene)."
  wallet: String!
  "El nombre de la fuente, o un texto vacío: un valor, como lo leía el cliente original."
  source: String!
  "La fuente como grupo (id, nombre, url…), si la hay."
  sourceGroup: Source
  createdAt: DateTime!
  updatedAt: DateTime!
  ${NESTED_RECORDS}
}

${connectionTypes('Alexandria', {
  id: 'ID',
  cid: 'String',
  type: 'String',
  status: 'String',
  wallet_address: 'String',
  source: 'ID',
  department: 'ID',
  category: 'ID',
})}
${connectionTypes('Source', { id: 'ID' })}
${connectionTypes('Department', { id: 'ID' })}
${connectionTypes('Category', { id: 'ID' })}
${connectionTypes('Import', { id: 'ID', type: 'String', status: 'String', source: 'ID', wallet: 'String' })}

type Query {
  alexandria(id: ID!): Alexandria
  alexandrias${LIST_ARGS(DEFAULT_LIMIT)}: [Alexandria!]!
  alexandriasConnection${LIST_ARGS(DEFAULT_LIMIT)}: AlexandriaConnection!
  source(id: ID!): Source
  sources${LIST_ARGS(DEFAULT_LIMIT)}: [Source!]!
  sourcesConnection${LIST_ARGS(DEFAULT_LIMIT)}: SourceConnection!
  department(id: ID!): Department
  departments${LIST_ARGS(DEFAULT_LIMIT)}: [Department!]!
  departmentsConnection${LIST_ARGS(DEFAULT_LIMIT)}: DepartmentConnection!
  category(id: ID!): Category
  categories${LIST_ARGS(DEFAULT_LIMIT)}: [Category!]!
  categoriesConnection${LIST_ARGS(DEFAULT_LIMIT)}: CategoryConnection!
  import(id: ID!): Import
  imports${LIST_ARGS(DEFAULT_LIMIT)}: [Import!]!
  importsConnection${LIST_ARGS(DEFAULT_LIMIT)}: ImportConnection!
}
`;
