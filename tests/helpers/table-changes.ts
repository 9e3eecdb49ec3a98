/**
 * What changed between two versions of a table, computed independently of the archive's code for
 * its tests (issue #19): papaparse reads the rows. See `expectedChanges`.
 */
import Papa from 'papaparse';

export interface ExpectedChanges {
  columnsAdded: string[];
  columnsRemoved: string[];
  rowsAdded: number;
  rowsRemoved: number;
  rowsChanged: number;
}

/**
 * The changes by an independent computation: papaparse's rows (blank ones skipped), the columns
 * by their trimmed names, each row reduced to the columns both versions share; rows found in both
 * (as many times as they occur) are unchanged, and the others are paired by the value of the first
 * shared column: a pair is a changed row, the rest added or removed.
 */
export function expectedChanges(before: string, after: string): ExpectedChanges {
  const parse = (text: string) => Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' }).data;
  const [beforeHeader, ...beforeRows] = parse(before);
  const [afterHeader, ...afterRows] = parse(after);
  const beforeNames = beforeHeader!.map((name) => name.trim());
  const afterNames = afterHeader!.map((name) => name.trim());
  const shared = afterNames.filter((name) => beforeNames.includes(name));
  const project = (row: string[], names: string[]) => shared.map((name) => row[names.indexOf(name)] ?? '');
  const unmatched = new Map<string, string[][]>();
  for (const row of beforeRows) {
    const key = JSON.stringify(project(row, beforeNames));
    unmatched.set(key, [...(unmatched.get(key) ?? []), row]);
  }
  const addedRows: string[][] = [];
  for (const row of afterRows) {
    const key = JSON.stringify(project(row, afterNames));
    const same = unmatched.get(key);
    if (same?.length) same.pop();
    else addedRows.push(project(row, afterNames));
  }
  const removedKeys = [...unmatched.values()].flat().map((row) => project(row, beforeNames)[0]);
  let changed = 0;
  for (const row of addedRows) {
    const at = removedKeys.indexOf(row[0]);
    if (at !== -1) {
      removedKeys.splice(at, 1);
      changed += 1;
    }
  }
  return {
    columnsAdded: afterNames.filter((name) => !beforeNames.includes(name)),
    columnsRemoved: beforeNames.filter((name) => !afterNames.includes(name)),
    rowsAdded: addedRows.length - changed,
    rowsRemoved: removedKeys.length,
    rowsChanged: changed,
  };
}

/**
 * The fixture of the tourism licences (`files/csv/empresas-servicios-turisticos-mitur-2018-2025.csv`)
 * as its publisher might edit it: a column renamed, one row changed, two rows added. The tests of
 * versions serve it as the file's second version.
 */
export function editedTourismLicences(original: Buffer): Buffer {
  const lines = original.toString('utf8').split(/\r?\n/);
  lines[0] = lines[0]!.replace('Renovacion', 'Renovaciones');
  lines[1] = lines[1]!.replace('Agencia de Viajes,9,11', 'Agencia de Viajes,90,11');
  const end = lines.at(-1) === '' ? lines.length - 1 : lines.length;
  lines.splice(end, 0, 'Hoteles,1,2,0,0,Octubre-Diciembre,2026', 'Gift Shop,3,4,0,0,Octubre-Diciembre,2026');
  return Buffer.from(lines.join('\n'));
}
