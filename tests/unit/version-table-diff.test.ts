/**
 * What changed between two versions of a table (issue #19), on the real fixture files in their own
 * encodings and delimiters (UTF-8 with a BOM and commas, Windows-1252 with commas, code page 850
 * with semicolons), and on a real XLSX and ODS: the counts of every way of comparing (daff in the
 * worker thread, the keyed comparison in the worker, the keyed comparison streamed from the
 * store) equal an independent computation made here with papaparse.
 */
import fs from 'node:fs';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/lib/server/storage/index.ts';
import { KEYED_NOTE } from '../../src/lib/server/versions/keyed-comparison.ts';
import { compareTables, DEFAULT_TABLE_DIFF_BOUNDS, type TableChanges } from '../../src/lib/server/versions/table-diff.ts';
import { withoutEmptyUnnamedColumns } from '../../src/lib/server/versions/table-rows.ts';
import { createTestStore } from '../helpers/database.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { expectedChanges } from '../helpers/table-changes.ts';

const csvFixture = (name: string) => fs.readFileSync(fixturePath('files/csv', name));

/**
 * An edited copy of a CSV, byte for byte in its own encoding (edits are ASCII, made on the bytes
 * read as Latin-1): the column before the last renamed (an ASCII name in every fixture), the third field of two rows changed, one row
 * deleted, two rows added at the end (copies of others under a new first field).
 */
function edited(original: Buffer): Buffer {
  const text = original.toString('latin1');
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const delimiter = text.split(newline)[0]!.includes(';') ? ';' : ',';
  const lines = text.split(newline);
  const end = lines.at(-1) === '' ? lines.length - 1 : lines.length;
  const set = (line: number, field: number, value: (old: string) => string) => {
    const fields = lines[line]!.split(delimiter);
    fields[field] = value(fields[field]!);
    lines[line] = fields.join(delimiter);
  };
  set(0, lines[0]!.split(delimiter).length - 2, (name) => `${name}_nuevo`);
  set(5, 2, (value) => `${value}9`);
  set(9, 2, (value) => `${value}7`);
  const added = [3, 4].map((line) => [`Nueva fila ${line}`, ...lines[line]!.split(delimiter).slice(1)].join(delimiter));
  lines.splice(end, 0, ...added);
  lines.splice(12, 1);
  return Buffer.from(lines.join(newline), 'latin1');
}

const counts = ({ columnsAdded, columnsRemoved, rowsAdded, rowsRemoved, rowsChanged }: TableChanges) => ({
  columnsAdded,
  columnsRemoved,
  rowsAdded,
  rowsRemoved,
  rowsChanged,
});

let store: ContentStore;
let destroy: () => Promise<void>;
beforeAll(async () => {
  const blocks = await createTestStore();
  store = blocks.store;
  destroy = blocks.destroy;
});
afterAll(() => destroy?.());

async function stored(bytes: Uint8Array, type: 'csv' | 'xlsx' | 'ods') {
  const { cid } = await store.add([bytes]);
  return { cid, type };
}

async function changesOf(before: Uint8Array, after: Uint8Array, type: 'csv' | 'xlsx' | 'ods', bounds = DEFAULT_TABLE_DIFF_BOUNDS): Promise<TableChanges> {
  const comparison = await compareTables(store, await stored(before, type), await stored(after, type), { ...DEFAULT_TABLE_DIFF_BOUNDS, ...bounds });
  if (!comparison.compared) throw new Error(`not compared: ${comparison.note}`);
  return comparison.changes;
}

describe.each([
  ['empresas-servicios-turisticos-mitur-2018-2025.csv', 'utf-8'],
  ['empleos-cotizantes-tss-2003-2026.csv', 'windows-1252'],
  ['salario-minimo-hacienda-2000-2025.csv', 'latin1'],
])('comparing two versions of %s', (name, encoding) => {
  const before = csvFixture(name);
  const after = edited(before);
  // Code page 850 has no TextDecoder: Latin-1 reads its ASCII names and its rows' bytes alike in both versions.
  const expected = expectedChanges(new TextDecoder(encoding).decode(before), new TextDecoder(encoding).decode(after));

  it('counts what the independent computation counts, by daff, with a sample of the changed rows', async () => {
    expect(expected).toMatchObject({ rowsAdded: 2, rowsRemoved: 1, rowsChanged: 2 });
    expect(expected.columnsAdded).toHaveLength(1);
    const changes = await changesOf(before, after, 'csv');
    expect(counts(changes)).toEqual(expected);
    expect(changes.note).toBeUndefined();
    const [header, ...rows] = changes.sample;
    expect(header![0]).toBe('@@');
    expect(header).toContain(expected.columnsAdded[0]);
    expect(rows.map((row) => row[0]).sort()).toEqual(['+++', '+++', '---', '->', '->']);
    // A changed cell reads "before->after".
    expect(rows.filter((row) => row[0] === '->').every((row) => row.some((cell) => /^.+->.+$/.test(cell)))).toBe(true);
  });

  it('counts the same by the keyed comparison, in the worker and streamed from the store', async () => {
    const keyed = await changesOf(before, after, 'csv', { ...DEFAULT_TABLE_DIFF_BOUNDS, maxDaffRows: 5 });
    expect(counts(keyed)).toEqual(expected);
    expect(keyed.note).toBe(KEYED_NOTE);
    const streamed = await changesOf(before, after, 'csv', { ...DEFAULT_TABLE_DIFF_BOUNDS, maxDaffBytes: 100 });
    expect(counts(streamed)).toEqual(expected);
    expect(streamed.sample.slice(1).map((row) => row[0]).sort()).toEqual(['+++', '+++', '->', '->']);
  });
});

