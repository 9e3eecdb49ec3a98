/**
 * How a visitor orders and narrows a list of groups (`/group/*`) or a collection's records, kept in
 * the URL (`?orden=az&q=salud&page=2`), so a list can be shared and indexed, and works without
 * JavaScript (a GET form). The spec's order comes first in each list and is left out of URLs.
 * Browser-safe: no server imports.
 */

/** `/group/*`: most recently updated (SPEC §2), A–Z by name, or the groups with most records first. */
export const GROUP_ORDERS = ['recientes', 'az', 'registros'] as const;
export type GroupOrder = (typeof GROUP_ORDERS)[number];

/** A collection's records: most recently updated (the spec's), or A–Z by title. */
export const COLLECTION_ORDERS = ['recientes', 'az'] as const;
export type CollectionOrder = (typeof COLLECTION_ORDERS)[number];

/** The longest filter text kept: a name, not a document. */
export const LIST_FILTER_MAX = 100;

export interface ListView<O extends string = string> {
  order: O;
  /** Text the names must contain (case and accents ignored); empty: no filter. */
  q: string;
}

/**
 * The view asked for by `?orden=` and `?q=`. Like `?page=`, an order the list does not have falls
 * back to the spec's instead of failing: an old or hand-edited link still shows the list.
 */
export function parseListView<O extends string>(params: URLSearchParams, orders: readonly [O, ...O[]]): ListView<O> {
  const asked = params.get('orden');
  const order = orders.find((candidate) => candidate === asked) ?? orders[0];
  const q = (params.get('q') ?? '').replace(/\s+/g, ' ').trim().slice(0, LIST_FILTER_MAX);
  return { order, q };
}

/**
 * The query string of a list view and page, in a stable order, without what is the default (the
 * first order, no filter, page 1): one URL per list, '' for the spec's own.
 */
export function listQuery(view: Partial<ListView> | undefined, defaultOrder: string, page?: number): string {
  const params = new URLSearchParams();
  if (view?.order && view.order !== defaultOrder) params.set('orden', view.order);
  if (view?.q) params.set('q', view.q);
  if (page !== undefined && Number.isInteger(page) && page > 1) params.set('page', String(page));
  const query = params.toString();
  return query ? `?${query}` : '';
}
