/**
 * The pagination control's slots (SPEC §4, §9): pages = ceil(total / size), at most 8 slots, with
 * ellipses standing for the pages left out. The first and last pages are always reachable, and so
 * are the neighbours of the current page.
 */
export const PAGINATION_SLOTS = 8;

export type PaginationSlot = number | 'ellipsis';

export function paginationSlots(current: number, pages: number, slots: number = PAGINATION_SLOTS): PaginationSlot[] {
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (pages <= slots) return range(1, Math.max(1, pages));
  const page = Math.min(Math.max(1, current), pages);
  // Near an end, one ellipsis is enough: the end's run of pages, an ellipsis, the far end.
  if (page <= slots - 3) return [...range(1, slots - 2), 'ellipsis', pages];
  if (page >= pages - (slots - 4)) return [1, 'ellipsis', ...range(pages - (slots - 3), pages)];
  // In the middle: first, ellipsis, a window around the current page, ellipsis, last.
  const width = slots - 4;
  const start = page - Math.floor((width - 1) / 2);
  return [1, 'ellipsis', ...range(start, start + width - 1), 'ellipsis', pages];
}
