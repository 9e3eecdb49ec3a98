/**
 * One CSV field as the archive writes them (`tabular/csv-field.ts`), for the exports and the sheets
 * taken out of spreadsheets: formula starts defused, numbers left alone, quoting as RFC 4180; and
 * the defusing taken back exactly for the archive's own pages.
 */
import { describe, expect, it } from 'vitest';
import { csvField, undefusedField } from '../../src/lib/tabular/csv-field.ts';
import { CsvParser } from '../../src/lib/tabular/csv.ts';

describe('csvField', () => {
  it('defuses what a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("http://malo.example","x")')).toBe('"\'=HYPERLINK(""http://malo.example"",""x"")"');
    expect(['+cmd', '-2+3', '@SUM(A1)', '\tx', '=1'].map(csvField)).toEqual(["'+cmd", "'-2+3", "'@SUM(A1)", "'\tx", "'=1"]);
    expect(csvField('\rx')).toBe('"\'\rx"');
  });

  it('leaves numbers, written as numbers or as text, and ordinary text as they are', () => {
    expect(['-2.5', '+1e3', '-17', '.5', '2024'].map(csvField)).toEqual(['-2.5', '+1e3', '-17', '.5', '2024']);
    expect(csvField(-3)).toBe('-3');
    expect(csvField(null)).toBe('');
    expect(csvField('Año 2024; «total»')).toBe('Año 2024; «total»');
    expect(csvField('a,b')).toBe('"a,b"');
  });
});

describe('undefusedField', () => {
  /** A row written with csvField and read back as the record page's search reads it. */
  function roundTrip(values: string[]): string[] {
    const rows: string[][] = [];
    const parser = new CsvParser({ delimiter: ',', newline: '\n' });
    parser.push(`${values.map(csvField).join(',')}\n`, (fields) => rows.push(fields));
    parser.end((fields) => rows.push(fields));
    return rows[0]!.map(undefusedField);
  }

  it('gives back every value as the spreadsheet had it, apostrophes of its own included', () => {
    const values = ['-', '- ', '=SUM(A1:A3)', '+1 809', '@usuario', '\tx', "'=ya citado", "''+dos", "'texto", "'-5", '-5', '+1e3', 'Año', ''];
    expect(roundTrip(values)).toEqual(values);
  });

  it('leaves a CSV it did not defuse alone, but for a formula start behind one apostrophe', () => {
    expect(["'abc", "'-5", 'x', "''"].map(undefusedField)).toEqual(["'abc", "'-5", 'x', "''"]);
    expect(undefusedField("'-")).toBe('-');
  });
});
