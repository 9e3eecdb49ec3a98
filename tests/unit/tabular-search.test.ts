/**
 * The mini-search's index answers as fuse.js does: the same rows in the same order as
 * `new Fuse(rows, { keys: columns, threshold: 0.15, ignoreLocation: true })`, on the real
 * fixtures; the cells it skips are cells fuse would not match.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Fuse from 'fuse.js';
import { describe, expect, it } from 'vitest';
import { ColumnStore, DICTIONARY_LIMIT } from '../../src/lib/tabular/columns.ts';
import { decodeText } from '../../src/lib/tabular/decode.ts';
import { cellScore, fuzzyPlan } from '../../src/lib/tabular/fuzzy.ts';
import { TableSearch, forEachValueContaining } from '../../src/lib/tabular/search.ts';
import { parseTable, type Table } from '../../src/lib/tabular/table.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const THRESHOLD = 0.15;
const FUSE_OPTIONS = { threshold: THRESHOLD, ignoreLocation: true };
const CSV = fixturePath('files/csv');

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

/** A typo: one character dropped, doubled, replaced, or two swapped. */
function typo(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  const kind = Math.floor(next() * 4);
  if (kind === 0) return text.slice(0, at) + text.slice(at + 1);
  if (kind === 1) return text.slice(0, at) + text[at] + text.slice(at);
  if (kind === 2) return `${text.slice(0, at)}x${text.slice(at + 1)}`;
  return text.slice(0, at) + (text[at + 1] ?? '') + (text[at] ?? '') + text.slice(at + 2);
}

async function fixture(name: string): Promise<Table> {
  const table = parseTable(decodeText(new Uint8Array(await fs.readFile(path.join(CSV, name)))).text);
  if (!table) throw new Error(name);
  return table;
}

function storeOf(table: Table): ColumnStore {
  const store = new ColumnStore(table.columns.length, 8);
  for (const row of table.rows) store.add(row);
  store.finish();
  return store;
}

const fuseOf = (table: Table) =>
  new Fuse(table.rows, {
    keys: table.columns.map((_, column) => ({ name: String(column), getFn: (row: string[]) => row[column] ?? '' })),
    ...FUSE_OPTIONS,
  });

/** Queries a reader would type: cells, parts of cells, cells with a typo, long cells. */
function queriesFrom(table: Table, count: number, seed: number): string[] {
  const next = random(seed);
  const queries: string[] = [];
  while (queries.length < count) {
    const row = table.rows[Math.floor(next() * table.rows.length)]!;
    let query = row[Math.floor(next() * row.length)]!;
    const roll = next();
    if (roll < 0.3 && query.length > 3) query = typo(query, next);
    else if (roll < 0.5 && query.length > 2) query = query.slice(Math.floor(next() * 2), 2 + Math.floor(next() * query.length));
    else if (roll < 0.6) query = `${query} ${row[(row.indexOf(query) + 1) % row.length]}`;
    if (query.trim()) queries.push(query);
  }
  return queries;
}

