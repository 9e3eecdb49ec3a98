/**
 * The worker thread that compares two versions' tables for the `version-diff` job
 * (`table-diff.ts` starts it): parsing both CSVs and daff's alignment take seconds on large
 * tables and happen here, on a thread and a heap of their own, never on the server's event loop.
 * The thread compares one pair and ends.
 *
 * Loaded by Node itself, not by Vite: every import is a `.ts` path (or a package) and only
 * erasable TypeScript is allowed here and in what it imports.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { daffChanges } from './daff-comparison.ts';
import { KeyedComparison } from './keyed-comparison.ts';
import { csvRows, type TableChanges } from './table-rows.ts';

if (!parentPort) throw new Error('table-diff-worker.ts solo se ejecuta como hilo de trabajo (véase table-diff.ts)');
const port = parentPort;

export interface TableDiffInput {
  /** Both versions as CSV bytes (a spreadsheet's first sheet already made into one). */
  before: Uint8Array;
  after: Uint8Array;
  /** Past this many rows in either table, the rows are compared by `KeyedComparison` instead of daff. */
  maxDaffRows: number;
}

export type TableDiffMessage = { kind: 'done'; changes: TableChanges } | { kind: 'failed'; message: string };

function compare({ before, after, maxDaffRows }: TableDiffInput): TableChanges {
  const left = csvRows(before);
  const right = csvRows(after);
  if (left.length === 0 || right.length === 0) throw new Error('una de las dos versiones no tiene filas');
  if (left.length - 1 <= maxDaffRows && right.length - 1 <= maxDaffRows) return daffChanges(left, right);
  const comparison = new KeyedComparison(left[0]!, right[0]!);
  for (let row = 1; row < left.length; row += 1) comparison.addBefore(left[row]!);
  for (let row = 1; row < right.length; row += 1) comparison.addAfter(right[row]!);
  return comparison.finish();
}

try {
  port.postMessage({ kind: 'done', changes: compare(workerData as TableDiffInput) } satisfies TableDiffMessage);
} catch (error) {
  port.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies TableDiffMessage);
} finally {
  port.close();
}
