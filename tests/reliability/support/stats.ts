/** Latency figures for the report: percentiles per kind of request, printed as a table. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export class Latencies {
  private readonly byKind = new Map<string, number[]>();

  add(kind: string, ms: number): void {
    let list = this.byKind.get(kind);
    if (!list) this.byKind.set(kind, (list = []));
    list.push(ms);
  }

  count(kind?: string): number {
    if (kind) return this.byKind.get(kind)?.length ?? 0;
    return [...this.byKind.values()].reduce((sum, list) => sum + list.length, 0);
  }

  /** A fixed-width table: kind, count, p50, p90, p99, max (ms), and a total row. */
  table(): string {
    const all: number[] = [];
    const lines = [`${'kind'.padEnd(26)}${'n'.padStart(7)}${'p50'.padStart(9)}${'p90'.padStart(9)}${'p99'.padStart(9)}${'max'.padStart(9)}  (ms)`];
    const row = (kind: string, values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const cell = (value: number) => value.toFixed(0).padStart(9);
      return `${kind.padEnd(26)}${String(sorted.length).padStart(7)}${cell(percentile(sorted, 50))}${cell(percentile(sorted, 90))}${cell(percentile(sorted, 99))}${cell(sorted.at(-1) ?? Number.NaN)}`;
    };
    for (const [kind, values] of [...this.byKind.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(row(kind, values));
      all.push(...values);
    }
    lines.push(row('ALL', all));
    return lines.join('\n');
  }
}
