import { LIMITS } from '../../domain/constants.ts';

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  /** ceil(total / pageSize), at least 1 so an empty list still has its page 1 (SPEC §4 Pagination). */
  pages: number;
}

/** Offset of a 1-based page (the spec's start = 10 * (page - 1)); bad input falls back to page 1. */
export function pageWindow(page: number | undefined, pageSize: number = LIMITS.pageSize) {
  const safePage = Number.isInteger(page) && (page as number) > 0 ? (page as number) : 1;
  return { page: safePage, pageSize, offset: (safePage - 1) * pageSize };
}

export function toPage<T>(items: T[], total: number, window: { page: number; pageSize: number }): Page<T> {
  return { items, total, ...window, pages: Math.max(1, Math.ceil(total / window.pageSize)) };
}
