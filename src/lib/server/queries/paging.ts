import { LIMITS } from '../../domain/constants.ts';

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  /** ceil(total / pageSize), at least 1 so an empty list still has its page 1 (SPEC §4 Pagination). */
  pages: number;
}

/** The highest page anyone is served: far past any real list, and small enough for an OFFSET. */
export const MAX_PAGE = 1_000_000;

/** Offset of a 1-based page (the spec's start = 10 * (page - 1)); bad input falls back to page 1. */
export function pageWindow(page: number | undefined, pageSize: number = LIMITS.pageSize) {
  const safePage = Number.isSafeInteger(page) && (page as number) > 0 ? Math.min(page as number, MAX_PAGE) : 1;
  return { page: safePage, pageSize, offset: (safePage - 1) * pageSize };
}

/** Whether `id` can be a row id (a positive PostgreSQL integer): anything else matches no row. */
export function isRowId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647;
}

export function toPage<T>(items: T[], total: number, window: { page: number; pageSize: number }): Page<T> {
  return { items, total, ...window, pages: Math.max(1, Math.ceil(total / window.pageSize)) };
}
