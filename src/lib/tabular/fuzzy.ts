/**
 * fuse.js 7's scoring of one cell, reproduced so that a search over 300,000 rows can score only
 * the cells that could match and still rank them exactly as `new Fuse(rows, { keys: columns,
 * threshold, ignoreLocation: true }).search(query)` would (tests/unit/tabular-search.test.ts
 * compares the two). What fuse does, with those options:
 *
 * - pattern and cell are lowercased; a cell equal to the pattern scores 0;
 * - otherwise the pattern is cut into chunks of at most 32 characters (the last one overlapping),
 *   and each chunk is looked for with the Bitap algorithm of diff-match-patch: the chunk matches
 *   with `e` errors (insertions, deletions, substitutions) if some stretch of the cell is within
 *   `e` edits of it; with `ignoreLocation` the chunk's score is `e / length` (at least 0.001), and
 *   it matches when that is at most the threshold. The cell matches when any chunk does; its
 *   score is the mean over the chunks, a chunk that does not match counting 1;
 * - a row's score multiplies, over the columns whose cell matches, `score ^ (weight * norm)`,
 *   with weight `1 / columns`, norm `1 / sqrt(words in the cell)` to 3 decimals, and 0 replaced by
 *   `Number.EPSILON`; rows sort by score, then by position.
 *
 * Which cells can match at all is decided by exact substring search: a stretch within `e` edits of
 * a chunk contains, unchanged, one of any `e + 1` disjoint pieces of it (each edit spoils at most
 * one piece), so the cells holding none of the pieces are skipped.
 */

/** fuse.js's longest Bitap pattern. */
const MAX_BITS = 32;

export interface Chunk {
  pattern: string;
  /** The most errors a match may have: `errors / length <= threshold`. */
  maxErrors: number;
  /** Disjoint pieces, one of which any match contains unchanged. */
  pieces: string[];
}

export interface FuzzyPlan {
  /** The query, trimmed and lowercased. */
  pattern: string;
  chunks: Chunk[];
  /** Every distinct piece of every chunk: the substrings a candidate cell must contain one of. */
  pieces: string[];
}

function splitEvenly(text: string, parts: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < parts; index += 1) {
    pieces.push(text.slice(Math.floor((index * text.length) / parts), Math.floor(((index + 1) * text.length) / parts)));
  }
  return pieces;
}

export function fuzzyPlan(query: string, threshold: number): FuzzyPlan {
  const pattern = query.trim().toLowerCase();
  const patterns: string[] = [];
  if (pattern.length > MAX_BITS) {
    const remainder = pattern.length % MAX_BITS;
    for (let at = 0; at < pattern.length - remainder; at += MAX_BITS) patterns.push(pattern.slice(at, at + MAX_BITS));
    if (remainder) patterns.push(pattern.slice(pattern.length - MAX_BITS));
  } else if (pattern) {
    patterns.push(pattern);
  }
  const chunks = patterns.map((chunk) => {
    let maxErrors = 0;
    while ((maxErrors + 1) / chunk.length <= threshold) maxErrors += 1;
    return { pattern: chunk, maxErrors, pieces: splitEvenly(chunk, maxErrors + 1) };
  });
  return { pattern, chunks, pieces: [...new Set(chunks.flatMap((chunk) => chunk.pieces))] };
}

// Bitap's working rows and the pattern's character masks, reused from call to call.
let previous = new Int32Array(256);
let current = new Int32Array(256);
const masks = new Int32Array(65536);

/**
 * The fewest errors (0 to `maxErrors`) with which `pattern` matches within `text[start, end)`, as
 * fuse.js's Bitap finds them, or -1. A port of fuse.js's `search` (src/search/bitap/search.ts)
 * for `ignoreLocation: true`, without the match indices it does not need here.
 */
export function bitapErrors(text: string, start: number, end: number, pattern: string, maxErrors: number): number {
  const patternLength = pattern.length;
  const textLength = end - start;
  const finish = textLength + patternLength;
  if (previous.length < finish + 2) {
    previous = new Int32Array((finish + 2) * 2);
    current = new Int32Array((finish + 2) * 2);
  }
  for (let i = 0; i < patternLength; i += 1) masks[pattern.charCodeAt(i)]! |= 1 << (patternLength - i - 1);
  const mask = 1 << (patternLength - 1);
  try {
    for (let errors = 0; errors <= maxErrors; errors += 1) {
      const bits = current;
      const last = previous;
      bits[finish + 1] = (1 << errors) - 1;
      for (let j = finish; j >= 1; j -= 1) {
        const at = j - 1;
        const charMatch = at < textLength ? masks[text.charCodeAt(start + at)]! : 0;
        let value = ((bits[j + 1]! << 1) | 1) & charMatch;
        if (errors) value |= ((last[j + 1]! | last[j]!) << 1) | 1 | last[j + 1]!;
        bits[j] = value;
        if (value & mask) return errors;
      }
      current = last;
      previous = bits;
    }
    return -1;
  } finally {
    for (let i = 0; i < patternLength; i += 1) masks[pattern.charCodeAt(i)] = 0;
  }
}

/**
 * fuse.js's score for one lowercased cell (`BitapSearch.searchIn`): 0 for the pattern itself,
 * else the mean of the chunks' scores; -1 when it does not match.
 */
export function cellScore(plan: FuzzyPlan, text: string): number {
  if (text === plan.pattern) return 0;
  let total = 0;
  let matched = false;
  for (const chunk of plan.chunks) {
    let score = 1;
    if (text.includes(chunk.pattern)) {
      score = 0.001;
      matched = true;
    } else if (chunk.maxErrors > 0) {
      const errors = bitapErrors(text, 0, text.length, chunk.pattern, chunk.maxErrors);
      if (errors >= 0) {
        score = Math.max(0.001, errors / chunk.pattern.length);
        matched = true;
      }
    }
    total += score;
  }
  return matched ? total / plan.chunks.length : -1;
}

const normByWords = new Map<number, number>();

/** fuse.js's field-length norm of a cell (`src/tools/fieldNorm.ts`, weight 1, 3 decimals). */
export function fieldNorm(text: string, start: number, end: number): number {
  let words = 0;
  let inWord = false;
  for (let i = start; i < end; i += 1) {
    const code = text.charCodeAt(i);
    if ((code >= 9 && code <= 13) || code === 32 || code === 160) inWord = false;
    else if (!inWord) {
      words += 1;
      inWord = true;
    }
  }
  if (words === 0) words = 1;
  let norm = normByWords.get(words);
  if (norm === undefined) {
    norm = Math.round(1000 / Math.pow(words, 0.5)) / 1000;
    normByWords.set(words, norm);
  }
  return norm;
}

/** A matching cell's factor in its row's score (fuse.js's `computeScoreSingle`). */
export const cellFactor = (score: number, weight: number, norm: number) => Math.pow(score === 0 ? Number.EPSILON : score, weight * norm);
