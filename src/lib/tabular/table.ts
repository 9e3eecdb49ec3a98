/**
 * A CSV's text as a table: delimiter detected by papaparse (`,` `;` tab), junk rows before the
 * header skipped, empty trailing columns (a trailing `;`) dropped, header names trimmed.
 */
import Papa from 'papaparse';

export interface Table {
  columns: string[];
  rows: string[][];
}

/** The header is the first of the opening rows that is about as full as the fullest one. */
function headerIndex(rows: string[][]): number {
  const filled = rows.slice(0, 20).map((row) => row.filter((cell) => cell.trim() !== '').length);
  const widest = Math.max(0, ...filled);
  const index = filled.findIndex((count) => count >= Math.max(1, Math.ceil(widest * 0.8)));
  return Math.max(0, index);
}

export function parseTable(text: string): Table | null {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy', delimitersToGuess: [',', ';', '\t', '|'] });
  const all = parsed.data.filter((row) => row.some((cell) => cell.trim() !== ''));
  if (all.length < 2) return null;
  const start = headerIndex(all);
  const header = (all[start] ?? []).map((name) => name.trim());
  const body = all.slice(start + 1);
  // Keep the columns that have a name or any value.
  const keep = header.map((name, index) => name !== '' || body.some((row) => (row[index] ?? '').trim() !== ''));
  const columns = header.map((name, index) => name || `Columna ${index + 1}`).filter((_, index) => keep[index]);
  const rows = body.map((row) => header.map((_, index) => (row[index] ?? '').trim()).filter((_, index) => keep[index]));
  return rows.length ? { columns, rows } : null;
}
