/** Messages between the CSV search panel and its worker. */
export type ToWorker =
  /** `defused`: a CSV the archive wrote (a sheet's preview), whose formula starts it prefixed with «'» (`csvField`). */
  | { type: 'load'; url: string; defused: boolean }
  | { type: 'search'; query: string; page: number };

export type FromWorker =
  /** The header and the first rows are known: the panel can show them and take searches. */
  | { type: 'ready'; columns: string[]; encoding: string; delimiter: string }
  /** More of the file has been read (`loaded` rows so far). */
  | { type: 'progress'; loaded: number }
  /**
   * A page of results. While `loading`, they cover the `loaded` rows read so far; the worker
   * answers the last search again once the whole file is in.
   */
  | {
      type: 'results';
      query: string;
      page: number;
      pages: number;
      total: number;
      rows: string[][];
      columns: string[];
      loading: boolean;
      loaded: number;
    }
  | { type: 'invalid' }
  | { type: 'error'; message: string };

/** SPEC §9: the CSV mini-search shows 20 results a page. */
export const CSV_PAGE_SIZE = 20;
/** SPEC §7: fuzzy search with fuzziness 0.15. */
export const FUZZINESS = 0.15;
