/**
 * The part of daff 1.4.2 (https://github.com/paulfitz/daff, no types of its own) that
 * `daff-comparison.ts` uses: two tables aligned, then highlighted into a diff table and a summary.
 */
declare module 'daff' {
  type Cell = string | number | null;
  export class TableView {
    constructor(data: Cell[][]);
  }
  export class CompareFlags {
    /** Whether row order matters (true by default for tables). */
    ordered: boolean;
    /** Rows of unchanged context around each change in the diff table. */
    unchanged_context: number;
  }
  export interface Alignment {
    readonly __alignment: never;
  }
  export interface DiffSummary {
    row_inserts: number;
    row_deletes: number;
    row_updates: number;
    col_inserts: number;
    col_deletes: number;
    col_renames: number;
  }
  export class TableDiff {
    constructor(alignment: Alignment, flags: CompareFlags);
    hilite(output: TableView): boolean;
    getSummary(): DiffSummary;
  }
  export function compareTables(before: TableView, after: TableView, flags?: CompareFlags): { align(): Alignment };
  const daff: {
    TableView: typeof TableView;
    CompareFlags: typeof CompareFlags;
    TableDiff: typeof TableDiff;
    compareTables: typeof compareTables;
  };
  export default daff;
}