describe('one cell, as fuse.js scores it', () => {
  it('matches Fuse.match on random patterns and texts, with and without typos', () => {
    const next = random(7);
    const alphabet = 'abcdeñó 12AÑ';
    const word = (length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    for (let i = 0; i < 20_000; i += 1) {
      const text = word(1 + Math.floor(next() * 40));
      let pattern = next() < 0.6 ? text.slice(Math.floor(next() * text.length)).slice(0, 3 + Math.floor(next() * 40)) : word(1 + Math.floor(next() * 45));
      for (let edits = Math.floor(next() * 4); edits > 0 && pattern.length > 1; edits -= 1) pattern = typo(pattern, next);
      if (!pattern.trim()) continue;
      const expected = Fuse.match(pattern.trim(), text, FUSE_OPTIONS);
      const plan = fuzzyPlan(pattern, THRESHOLD);
      const score = cellScore(plan, text.toLowerCase());
      expect(score >= 0, `${pattern} in ${text}`).toBe(expected.isMatch);
      if (expected.isMatch) {
        expect(score, `${pattern} in ${text}`).toBe(expected.score);
        // A cell fuse matches holds one of the pattern's pieces unchanged: it is never skipped.
        const lower = text.toLowerCase();
        expect(lower === plan.pattern || plan.pieces.some((piece) => lower.includes(piece)), `${pattern} in ${text}`).toBe(true);
      }
    }
  });

  it('allows errors in proportion to the pattern, as threshold 0.15 does', () => {
    expect(fuzzyPlan('naco', THRESHOLD).chunks[0]?.maxErrors).toBe(0);
    expect(fuzzyPlan('santigo', THRESHOLD).chunks[0]?.maxErrors).toBe(1);
    expect(fuzzyPlan('santo domingo este', THRESHOLD).chunks[0]?.maxErrors).toBe(2);
    expect(fuzzyPlan('x'.repeat(70), THRESHOLD).chunks.map((chunk) => chunk.pattern.length)).toEqual([32, 32, 32]);
  });
});

describe('the index over a table', () => {
  it('keeps every cell of a file with more distinct values than its dictionaries hold', () => {
    const rows = Array.from({ length: DICTIONARY_LIMIT + 5000 }, (_, row) => [`Licencia ${row} RN`, ['Norte', 'Sur', 'Este'][row % 3]!, `İstanbul ${row % 7}`]);
    const store = new ColumnStore(3);
    for (const row of rows) store.add(row);
    store.finish();
    expect(store.rows).toBe(rows.length);
    for (const row of [0, 1, 4095, 4096, DICTIONARY_LIMIT - 1, DICTIONARY_LIMIT, rows.length - 1]) {
      expect([0, 1, 2].map((column) => store.cell(row, column))).toEqual(rows[row]);
    }
    const search = new TableSearch(store, THRESHOLD);
    // The exact licence first, then those one or two digits away (2 errors in 17 are allowed).
    const found = [...search.search('licencia 70001 rn', [0, 1, 2])];
    expect(found[0]).toBe(70_001);
    expect(found).toEqual(fuseOf({ columns: ['a', 'b', 'c'], rows }).search('licencia 70001 rn').map((hit) => hit.refIndex));
    // 'İ' lowercases to two characters: the values around it stay where they were.
    const table = { columns: ['a', 'b', 'c'], rows: rows.slice(0, 3000) };
    const small = storeOf(table);
    const expected = fuseOf(table).search('i̇stanbul 3').map((hit) => hit.refIndex);
    expect([...new TableSearch(small, THRESHOLD).search('i̇stanbul 3', [0, 1, 2])]).toEqual(expected);
  });

  it('skips only values fuse does not match: the pieces find every value fuse matches', async () => {
    const table = await fixture('licencias-construccion-mivhed-2022-2025.csv');
    const store = storeOf(table);
    for (const query of queriesFrom(table, 60, 11)) {
      const plan = fuzzyPlan(query, THRESHOLD);
      for (let column = 0; column < table.columns.length; column += 1) {
        const values = store.columns[column]!;
        const candidates = new Set<number>();
        for (const piece of [plan.pattern, ...plan.pieces]) forEachValueContaining(values, piece, (id) => candidates.add(id));
        for (let id = 0; id < values.count; id += 1) {
          const value = values.value(id);
          if (value.trim() && Fuse.match(query.trim(), value, FUSE_OPTIONS).isMatch) expect(candidates.has(id), `${query} / ${value}`).toBe(true);
        }
      }
    }
  });

  it.each([
    ['licencias-construccion-mivhed-2022-2025.csv', ['SANTIAGO', 'santo domingo este', 'apartamentso', 'urbanizacion', 'a', '2024', 'PUÑAL']],
    ['salario-minimo-hacienda-2000-2025.csv', ['Zona franca', 'Enero', 'Empresas del sector no sectorizado', 'Empresa grande', 'pequña']],
    ['empresas-servicios-turisticos-mitur-2018-2025.csv', ['Hoteles', 'Agencia de Viajes', 'Enero-Marzo', '0']],
  ])('ranks the rows of %s exactly as fuse.js does', async (name, fixed) => {
    const table = await fixture(name);
    const store = storeOf(table);
    const fuse = fuseOf(table);
    const search = new TableSearch(store, THRESHOLD);
    const columns = table.columns.map((_, index) => index);
    for (const query of [...fixed, ...queriesFrom(table, 80, name.length)]) {
      const expected = fuse.search(query.trim()).map((hit) => hit.refIndex);
      expect([...search.search(query, columns)], query).toEqual(expected);
    }
  });

  it('finds the e2e test’s 624 rows for "Zona franca"', async () => {
    const table = await fixture('salario-minimo-hacienda-2000-2025.csv');
    const search = new TableSearch(storeOf(table), THRESHOLD);
    expect(search.search('Zona franca', [0, 1, 2, 3, 4, 5])).toHaveLength(624);
  });
});
