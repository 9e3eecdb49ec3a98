/**
 * The admin host's REST paths in Strapi v3's conventions, which the original front end and its
 * users' scripts call (contracts README): `/{collection}` answers a plain JSON array,
 * `/{collection}/{id}` one plain object, `/{collection}/count` a bare number.
 *
 * The query string is read as Strapi read it: `_limit`, `_start`, `_sort=field:asc|desc`, any
 * other parameter a field filter (`type=pdf`, `category=3`), `_where[field]=…` the same, and
 * other `_`-parameters (`_q`, `_publicationState`, cache busters) ignored. They become the GraphQL
 * API's list arguments and are checked by the same rules (graphql/args.ts), so both APIs filter,
 * order and page alike, with the same leniencies (`_sort=desc` orders by id) and the same bound:
 * `_limit=-1` or `0`, "no limit" in Strapi, answers at most `MAX_LIMIT` rows (params.ts).
 */
import type { GroupEntity } from '../../domain/groups.ts';
import { HttpError } from '../http/errors.ts';
import { badInputMessage, groupWhere, groupWindow, idOf, importWhere, importWindow, recordWhere, recordWindow, type ListArgs } from '../graphql/args.ts';
import { countGroups, countRecordsFast } from '../queries/connections.ts';
import { findGroups, findRecords, MAX_LIMIT } from '../queries/find.ts';
import { getGroupItem } from '../queries/groups.ts';
import { countImports, findImports } from '../queries/imports.ts';
import { getRecord } from '../queries/records.ts';
import type { ApiRequest } from './endpoints.ts';
import { strapiAlexandriasParams, strapiWindowParams } from './params.ts';
import { PUBLIC_READ_HEADERS, readQuery } from './rest.ts';
import { assetShape, groupShape, importShape } from './shapes.ts';

/** The collections of the admin host, by the path that names them. */
export type StrapiCollection = 'alexandrias' | 'sources' | 'departments' | 'categories' | 'imports';

/** A Strapi answer: the value itself as JSON, no envelope, readable from any origin. */
function plain(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: PUBLIC_READ_HEADERS });
}

/** `read`, with a mistake in the parameters (args.ts's rules) answered as a 400 with its message. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    const message = badInputMessage(error);
    if (message !== null) throw new HttpError(400, message);
    throw error;
  }
}

/** `_where[field]=…` and `_where[0][field]=…`: Strapi's explicit form of a field filter. */
const WHERE_PARAMETER = /^_where(?:\[\d+\])?\[([A-Za-z_]+)\]$/;

/**
 * The list arguments a Strapi query string asks for (see the top of this file), its documented
 * parameters checked first by `params` (the schema the OpenAPI document shows).
 */
export function strapiArgs(url: URL, params: typeof strapiWindowParams = strapiWindowParams): ListArgs & { where: Record<string, string> } {
  const window = readQuery(url, params);
  const where: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    const explicit = WHERE_PARAMETER.exec(key);
    if (explicit) where[explicit[1]!] = value;
    else if (!key.startsWith('_')) where[key] = value;
  }
  return { where, sort: window._sort, limit: window._limit, start: window._start };
}

interface CollectionOps {
  /** The documented parameters (params.ts), checked before the filters are read. */
  params?: typeof strapiWindowParams;
  list(request: ApiRequest, args: ListArgs): Promise<unknown[]>;
  count(request: ApiRequest, where: Record<string, string>): Promise<number>;
  one(request: ApiRequest, id: number): Promise<unknown>;
}

/** Records are listed newest first unless `_sort` says otherwise (the last-files table's order). */
const RECORD_DEFAULT_SORT = 'createdAt:desc';

const records: CollectionOps = {
  params: strapiAlexandriasParams,
  list: async ({ db, origin }, args) => {
    const filter = checked(() => recordWhere(args.where, '_'));
    const window = checked(() => recordWindow({ ...args, sort: args.sort ?? RECORD_DEFAULT_SORT }, MAX_LIMIT, '_'));
    return (await findRecords(db, filter, window)).map((record) => assetShape(record, origin));
  },
  count: ({ db }, where) => countRecordsFast(db, checked(() => recordWhere(where, '_'))),
  one: async ({ db, origin }, id) => {
    const record = await getRecord(db, id);
    return record ? assetShape(record, origin) : null;
  },
};

function groups(entity: GroupEntity): CollectionOps {
  return {
    list: async ({ db, origin }, args) => {
      const filter = checked(() => groupWhere(entity, args.where, '_'));
      const window = checked(() => groupWindow(entity, args, MAX_LIMIT, '_'));
      return (await findGroups(db, entity, filter, window)).map((item) => groupShape(entity, item, origin));
    },
    count: ({ db }, where) => countGroups(db, entity, checked(() => groupWhere(entity, where, '_'))),
    one: async ({ db, origin }, id) => {
      const item = await getGroupItem(db, entity, id);
      return item ? groupShape(entity, item, origin) : null;
    },
  };
}

const importOps: CollectionOps = {
  list: async ({ db }, args) => {
    const filter = checked(() => importWhere(args.where, '_'));
    const window = checked(() => importWindow(args, MAX_LIMIT, '_'));
    return (await findImports(db, filter, window)).map(importShape);
  },
  count: ({ db }, where) => countImports(db, checked(() => importWhere(where, '_'))),
  one: async ({ db }, id) => (await findImports(db, { id }, { limit: 1, start: 0 })).map(importShape)[0] ?? null,
};

const COLLECTIONS: Record<StrapiCollection, CollectionOps> = {
  alexandrias: records,
  sources: groups('src'),
  departments: groups('dep'),
  categories: groups('cat'),
  imports: importOps,
};

/** GET /{collection}: a plain JSON array. */
export async function strapiList(collection: StrapiCollection, request: ApiRequest): Promise<Response> {
  const ops = COLLECTIONS[collection];
  return plain(await ops.list(request, strapiArgs(request.url, ops.params)));
}

/** GET /{collection}/count: how many rows match the filters, as a bare number. */
export async function strapiCount(collection: StrapiCollection, request: ApiRequest): Promise<Response> {
  const ops = COLLECTIONS[collection];
  return plain(await ops.count(request, strapiArgs(request.url, ops.params).where));
}

/** GET /{collection}/{id}: one row as a plain object, or a 404. */
export async function strapiOne(collection: StrapiCollection, request: ApiRequest, rawId: string | undefined): Promise<Response> {
  const id = checked(() => idOf(rawId, 'id'));
  const row = await COLLECTIONS[collection].one(request, id);
  if (row === null) throw new HttpError(404, `No hay ${NOT_FOUND[collection]} con el id ${id}.`);
  return plain(row);
}

const NOT_FOUND: Record<StrapiCollection, string> = {
  alexandrias: 'ningún registro',
  sources: 'ninguna fuente',
  departments: 'ninguna institución',
  categories: 'ninguna categoría',
  imports: 'ninguna importación',
};