it("shows no column for the Hacienda CSV's trailing «;», which no header names and no row fills", async () => {
  const before = csvFixture('salario-minimo-hacienda-2000-2025.csv');
  const { sample } = await changesOf(before, edited(before), 'csv');
  const unnamed = sample[0]!.filter((name) => /^Columna \d+$/.test(name));
  // What the comparison keeps (the stored diff), and what the record page shows of it.
  expect(unnamed).toHaveLength(1);
  const shown = withoutEmptyUnnamedColumns(sample);
  expect(shown[0]).toEqual(sample[0]!.filter((name) => !unnamed.includes(name)));
  expect(shown.every((row) => row.length === shown[0]!.length)).toBe(true);
  // A blank-headed column a row does fill stays.
  expect(withoutEmptyUnnamedColumns([['@@', 'a', 'Columna 3'], ['+++', '1', 'x']])).toEqual([['@@', 'a', 'Columna 3'], ['+++', '1', 'x']]);
});

it('says why the rows were not compared past the largest table', async () => {
  const before = csvFixture('empresas-servicios-turisticos-mitur-2018-2025.csv');
  const comparison = await compareTables(store, await stored(before, 'csv'), await stored(edited(before), 'csv'), {
    ...DEFAULT_TABLE_DIFF_BOUNDS,
    maxTableBytes: 1_000,
  });
  expect(comparison).toEqual({ compared: false, note: expect.stringMatching(/^Tabla de .*: demasiado grande para comparar sus filas/) });
});

it('keeps a bounded quote of the file: long cells cut, at most 50 column names', async () => {
  const wide = (suffix: string, value: string) => {
    const names = Array.from({ length: 80 }, (_, column) => `columna_${suffix}_${column}`);
    return new TextEncoder().encode(`clave,${names.join(',')}\nfila,${names.map(() => value).join(',')}\n`);
  };
  const comparison = await compareTables(store, await stored(wide('a', 'x'.repeat(1_000)), 'csv'), await stored(wide('b', 'y'.repeat(1_000)), 'csv'));
  expect(comparison.compared).toBe(true);
  if (!comparison.compared) return;
  expect(comparison.changes.columnsAdded).toHaveLength(50);
  expect(comparison.changes.columnsRemoved).toHaveLength(50);
  for (const row of comparison.changes.sample) for (const cell of row) expect(cell.length).toBeLessThanOrEqual(200);
});

describe.each([
  ['cnss-recaudos-sfs-2003-2023.xlsx', 'xlsx'],
  ['cnss-recaudos-sfs-2003-2023.ods', 'ods'],
] as const)('comparing two versions of %s', (name, type) => {
  it('compares the first sheet: one number changed is one row changed', async () => {
    const before = fs.readFileSync(fixturePath('files/spreadsheets', name));
    const entries = unzipSync(before);
    const sheetPart = type === 'xlsx' ? Object.keys(entries).filter((part) => /^xl\/worksheets\/sheet\d+\.xml$/.test(part)).sort()[0]! : 'content.xml';
    const xml = strFromU8(entries[sheetPart]!);
    // The first number in the sheet that is not a year (a cell of its own, not a shared string), changed to one no cell holds.
    const match =
      type === 'xlsx'
        ? /(<c r="[A-Z]+\d+"(?: s="\d+")?><v>)(\d+\.\d+)(<\/v>)/.exec(xml)
        : /(office:value-type="float" office:value=")(\d+\.\d+)("[^>]*><text:p>)[^<]*(?=<)/.exec(xml);
    expect(match).not.toBeNull();
    const replacement = type === 'xlsx' ? `${match![1]}987654321${match![3]}` : `${match![1]}987654321${match![3]}987654321`;
    const changedXml = xml.slice(0, match!.index) + replacement + xml.slice(match!.index + match![0].length);
    const after = zipSync({ ...entries, [sheetPart]: strToU8(changedXml) });
    const changes = await changesOf(new Uint8Array(before), after, type);
    expect(counts(changes)).toEqual({ columnsAdded: [], columnsRemoved: [], rowsAdded: 0, rowsRemoved: 0, rowsChanged: 1 });
    expect(changes.note).toMatch(/^Se comparó la primera hoja \(«.+»\)/);
    expect(changes.sample.flat().some((cell) => cell.includes('987654321') || cell.includes('987.654.321') || cell.includes('987,654,321'))).toBe(true);
  });
});
