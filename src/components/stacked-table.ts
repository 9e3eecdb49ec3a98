/**
 * Classes that turn a record page's small table into stacked rows below `sm` (issue #20): on a
 * 390 px phone each row reads as a short card, its column names beside the values, instead of a
 * table whose last columns hide past the right edge. From `sm` up it is the ordinary table.
 * The rows and cells keep their roles explicitly: some browsers drop a table's semantics once its
 * rows are displayed as blocks.
 */
export const STACKED = {
  table: 'w-full text-sm',
  /** The header row: read by screen readers always, seen from `sm` up. */
  head: 'border-b border-slate-200 max-sm:sr-only',
  row: 'max-sm:block max-sm:py-2',
  /** A cell: its own line on a phone; the table's padding (`px-4 py-2` or so) is the caller's. */
  // `anywhere` only where the cell is a block: in a table it would let the column shrink below its
  // words (a date broken in two), so there long words wrap only when they must.
  cell: 'break-words max-sm:block max-sm:px-0 max-sm:py-0.5 max-sm:[overflow-wrap:anywhere]',
  /** A short cell (a badge, a date) that shares its line with the next ones on a phone. */
  inlineCell: 'max-sm:inline-block max-sm:py-1 max-sm:pl-0 max-sm:pr-3 max-sm:align-middle',
  /** A column's name before its value, on a phone only (the header says it from `sm` up). */
  label: 'text-slate-500 sm:hidden',
  th: 'px-4 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500',
} as const;
