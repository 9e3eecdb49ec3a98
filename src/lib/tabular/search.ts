/**
 * Fuzzy search over a `ColumnStore` that answers as fuse.js would over the same rows (same hits,
 * same order: see fuzzy.ts), without running fuse's matcher on every cell: each column's
 * distinct values are scanned with `indexOf` for the query's pieces, only the values holding one
 * are scored, and a row's score is then put together from its values' scores with one pass over
 * the column's row-to-value numbers per column that had a match.
 */
import type { ColumnStore, ColumnValues } from './columns.ts';
import { bitapErrors, cellFactor, cellScore, fieldNorm, fuzzyPlan, type FuzzyPlan } from './fuzzy.ts';

/** Called for a value holding the piece: its number, the segment text and its bounds, where the piece is. */
type Visit = (id: number, text: string, start: number, end: number, at: number) => void;

/** Calls `visit` once for each sealed value of `values` whose lowercased text contains `piece`. */
export function forEachValueContaining(values: ColumnValues, piece: string, visit: Visit): void {
  for (const segment of values.segments) {
    const { lower, starts, firstId } = segment;
    const last = starts.length - 2;
    let index = 0;
    let from = 0;
    for (;;) {
      const at = lower.indexOf(piece, from);
      if (at === -1) break;
      // The value the hit is in: the last whose start is at or before it (hits only move forward).
      let high = last;
      while (index < high) {
        const middle = (index + high + 1) >> 1;
        if (starts[middle]! <= at) index = middle;
        else high = middle - 1;
      }
      const start = starts[index]!;
      const end = starts[index + 1]! - 1;
      if (at + piece.length <= end) {
        visit(firstId + index, lower, start, end, at);
        from = end + 1;
      } else {
        // The hit runs over a separator (the piece has a NUL in it).
        from = at + 1;
      }
    }
  }
}

export class TableSearch {
  readonly #store: ColumnStore;
  readonly #threshold: number;
  /** Per value of the column being scored: `#generation` once looked at, and its factor (-1: no match). */
  #looked = new Uint32Array(0);
  #factor = new Float64Array(0);
  #generation = 0;
  /** Per row: the score so far, and whether any cell matched. */
  #score = new Float64Array(0);
  #hit = new Uint8Array(0);

  constructor(store: ColumnStore, threshold: number) {
    this.#store = store;
    this.#threshold = threshold;
  }

  /**
   * The numbers of the rows matching `query` in `columns` (fuse's keys, in order), best first;
   * every row, in order, for a blank query.
   */
  search(query: string, columns: number[]): Uint32Array {
    const store = this.#store;
    const rows = store.rows;
    const plan = fuzzyPlan(query, this.#threshold);
    if (!plan.chunks.length || !columns.length) return Uint32Array.from({ length: plan.chunks.length ? 0 : rows }, (_, row) => row);
    store.seal();
    if (this.#score.length < rows) {
      this.#score = new Float64Array(Math.ceil(rows * 1.25));
      this.#hit = new Uint8Array(this.#score.length);
    }
    const score = this.#score;
    const hit = this.#hit;
    score.fill(1, 0, rows);
    hit.fill(0, 0, rows);
    const weight = 1 / columns.length;
    for (const column of columns) {
      if (!this.#scoreValues(store.columns[column]!, plan, weight)) continue;
      const ids = store.ids(column);
      const looked = this.#looked;
      const factor = this.#factor;
      const generation = this.#generation;
      for (let row = 0; row < rows; row += 1) {
        const id = ids[row]!;
        if (looked[id] === generation) {
          const value = factor[id]!;
          if (value >= 0) {
            score[row]! *= value;
            hit[row] = 1;
          }
        }
      }
    }
    return rank(score, hit, rows);
  }

  /** Scores the values of one column that match; answers how many did. */
  #scoreValues(values: ColumnValues, plan: FuzzyPlan, weight: number): number {
    if (this.#looked.length < values.count) {
      this.#looked = new Uint32Array(Math.ceil(values.count * 1.25));
      this.#factor = new Float64Array(this.#looked.length);
      this.#generation = 0;
    }
    if (this.#generation === 0xffffffff) {
      this.#looked.fill(0);
      this.#generation = 0;
    }
    const generation = ++this.#generation;
    const looked = this.#looked;
    const factor = this.#factor;
    let matched = 0;
    const keep = (id: number, text: string, start: number, end: number, cell: number) => {
      if (cell < 0) {
        factor[id] = -1;
        return;
      }
      factor[id] = cellFactor(cell, weight, fieldNorm(text, start, end));
      matched += 1;
    };

    const [chunk] = plan.chunks;
    if (plan.chunks.length === 1 && chunk) {
      const length = chunk.pattern.length;
      // Values holding the whole pattern: 0 if they are it, 0.001 otherwise (fuse's floor).
      forEachValueContaining(values, chunk.pattern, (id, text, start, end, at) => {
        looked[id] = generation;
        keep(id, text, start, end, at === start && end - start === length ? 0 : 0.001);
      });
      if (chunk.maxErrors === 0) return matched;
      for (const piece of chunk.pieces) {
        forEachValueContaining(values, piece, (id, text, start, end) => {
          if (looked[id] === generation) return;
          looked[id] = generation;
          const errors = bitapErrors(text, start, end, chunk.pattern, chunk.maxErrors);
          keep(id, text, start, end, errors < 0 ? -1 : Math.max(0.001, errors / length));
        });
      }
      return matched;
    }
    for (const piece of plan.pieces) {
      forEachValueContaining(values, piece, (id, text, start, end) => {
        if (looked[id] === generation) return;
        looked[id] = generation;
        keep(id, text, start, end, cellScore(plan, text.slice(start, end)));
      });
    }
    return matched;
  }
}

/** The rows with a hit, by score and then by position: a counting sort over the distinct scores. */
function rank(score: Float64Array, hit: Uint8Array, rows: number): Uint32Array {
  const counts = new Map<number, number>();
  let total = 0;
  for (let row = 0; row < rows; row += 1) {
    if (!hit[row]) continue;
    const value = score[row]!;
    counts.set(value, (counts.get(value) ?? 0) + 1);
    total += 1;
  }
  const next = new Map<number, number>();
  let at = 0;
  for (const value of [...counts.keys()].sort((a, b) => a - b)) {
    next.set(value, at);
    at += counts.get(value)!;
  }
  const ranked = new Uint32Array(total);
  for (let row = 0; row < rows; row += 1) {
    if (!hit[row]) continue;
    const value = score[row]!;
    const place = next.get(value)!;
    ranked[place] = row;
    next.set(value, place + 1);
  }
  return ranked;
}
