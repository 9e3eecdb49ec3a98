/** The REST reads of SPEC §7, one function each; the files under src/pages only route to them. */
import type { GroupEntity } from '../../domain/groups.ts';
import { inArray } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias } from '../db/schema.ts';
import { HttpError } from '../http/errors.ts';
import { byDimension } from '../queries/dimensions.ts';
import { MAX_LIMIT, findGroups, findRecords, recordOrder, type RecordSortField, type SortDirection } from '../queries/find.ts';
import { groupItemsByIds } from '../queries/groups.ts';
import { recordDetails, storageStatus } from '../queries/records.ts';
import { searchGroups, searchRecords } from '../queries/search.ts';
import { parseCid } from '../storage/index.ts';
import { alexandriasGetAllParams, categoriesGetAllParams, namedGetAllParams } from './params.ts';
import { envelope, readQuery } from './rest.ts';
import { assetShape, groupShape, pinStatusShape } from './shapes.ts';
import { strapiList } from './strapi.ts';

/** Full records for `ids`: in that order, or sorted by `sort` when one is given. */
async function findRecordsByIds(db: Db, ids: number[], sort?: Parameters<typeof recordOrder>[0]) {
  const found = await recordDetails(db, inArray(alexandrias.id, ids), sort ? { orderBy: recordOrder(sort) } : undefined);
  return sort ? found : ids.flatMap((id) => found.filter((record) => record.id === id));
}

export interface ApiRequest {
  db: Db;
  url: URL;
  /** The archive's public origin, for absolute file URLs. */
  origin: string;
}

function signedSort(sort: string | undefined): { field: RecordSortField; direction: SortDirection } {
  if (!sort) return { field: 'createdAt', direction: 'desc' };
  const [field, sign] = sort.split(':') as [RecordSortField, string];
  return { field, direction: sign === '1' ? 'asc' : 'desc' };
}

/** `first`, then those of `more` it lacks, up to `limit`: search hits, topped up by plain substring matches. */
function topUp<T extends { id: number }>(first: T[], more: T[], limit: number): T[] {
  const seen = new Set(first.map((item) => item.id));
  return [...first, ...more.filter((item) => !seen.has(item.id))].slice(0, limit);
}

/**
 * GET /v2/open-data/alexandrias/getAll: a wallet's latest uploads, or a title search. A title is
 * searched with the archive's search engine (issue #7), then topped up with titles that merely
 * contain the text (a word still being typed): the best matches, in the order `sort` asks when it
 * is given, else best first.
 */
export async function alexandriasGetAll({ db, url, origin }: ApiRequest): Promise<Response> {
  const params = readQuery(url, alexandriasGetAllParams);
  const window = { limit: params.limit, start: 0, sort: signedSort(params.sort) };
  let records = await findRecords(db, { walletAddress: params.wallet_address, title: params.title }, window);
  if (params.title && !params.wallet_address) {
    const hits = (await searchRecords(db, params.title, params.limit)).map((record) => record.id);
    const details = hits.length ? await findRecordsByIds(db, hits) : [];
    records = topUp(details, records, params.limit);
    if (params.sort) records = await findRecordsByIds(db, records.map((record) => record.id), window.sort);
  }
  return envelope(records.map((record) => assetShape(record, origin)));
}

/** GET /v2/open-data/{departments|sources}/getAll?name=: groups found by the search engine, then by substring. */
export async function namedGetAll(entity: 'dep' | 'src', { db, url, origin }: ApiRequest): Promise<Response> {
  const params = readQuery(url, namedGetAllParams);
  // The original's group pages page this list Strapi's way (`_start=0&_limit=15`).
  const limit = params._limit ?? params.limit;
  const byName = { field: 'name', direction: 'asc' } as const;
  if (!params.name) return envelope((await findGroups(db, entity, {}, { limit, start: params._start, sort: byName })).map((item) => groupShape(entity, item, origin)));
  // One order for every page: the search's hits, best first, then the names that merely contain
  // the text, by name. The hits up to this page's end decide both where the page falls and which
  // names are left to follow them.
  const hits = (await searchGroups(db, entity, params.name, params._start + limit)).map((hit) => hit.id);
  const pageHits = hits.slice(params._start, params._start + limit);
  const more = limit - pageHits.length;
  const containing = more > 0 ? await findGroups(db, entity, { name: params.name, exceptIds: hits }, { limit: more, start: Math.max(0, params._start - hits.length), sort: byName }) : [];
  const items = [...(await groupItemsByIds(db, entity, pageHits)), ...containing];
  return envelope(items.map((item) => groupShape(entity, item, origin)));
}

/** GET /v2/open-data/categories/getAll: every category. */
export async function categoriesGetAll({ db, url, origin }: ApiRequest): Promise<Response> {
  const params = readQuery(url, categoriesGetAllParams);
  const items = await findGroups(db, 'cat', {}, { limit: params.limit, start: 0, sort: { field: 'name', direction: 'asc' } });
  return envelope(items.map((item) => groupShape('cat', item, origin)));
}

/** The v1 paths' plurals (`/v1/api/sources/getAll`) and the entity each names. */
export const V1_ENTITIES = byDimension('plural', (_dimension, entity) => entity);

/** GET /v1/api/{sources|departments|categories}/getAll?limit=: the overview tabs, largest first. */
export async function overviewGetAll(entity: GroupEntity, { db, url, origin }: ApiRequest): Promise<Response> {
  const params = readQuery(url, namedGetAllParams.pick({ limit: true }));
  const items = await findGroups(db, entity, {}, { limit: params.limit, start: 0, sort: { field: 'records', direction: 'desc' } });
  return envelope(items.map((item) => groupShape(entity, item, origin)));
}

/** GET /alexandrias (the admin host, Strapi style): a plain JSON array, as Strapi answered (api/strapi.ts). */
export function strapiAlexandrias(request: ApiRequest): Promise<Response> {
  return strapiList('alexandrias', request);
}

/** GET /v1/services/filecoin/{cid}: what the archive knows of a CID's pins and deals. */
export async function filecoinStatus({ db }: ApiRequest, rawCid: string): Promise<Response> {
  let cid: string;
  try {
    cid = parseCid(rawCid).toV1().toString();
  } catch {
    throw new HttpError(400, 'El CID no es válido.');
  }
  const status = await storageStatus(db, cid);
  if (status.pins.length === 0 && status.deals.length === 0) {
    const known = await findRecords(db, { cid }, { limit: 1, start: 0 });
    if (known.length === 0) throw new HttpError(404, 'El archivo no conoce este CID.');
  }
  return envelope(
    {
      pins: status.pins.map((pin) => ({ status: pinStatusShape(pin.status), provider: pin.provider, updated: pin.updatedAt.toISOString() })),
      deals: status.deals,
    },
    { stringify: false },
  );
}

export { MAX_LIMIT };
