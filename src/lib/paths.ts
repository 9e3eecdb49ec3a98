/**
 * The canonical paths of the catalogue, written once: every page, link, sitemap entry and JSON-LD
 * `url` is built here, so a search engine sees one URL per page, never two spellings of it.
 * Browser-safe: no server imports.
 */
import type { GroupEntity } from './domain/groups.ts';
import { COLLECTION_ORDERS, GROUP_ORDERS, listQuery, type ListView } from './list-view.ts';

/** The list of one group: `/group/dep`, with its order, filter and page when not the spec's (`?orden=az&q=…&page=2`). */
export function groupPath(entity: GroupEntity, view?: Partial<ListView>, page?: number): string {
  return `/group/${entity}${listQuery(view, GROUP_ORDERS[0], page)}`;
}

/** One source, department or category; `?page=N` only past page 1, so page 1 has one URL (and `?orden=`/`?q=` as in `groupPath`). */
export function collectionPath(entity: GroupEntity, id: number, page?: number, view?: Partial<ListView>): string {
  return `/collection/${entity}/${id}${listQuery(view, COLLECTION_ORDERS[0], page)}`;
}

/**
 * The page of a record by its id alone: `/registro/{id}`. It never changes, whatever becomes of the
 * record's file, so it is the canonical URL of a record the archive holds no file of yet, and a
 * link made before its capture keeps working after it (the page then redirects to `recordPath`).
 */
export function recordIdPath(id: number): string {
  return `/registro/${id}`;
}

/**
 * The canonical URL of a record (issue #20: every record has a page). A record with a file: by CID,
 * with `assetId` picking the record when the same file was contributed more than once (SPEC §2
 * `/single/{entity}/{cid}?assetId={id}`), always the `src` spelling: the spec links records as `src`
 * or `cat`, and both show the same record. A record without a file yet: `recordIdPath`.
 */
export function recordPath(record: { cid: string | null; id: number }): string {
  if (!record.cid) return recordIdPath(record.id);
  return `/single/src/${encodeURIComponent(record.cid)}?assetId=${record.id}`;
}

/** A wallet's public contributions page (the ranking and the record pages link to it). */
export function contributionsPath(walletAddress: string, page?: number): string {
  const path = `/contribuciones/${encodeURIComponent(walletAddress.toLowerCase())}`;
  return page && page > 1 ? `${path}?page=${page}` : path;
}

/** The results page's state, all of it in the URL so a search can be shared and indexed. */
export interface SearchState {
  q: string;
  page?: number;
  format?: string;
  status?: string;
  dep?: number;
  cat?: number;
  src?: number;
}

/** `/buscar?q=…` with its filters and page, in a stable order. */
export function searchPath(state: SearchState): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  for (const key of ['format', 'status', 'dep', 'cat', 'src'] as const) {
    const value = state[key];
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  if (state.page && state.page > 1) params.set('page', String(state.page));
  const query = params.toString();
  return query ? `/buscar?${query}` : '/buscar';
}

/** `path` on the archive's public origin, resolved the way the layout builds its canonical link. */
export function absoluteUrl(origin: string, path: string): string {
  return new URL(path, origin).href;
}

/**
 * Where to go after signing in, from a `?next=` the visitor (or a link from anywhere) wrote: a
 * path on this archive, or `fallback`. `//evil.example` and `/\evil.example` start with a slash
 * but browsers read them as other hosts (issue #16), so the value is resolved against our own
 * origin and kept only if it stays there.
 */
export function sameOriginPath(value: string | null | undefined, fallback = '/dashboard'): string {
  if (!value?.startsWith('/')) return fallback;
  const base = 'http://archivo.invalid';
  let resolved: URL;
  try {
    resolved = new URL(value, base);
  } catch {
    return fallback;
  }
  if (resolved.origin !== base) return fallback;
  // Dot-segments can leave a path that starts with `//` (`/.//evil.example` → `//evil.example`):
  // as a link, that is another host again.
  if (/^\/[\\/]/.test(resolved.pathname)) return fallback;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
