/**
 * The canonical paths of what the archive tells about watched files (issue #19): the documents
 * that disappeared from their source, the change feeds and the preservation record. Beside
 * `paths.ts`, built the same way (one spelling per page); browser-safe.
 */

/** `/desaparecidos`' state, all in the URL so a filtered list can be shared and indexed. */
export interface DisappearedState {
  dep?: number | undefined;
  cat?: number | undefined;
  page?: number | undefined;
}

/** `/desaparecidos?dep=…&cat=…&page=…`, in a stable order, page only past 1. */
export function disappearedPath(state: DisappearedState = {}): string {
  const params = new URLSearchParams();
  if (state.dep !== undefined) params.set('dep', String(state.dep));
  if (state.cat !== undefined) params.set('cat', String(state.cat));
  if (state.page !== undefined && state.page > 1) params.set('page', String(state.page));
  const query = params.toString();
  return query ? `/desaparecidos?${query}` : '/desaparecidos';
}

/** The Atom feed of every new version and disappearance. */
export const CHANGES_FEED_PATH = '/feeds/cambios.atom';

/** One institution's Atom feed of changes. */
export function departmentFeedPath(id: number): string {
  return `/feeds/instituciones/${id}.atom`;
}

/** The public preservation record. */
export const PRESERVATION_PATH = '/preservacion';
