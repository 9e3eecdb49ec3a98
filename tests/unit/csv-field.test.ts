/**
 * One CSV field as the archive writes them (`tabular/csv-field.ts`), for the exports and the sheets
 * taken out of spreadsheets: formula starts defused, numbers left alone, quoting as RFC 4180.
 */
import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/lib/tabular/csv-field.ts';

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
