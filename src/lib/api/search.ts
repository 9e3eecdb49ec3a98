/**
 * The search modal's calls (SPEC §7), as the browser makes them: the asset search, the department
 * search, the categories, and a wallet's latest uploads. Every answer is the `{code, body}`
 * envelope whose `body` is a JSON string of a list; the items are narrowed here to what the modal
 * shows, so the island never sees the API's full record shape.
 */
import { ASSET_TYPES, LIMITS, type AssetType } from '../domain/constants.ts';
import { ApiError } from './auth.ts';

export interface FoundAsset {
  id: number;
  cid: string | null;
  title: string;
  type: AssetType;
  status: string;
  department: { id: number; name: string } | null;
  createdAt: string;
}

export interface FoundGroup {
  id: number;
  name: string;
  /** How many records the group holds. */
  records: number;
}

interface RestAsset {
  id: number;
  cid: string | null;
  title: string;
  type: string;
  status: string;
  department?: { id: number; name: string } | null;
  createdAt: string;
}

interface RestGroup {
  id: number;
  name?: string;
  title?: string;
  alexandriasCount?: number;
}

/** The list inside a `{code, body}` envelope, whose body is a JSON string (SPEC §7). */
export function parseEnvelopeList(envelope: unknown): unknown[] {
  const body = (envelope as { body?: unknown } | null)?.body;
  const items: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  if (!Array.isArray(items)) throw new TypeError('The answer’s body is not a list');
  return items;
}

async function getList(path: string, params: Record<string, string>, signal?: AbortSignal): Promise<unknown[]> {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(query ? `${path}?${query}` : path, { signal, headers: { Accept: 'application/json' } });
  if (!response.ok) throw new ApiError(String(response.status), `GET ${path} answered ${response.status}`);
  return parseEnvelopeList(await response.json());
}

function toAsset(item: RestAsset): FoundAsset {
  return {
    id: item.id,
    cid: item.cid,
    title: item.title,
    type: item.type in ASSET_TYPES ? (item.type as AssetType) : 'other',
    status: item.status,
    department: item.department ? { id: item.department.id, name: item.department.name } : null,
    createdAt: item.createdAt,
  };
}

function toGroup(item: RestGroup): FoundGroup {
  return { id: item.id, name: item.name ?? item.title ?? '', records: item.alexandriasCount ?? 0 };
}

/** `GET /v2/open-data/alexandrias/getAll?title=…&limit=5`: records whose title contains the text. */
export async function searchAssets(title: string, signal?: AbortSignal): Promise<FoundAsset[]> {
  const items = await getList('/v2/open-data/alexandrias/getAll', { title, limit: String(LIMITS.searchResults) }, signal);
  return (items as RestAsset[]).map(toAsset);
}

/** `GET /v2/open-data/departments/getAll?name=…&limit=5`: ministries and institutions by name. */
export async function searchDepartments(name: string, signal?: AbortSignal): Promise<FoundGroup[]> {
  const items = await getList('/v2/open-data/departments/getAll', { name, limit: String(LIMITS.searchResults) }, signal);
  return (items as RestGroup[]).map(toGroup);
}

/** `GET /v2/open-data/categories/getAll`: every category (there are a dozen), filtered by the caller. */
export async function fetchCategories(signal?: AbortSignal): Promise<FoundGroup[]> {
  const items = await getList('/v2/open-data/categories/getAll', {}, signal);
  return (items as RestGroup[]).map(toGroup);
}

/**
 * `GET /v2/open-data/alexandrias/getAll?wallet_address=…&limit=5&sort=createdAt:-1`: the wallet's
 * latest uploads, newest first. The address goes lowercased, as SPEC §6 says.
 */
export async function fetchLatestUploads(walletAddress: string, signal?: AbortSignal): Promise<FoundAsset[]> {
  const items = await getList(
    '/v2/open-data/alexandrias/getAll',
    { wallet_address: walletAddress.toLowerCase(), limit: String(LIMITS.searchResults), sort: 'createdAt:-1' },
    signal,
  );
  return (items as RestAsset[]).map(toAsset);
}
