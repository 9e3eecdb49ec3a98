/**
 * The canonical paths of what the archive tells about watched files (issue #19): the documents
 * that disappeared from their source, the change feeds and the preservation record. Beside
 * `paths.ts`, built the same way (one spelling per page); browser-safe.
 */

/**
 * Why a document is on `/desaparecidos`: its address stopped answering (`origen`), or the
 * catalogue it was harvested from stopped listing it (`catalogo`, "retirado del catálogo").
 */
export const DISAPPEARED_REASONS = ['origen', 'catalogo'] as const;
export type DisappearedReason = (typeof DISAPPEARED_REASONS)[number];

/** A `motivo` parameter as a reason; anything else is no filter. */
export function parseDisappearedReason(value: string | null): DisappearedReason | undefined {
  return DISAPPEARED_REASONS.find((reason) => reason === value);
}

/** `/desaparecidos`' state, all in the URL so a filtered list can be shared and indexed. */
export interface DisappearedState {
  dep?: number | undefined;
  cat?: number | undefined;
  motivo?: DisappearedReason | undefined;
  page?: number | undefined;
}

/** `/desaparecidos?dep=…&cat=…&motivo=…&page=…`, in a stable order, page only past 1. */
export function disappearedPath(state: DisappearedState = {}): string {
  const params = new URLSearchParams();
  if (state.dep !== undefined) params.set('dep', String(state.dep));
  if (state.cat !== undefined) params.set('cat', String(state.cat));
  if (state.motivo !== undefined) params.set('motivo', state.motivo);
  if (state.page !== undefined && state.page > 1) params.set('page', String(state.page));
  const query = params.toString();
  return query ? `/desaparecidos?${query}` : '/desaparecidos';
}

/** The Atom feed of every new version, disappearance and withdrawal from a catalogue. */
export const CHANGES_FEED_PATH = '/feeds/cambios.atom';

/** One institution's Atom feed of changes. */
export function departmentFeedPath(id: number): string {
  return `/feeds/instituciones/${id}.atom`;
}

/** The public preservation record. */
export const PRESERVATION_PATH = '/preservacion';
