/**
 * A large table kept small, column by column, in a form a search can scan quickly.
 *
 * Each column holds its distinct values (until it has seen `DICTIONARY_LIMIT` of them; after that
 * every new cell is simply appended, as a dictionary of unique licence numbers or amounts would
 * only cost memory) and, per row, the number of the row's value (a Uint32Array). The values live
 * in segments of a few thousand, joined by NUL into one lowercased string, the text a search runs
 * `indexOf` over, with the start of each value in a Uint32Array; the values as written are kept
 * beside it only when lowercasing changed them. A 50 MB file of 300,000 rows takes a few tens of
 * MB this way, against hundreds for an array of arrays of strings.
 */

/** Distinct values a column remembers before it stops looking for repeats. */
export const DICTIONARY_LIMIT = 65_536;
/** Values per segment. */
const SEGMENT_VALUES = 4096;
const SEPARATOR = '\u0000';
/** V8 keeps a substring of 13 characters or more as a view of its whole parent text. */
const SLICE_MIN = 13;

export interface Segment {
  /** The number of the segment's first value. */
  firstId: number;
  /** Where each value starts in `lower`, and one past the separator after the last. */
  starts: Uint32Array;
  /** The values, lowercased as fuse.js does, joined by NUL. */
  lower: string;
  /** The values as written, when lowercasing changed some; null when `lower` is them. */
  original: string | null;
  /** Where each value starts in `original`, when lowercasing changed some value's length. */
  originalStarts: Uint32Array | null;
}

/**
 * A copy of `text` that does not keep the text it was cut from alive (a dictionary key outlives
 * the chunk of the file it came from).
 */
const detached = (text: string) => (text.length >= SLICE_MIN ? (SEPARATOR + text).slice(1) : text);

function startsOf(values: string[]): Uint32Array {
  const starts = new Uint32Array(values.length + 1);
  let at = 0;
  for (let index = 0; index < values.length; index += 1) {
    starts[index] = at;
    at += values[index]!.length + 1;
  }
  starts[values.length] = at;
  return starts;
}

export class ColumnValues {
  /** Values held (the next value's number). */
  count = 0;
  readonly segments: Segment[] = [];
  #pending: string[] = [];
  #dictionary: Map<string, number> | null = new Map();
  #lastValue: string | null = null;
  #lastId = 0;

  /** The number of `value`, adding it if it is new (or if the column no longer looks for repeats). */
  add(value: string): number {
    // Sorted files repeat a value row after row (the year, the month, the province).
    if (value === this.#lastValue) return this.#lastId;
    const dictionary = this.#dictionary;
    if (dictionary) {
      const known = dictionary.get(value);
      if (known !== undefined) {
        this.#lastValue = value;
        this.#lastId = known;
        return known;
      }
      if (dictionary.size >= DICTIONARY_LIMIT) this.#dictionary = null;
      else dictionary.set(detached(value), this.count);
    }
    const id = this.count;
    this.count += 1;
    this.#pending.push(value);
    if (this.#pending.length >= SEGMENT_VALUES) this.seal();
    if (dictionary) {
      this.#lastValue = value;
      this.#lastId = id;
    }
    return id;
  }

  /** Moves the values added since the last call into a segment, where searches see them. */
  seal(): void {
    const values = this.#pending;
    if (!values.length) return;
    this.#pending = [];
    const firstId = this.count - values.length;
    const original = values.join(SEPARATOR) + SEPARATOR;
    const lower = original.toLowerCase();
    if (lower === original) {
      this.segments.push({ firstId, starts: startsOf(values), lower, original: null, originalStarts: null });
    } else if (lower.length === original.length) {
      this.segments.push({ firstId, starts: startsOf(values), lower, original, originalStarts: null });
    } else {
      // Some letter lowercases to two (İ): each value on its own, so the starts stay right.
      const lowered = values.map((value) => value.toLowerCase());
      this.segments.push({ firstId, starts: startsOf(lowered), lower: lowered.join(SEPARATOR) + SEPARATOR, original, originalStarts: startsOf(values) });
    }
  }

  /** The value numbered `id`, as written. */
  value(id: number): string {
    if (id >= this.count - this.#pending.length) return this.#pending[id - (this.count - this.#pending.length)] ?? '';
    const segments = this.segments;
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (segments[middle]!.firstId <= id) low = middle;
      else high = middle - 1;
    }
    const segment = segments[low]!;
    const index = id - segment.firstId;
    const starts = segment.originalStarts ?? segment.starts;
    return (segment.original ?? segment.lower).slice(starts[index]!, starts[index + 1]! - 1);
  }
}

/** The table: a `ColumnValues` per column and, per column, each row's value number. */
export class ColumnStore {
  readonly width: number;
  rows = 0;
  readonly columns: ColumnValues[];
  #ids: Uint32Array[];
  #capacity: number;

  constructor(width: number, expectedRows = 1024) {
    this.width = width;
    this.#capacity = Math.max(16, expectedRows);
    this.columns = Array.from({ length: width }, () => new ColumnValues());
    this.#ids = Array.from({ length: width }, () => new Uint32Array(this.#capacity));
  }

  /** Adds a row of `width` cells. */
  add(cells: string[]): void {
    if (this.rows === this.#capacity) this.#grow(Math.max(16, Math.ceil(this.#capacity * 1.5)));
    const row = this.rows;
    for (let column = 0; column < this.width; column += 1) this.#ids[column]![row] = this.columns[column]!.add(cells[column] ?? '');
    this.rows += 1;
  }

  /** Makes room for `rows` rows at once (an estimate from the file's size), sparing regrowths. */
  reserve(rows: number): void {
    if (rows > this.#capacity) this.#grow(rows);
  }

  /** Each row's value numbers in `column` (the first `rows` entries). */
  ids(column: number): Uint32Array {
    return this.#ids[column]!;
  }

  cell(row: number, column: number): string {
    return this.columns[column]!.value(this.#ids[column]![row]!);
  }

  /** Makes every row added so far searchable. */
  seal(): void {
    for (const column of this.columns) column.seal();
  }

  /** The end of the file: seals, and gives back the room reserved for rows that did not come. */
  finish(): void {
    this.seal();
    if (this.#capacity > this.rows && this.rows > 0) this.#grow(this.rows);
  }

  #grow(capacity: number): void {
    this.#capacity = Math.max(capacity, this.rows);
    this.#ids = this.#ids.map((ids) => {
      const grown = new Uint32Array(this.#capacity);
      grown.set(ids.subarray(0, this.rows));
      return grown;
    });
  }
}
