/**
 * Timing helpers shared by the benchmark's parts: per-run samples summarised as median and p95,
 * which say more than a mean on a shared, noisy machine.
 */

export interface Timing {
  runs: number;
  median: number;
  p95: number;
}

/** The value below which `q` (0..1) of the sorted samples fall (nearest rank). */
function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function summarise(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { runs: sorted.length, median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
}

export interface MeasureOptions {
  runs: number;
  warmups?: number;
  /** Stop early once this much time went into measured runs... */
  maxMs?: number;
  /** ...but never before this many runs. */
  minRuns?: number;
}

/**
 * Runs `task` unmeasured `warmups` times (for at most a second), then up to `runs` times, timing
 * each run on its own. A time cap keeps a slow task from stretching the whole benchmark: it then
 * gets fewer samples, which its `runs` shows.
 */
export async function measure(
  task: () => Promise<unknown>,
  { runs, warmups = Math.ceil(runs / 10), maxMs = Infinity, minRuns = 10 }: MeasureOptions,
): Promise<Timing> {
  const warming = performance.now();
  for (let i = 0; i < warmups && (i === 0 || performance.now() - warming < 1000); i += 1) await task();
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < runs; i += 1) {
    if (i >= minRuns && performance.now() - started > maxMs) break;
    const begun = performance.now();
    await task();
    samples.push(performance.now() - begun);
  }
  return summarise(samples);
}

/** Milliseconds with two decimals below 10 ms and one above: enough to compare, no false precision. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

/** A plain text table: the first row is the header, columns after the first are right-aligned. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const [header, ...body] = rows;
  if (!header) return '';
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** Seconds since `started` (a `performance.now()` reading), for progress lines. */
export function since(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}
