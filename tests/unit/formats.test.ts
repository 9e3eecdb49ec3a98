import { describe, expect, it } from 'vitest';
import { formatFromFileName, normalizeFormat, normalizeFormats, primaryFormat } from '../../src/lib/domain/formats.ts';

describe('normalizeFormat', () => {
  it.each([
    ['CSV', 'csv'],
    ['CVS', 'csv'],
    ['csv', 'csv'],
    [' .csv ', 'csv'],
    ['XLSX', 'xlsx'],
    ['XLXS', 'xlsx'],
    ['XLS', 'xls'],
    ['EXC', 'xls'],
    ['ODS', 'ods'],
    ['OSD', 'ods'],
    ['ODS.XLS', 'ods'],
    ['PDF', 'pdf'],
    ['XML', 'other'],
    ['JSON', 'other'],
    ['TXT', 'other'],
    ['', 'other'],
  ] as const)('%j is %s', (label, expected) => {
    expect(normalizeFormat(label)).toBe(expected);
  });

  it('treats missing labels as other', () => {
    expect(normalizeFormat(undefined)).toBe('other');
    expect(normalizeFormat(null)).toBe('other');
  });
});

describe('a dataset offered in several formats', () => {
  it('keeps each distinct format once, most reusable first', () => {
    expect(normalizeFormats(['XLSX', 'ODS', 'CVS', 'CSV'])).toEqual(['csv', 'xlsx', 'ods']);
  });

  it('is represented by its most reusable format', () => {
    expect(primaryFormat(['ODS', 'XLXS'])).toBe('xlsx');
    expect(primaryFormat(['JSON', 'PDF'])).toBe('pdf');
    expect(primaryFormat(['XML'])).toBe('other');
  });

  it('with no format at all is other', () => {
    expect(primaryFormat([])).toBe('other');
    expect(normalizeFormats([])).toEqual([]);
  });
});

describe('formatFromFileName', () => {
  it('reads the extension', () => {
    expect(formatFromFileName('cnss-recaudos-sfs-2003-2023.ods')).toBe('ods');
    expect(formatFromFileName('one-companias-aseguradoras-1995-2022.xls')).toBe('xls');
    expect(formatFromFileName('Informe.PDF')).toBe('pdf');
    expect(formatFromFileName('sin-extension')).toBe('other');
  });
});
