import { describe, expect, it } from 'vitest';
import { ASSET_STATUS_VALUES, ASSET_TYPES, ASSET_TYPE_VALUES } from '../../src/lib/domain/constants.ts';
import { formatFromFileName, normalizeFormat, normalizeFormats, primaryFormat } from '../../src/lib/domain/formats.ts';
import { openApiDocument } from '../../src/lib/server/api/openapi.ts';
import { strapiAlexandriasParams } from '../../src/lib/server/api/params.ts';
import { downloadName, mediaType, type ContentKind } from '../../src/lib/server/content-type.ts';
import { fileTypeIri, mediaTypeIri } from '../../src/lib/server/dcat/vocabularies.ts';

/** The formats with a media type of their own: all but `other`. */
const KNOWN = ASSET_TYPE_VALUES.filter((type) => type !== 'other');

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

describe('the one format vocabulary', () => {
  it('gives every format but other its IANA media type, extension and EU file type', () => {
    const facts = Object.fromEntries(
      ASSET_TYPE_VALUES.map((type) => [type, [ASSET_TYPES[type].mediaType, ASSET_TYPES[type].extensions[0] ?? null, ASSET_TYPES[type].euFileType]]),
    );
    expect(facts).toEqual({
      pdf: ['application/pdf', 'pdf', 'PDF'],
      csv: ['text/csv', 'csv', 'CSV'],
      xls: ['application/vnd.ms-excel', 'xls', 'XLS'],
      xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx', 'XLSX'],
      ods: ['application/vnd.oasis.opendocument.spreadsheet', 'ods', 'ODS'],
      other: [null, null, null],
    });
  });

  it('reads each format by its own name, and a file by its usual extension', () => {
    for (const type of KNOWN) {
      expect(normalizeFormat(type.toUpperCase())).toBe(type);
      expect(formatFromFileName(`datos.${ASSET_TYPES[type].extensions[0]}`)).toBe(type);
    }
  });

  it.each(KNOWN)('is what DCAT says of a %s file that came without a media type', (type) => {
    expect(mediaTypeIri(null, type)).toBe(`http://www.iana.org/assignments/media-types/${ASSET_TYPES[type].mediaType}`);
    expect(fileTypeIri(type)).toBe(`http://publications.europa.eu/resource/authority/file-type/${ASSET_TYPES[type].euFileType}`);
  });

  it('leaves DCAT without a media type or file type for other', () => {
    expect(mediaTypeIri(null, 'other')).toBeUndefined();
    expect(fileTypeIri('other')).toBeUndefined();
  });

  it.each(KNOWN)('is the type a %s document is served as, and a download named after', (type) => {
    // A CSV's content is plain text: only its declared format makes it a CSV.
    const kind: ContentKind = type === 'csv' ? 'text' : type;
    const served = mediaType(kind, type);
    expect(served).toBe(ASSET_TYPES[type].mediaType);
    expect(downloadName('datos', served)).toBe(`datos.${ASSET_TYPES[type].extensions[0]}`);
    for (const extension of ASSET_TYPES[type].extensions) expect(downloadName(`datos.${extension}`, served)).toBe(`datos.${extension}`);
  });

  it('is what the REST API accepts and documents as a type, as are the statuses', () => {
    expect(strapiAlexandriasParams.shape.type.unwrap().options).toEqual(ASSET_TYPE_VALUES);
    expect(strapiAlexandriasParams.shape.status.unwrap().options).toEqual(ASSET_STATUS_VALUES);
    const parameters = openApiDocument('https://archivo.test').paths['/alexandrias'].get.parameters;
    const schemaOf = (name: string) => parameters.find((parameter) => parameter.name === name)?.schema;
    expect(schemaOf('type')).toMatchObject({ enum: ASSET_TYPE_VALUES });
    expect(schemaOf('status')).toMatchObject({ enum: ASSET_STATUS_VALUES });
    expect(strapiAlexandriasParams.safeParse({ type: 'docx' }).success).toBe(false);
    for (const type of ASSET_TYPE_VALUES) expect(strapiAlexandriasParams.parse({ type }).type).toBe(type);
  });
});
