/** Messages between the CSV search panel and its worker. */
export type ToWorker = { type: 'load'; url: string } | { type: 'search'; query: string; page: number };

export type FromWorker =
  | { type: 'ready'; columns: string[]; count: number; encoding: string }
  | { type: 'results'; query: string; page: number; pages: number; total: number; rows: string[][] }
  | { type: 'invalid' }
  | { type: 'error'; message: string };

/** SPEC §9: the CSV mini-search shows 20 results a page. */
export const CSV_PAGE_SIZE = 20;
/** SPEC §7: fuzzy search with fuzziness 0.15. */
export const FUZZINESS = 0.15;
