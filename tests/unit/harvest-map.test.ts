/**
 * The mapping of a catalogue's dataset to records (lib/server/harvest/map.ts) and the keys that
 * find a publisher again: one record per distribution, told apart by name or format when there
 * are several, identified by the distribution's own identifier first; themes to categories by the
 * source's map, then by our categories' titles, then the default.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogDataset, CatalogDistribution } from '../../src/lib/server/harvest/catalogs/index.ts';
import { chooseCategory, mapDataset } from '../../src/lib/server/harvest/map.ts';
import { intervalLabel } from '../../src/lib/server/harvest/manage.ts';
import { websiteKey } from '../../src/lib/server/harvest/publishers.ts';
import { cleanText, MAX_TEXT_CHARS } from '../../src/lib/server/harvest/catalogs/values.ts';
import { nameKey } from '../../src/lib/server/seed/catalog.ts';
import { FIELD_MAX } from '../../src/lib/domain/upload.ts';

const distribution = (overrides: Partial<CatalogDistribution>): CatalogDistribution => ({
  identifier: null,
  url: null,
  accessUrl: null,
  title: null,
  format: null,
  mediaType: null,
  byteSize: null,
  checksum: null,
  ...overrides,
});

const dataset = (distributions: CatalogDistribution[]): CatalogDataset => ({
  identifier: 'conjunto-1',
  landingPage: 'https://datos.example.org/dataset/conjunto-1',
  title: 'Nómina 2024',
  description: 'Pagos del personal.',
  issued: null,
  modified: null,
  license: null,
  keywords: [],
  languages: [],
  spatial: [],
  updateFrequency: null,
  contact: null,
  temporal: null,
  publisher: null,
  themes: [],
  distributions,
});

describe('mapDataset', () => {
  it('keeps a service the catalogue offers (an API) as the record\'s API, with no file to capture', () => {
    const records = mapDataset(
      dataset([
        distribution({ identifier: 'r1', url: 'https://datos.example.org/nomina.csv', format: 'CSV' }),
        distribution({ identifier: 'r2', url: 'https://mapas.example.org/arcgis/rest/services/Nomina/MapServer', title: 'Geoservicio', format: 'Geoservice', apiHint: true }),
        distribution({ identifier: 'r3', url: 'https://datos.example.org/api/3/action/datastore_search?resource_id=r1', title: 'Consulta', format: 'API' }),
        // CKAN's «api» type and no format at all: a link to an API.
        distribution({ identifier: 'r4', url: 'https://datos.example.org/api/nomina', title: 'Servicio', apiHint: true }),
      ]),
    );
    expect(records.map(({ distributionKey, url, apiEndpoint }) => ({ distributionKey, url, apiEndpoint }))).toEqual([
      { distributionKey: 'r1', url: 'https://datos.example.org/nomina.csv', apiEndpoint: null },
      { distributionKey: 'r2', url: null, apiEndpoint: 'https://mapas.example.org/arcgis/rest/services/Nomina/MapServer' },
      { distributionKey: 'r3', url: null, apiEndpoint: 'https://datos.example.org/api/3/action/datastore_search?resource_id=r1' },
      { distributionKey: 'r4', url: null, apiEndpoint: 'https://datos.example.org/api/nomina' },
    ]);
    // A dataset of services only keeps a record for each, as it had before they were told apart.
    const services = mapDataset(
      dataset([
        distribution({ identifier: 's1', url: 'https://mapas.example.org/wms', format: 'WMS' }),
        distribution({ identifier: 's2', url: 'https://mapas.example.org/wfs', format: 'WFS' }),
      ]),
    );
    expect(services.map(({ distributionKey, url, apiEndpoint, declaredFormat }) => ({ distributionKey, url, apiEndpoint, declaredFormat }))).toEqual([
      { distributionKey: 's1', url: null, apiEndpoint: 'https://mapas.example.org/wms', declaredFormat: 'WMS' },
      { distributionKey: 's2', url: null, apiEndpoint: 'https://mapas.example.org/wfs', declaredFormat: 'WFS' },
    ]);
  });

  it('captures a linked file HDX marks as «api» when its format, media type or extension is a document\'s', () => {
    const records = mapDataset(
      dataset([
        distribution({ identifier: 'h1', url: 'https://data.humdata.org/dataset/x/resource/y/download/pob.csv', format: 'CSV', apiHint: true }),
        distribution({ identifier: 'h2', url: 'https://example.org/limites.geojson', format: 'GeoJSON', apiHint: true }),
        distribution({ identifier: 'h3', url: 'https://example.org/descarga?id=7', mediaType: 'application/zip', apiHint: true }),
        distribution({ identifier: 'h4', url: 'https://example.org/archivos/limites.zip', apiHint: true }),
      ]),
    );
    expect(records.map(({ url, apiEndpoint }) => ({ captured: url !== null, apiEndpoint }))).toEqual(Array(4).fill({ captured: true, apiEndpoint: null }));
  });

  it('makes one record of a dataset with one file, titled as the dataset, with what the catalogue declared', () => {
    const [record, ...rest] = mapDataset(
      dataset([
        distribution({
          identifier: 'r1',
          url: 'https://datos.example.org/nomina.csv',
          title: 'Nómina 2024',
          format: ' csv ',
          byteSize: 10,
          checksum: { algorithm: 'sha256', value: 'ab'.repeat(32) },
        }),
      ]),
    );
    expect(rest).toEqual([]);
    expect(record).toEqual({
      distributionKey: 'r1',
      url: 'https://datos.example.org/nomina.csv',
      apiEndpoint: null,
      title: 'Nómina 2024',
      description: 'Pagos del personal.',
      sourceUrl: 'https://datos.example.org/dataset/conjunto-1',
      type: 'csv',
      formats: ['csv'],
      declaredFormat: ' csv ',
      declaredSize: 10,
      declaredChecksum: `sha256:${'ab'.repeat(32)}`,
      issued: null,
      modified: null,
      licenseTitle: null,
      licenseUrl: null,
      keywords: [],
      updateFrequency: null,
      contactName: null,
      contactEmail: null,
      temporalStart: null,
      temporalEnd: null,
      temporalText: null,
      languages: [],
      spatial: [],
      saidBy: { languages: null, spatial: null },
    });
  });

  it("gives a dataset that declares no language or area its source's, and keeps its own declaration first", () => {
    const EU = 'http://publications.europa.eu/resource/authority';
    const defaults = { language: `${EU}/language/SPA`, country: `${EU}/country/DOM` };
    const [silent] = mapDataset(dataset([distribution({ url: 'https://x.org/a.csv', format: 'CSV' })]), defaults);
    expect(silent).toMatchObject({ languages: [defaults.language], spatial: [defaults.country], saidBy: { languages: 'source', spatial: 'source' } });
    const [own] = mapDataset({ ...dataset([distribution({ url: 'https://x.org/a.csv', format: 'CSV' })]), languages: [`${EU}/language/ENG`] }, defaults);
    expect(own).toMatchObject({ languages: [`${EU}/language/ENG`], spatial: [defaults.country], saidBy: { languages: 'catalogue', spatial: 'source' } });
  });

  it('keeps what a researcher cites: the dataset\'s dates, licence and keywords, bounded', () => {
    const issued = new Date('2017-10-19T16:35:41Z');
    const [record] = mapDataset({
      ...dataset([distribution({ url: 'https://x.org/a.csv', format: 'CSV' })]),
      issued,
      modified: null,
      license: { title: 'Open Data Commons Open Database License (ODbL)', url: 'http://www.opendefinition.org/licenses/odc-odbl' },
      keywords: ['Nómina', 'x'.repeat(500), `${'y'.repeat(99)}📊📊`, ...Array.from({ length: 80 }, (_, n) => `etiqueta ${n}`)],
    });
    expect(record).toMatchObject({ issued, licenseTitle: 'Open Data Commons Open Database License (ODbL)', licenseUrl: 'http://www.opendefinition.org/licenses/odc-odbl' });
    expect(record!.keywords).toHaveLength(50);
    expect(record!.keywords[0]).toBe('Nómina');
    expect(record!.keywords[1]).toHaveLength(100);
    // Cut at 100 characters, not inside the emoji (half of one is text no database stores).
    expect(record!.keywords[2]).toBe(`${'y'.repeat(99)}📊`);
  });

  it('gives every record of a dataset its update frequency, contact and temporal coverage, words bounded', () => {
    const records = mapDataset({
      ...dataset([
        distribution({ identifier: 'a', url: 'https://x.org/a.csv', format: 'CSV' }),
        distribution({ identifier: 'b', url: 'https://x.org/a.ods', format: 'ODS' }),
      ]),
      updateFrequency: 'http://publications.europa.eu/resource/authority/frequency/MONTHLY',
      contact: { name: 'Oficina de Acceso a la Información', email: 'datosabiertos@dragas.mil.do' },
      temporal: { start: '2017-01-01', end: '2026-06-30', text: null },
    });
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record).toMatchObject({
        updateFrequency: 'http://publications.europa.eu/resource/authority/frequency/MONTHLY',
        contactName: 'Oficina de Acceso a la Información',
        contactEmail: 'datosabiertos@dragas.mil.do',
        temporalStart: '2017-01-01',
        temporalEnd: '2026-06-30',
        temporalText: null,
      });
    }
    // A dataset without a file keeps them too; a 10,000-character "frequency" is cut.
    const [described] = mapDataset({
      ...dataset([]),
      updateFrequency: 'ñ'.repeat(10_000),
      contact: { name: null, email: 'conaleche@conaleche.gob.do' },
      temporal: { start: null, end: null, text: `Desde ${'x'.repeat(5000)}` },
    });
    expect(described!.url).toBeNull();
    expect(Array.from(described!.updateFrequency!)).toHaveLength(300);
    expect(described!.contactName).toBeNull();
    expect(described!.contactEmail).toBe('conaleche@conaleche.gob.do');
    expect(described!.temporalText).toHaveLength(300);
    expect(described!.temporalStart).toBeNull();
  });

  it('tells apart the files of one table published in several formats under one title', () => {
    const records = mapDataset(
      dataset([
        distribution({ identifier: 'a', url: 'https://x.org/2019.csv', title: 'Nómina 2019', format: 'CSV' }),
        distribution({ identifier: 'b', url: 'https://x.org/2019.ods', title: 'Nómina 2019', format: 'ODS' }),
        distribution({ identifier: 'c', url: 'https://x.org/2019.xlsx', title: 'Nómina 2019', format: 'XLSX' }),
        distribution({ identifier: 'd', url: 'https://x.org/2018.csv', title: 'Nómina 2018', format: 'CSV' }),
        distribution({ identifier: 'e', url: 'https://x.org/2018b.csv', title: 'Nómina 2018', format: 'CSV' }),
      ]),
    );
    expect(records.map((record) => record.title)).toEqual([
      'Nómina 2024: Nómina 2019 (CSV)',
      'Nómina 2024: Nómina 2019 (ODS)',
      'Nómina 2024: Nómina 2019 (XLSX)',
      'Nómina 2024: Nómina 2018 (CSV) (4)',
      'Nómina 2024: Nómina 2018 (CSV) (5)',
    ]);
  });

  it("holds a title to an upload's 300 characters, cutting the dataset's title and keeping what tells its files apart", () => {
    const long = { ...dataset([distribution({ identifier: 'a', url: 'https://x.org/a.csv', format: 'CSV' })]), title: 'T'.repeat(5000) };
    const [single] = mapDataset(long);
    expect(single!.title).toHaveLength(FIELD_MAX.title);
    expect(single!.title).toBe(`${'T'.repeat(FIELD_MAX.title - 1)}…`);
    // An emoji is never split in two.
    const [emoji] = mapDataset({ ...long, title: `${'a'.repeat(298)}😀😀` });
    expect(emoji!.title).toBe(`${'a'.repeat(298)}…`);
    const records = mapDataset({
      ...long,
      distributions: [
        distribution({ identifier: 'a', url: 'https://x.org/a.csv', title: 'N'.repeat(5000), format: 'CSV' }),
        distribution({ identifier: 'b', url: 'https://x.org/b.ods', title: 'N'.repeat(5000), format: 'F'.repeat(5000) }),
      ],
    });
    const names = records.map((record) => record.title);
    for (const title of names) expect(title.length).toBeLessThanOrEqual(FIELD_MAX.title);
    // The dataset's title keeps its first hundred characters; the names give way, never what tells them apart.
    expect(names[0]).toBe(`${'T'.repeat(99)}…: ${'N'.repeat(191)}… (CSV)`);
    expect(names[1]).toBe(`${'T'.repeat(99)}…: ${'N'.repeat(164)}… (${'F'.repeat(29)}…)`);
    // A short dataset title leaves its room to the name.
    const [, shortTitle] = mapDataset({ ...long, title: 'Nómina 2024', distributions: long.distributions.concat(distribution({ identifier: 'b', url: 'https://x.org/b.csv', title: 'M'.repeat(5000) })) });
    expect(shortTitle!.title).toBe(`Nómina 2024: ${'M'.repeat(FIELD_MAX.title - 'Nómina 2024: '.length - 1)}…`);
    // What fits is left whole: short titles, and a long name after a short title.
    expect(mapDataset(dataset([distribution({ identifier: 'a', url: 'https://x.org/a.csv' })]))[0]!.title).toBe('Nómina 2024');
    const fits = mapDataset(
      dataset([
        distribution({ identifier: 'a', url: 'https://x.org/a.csv', title: `Detalle ${'d'.repeat(200)}` }),
        distribution({ identifier: 'b', url: 'https://x.org/b.csv', title: 'Resumen' }),
      ]),
    );
    expect(fits[0]!.title).toBe(`Nómina 2024: Detalle ${'d'.repeat(200)}`);
  });

  it('tells the files of one dataset apart, keys them by identifier, else URL, else position, and drops repeats', () => {
    const records = mapDataset(
      dataset([
        distribution({ identifier: 'r1', url: 'https://x.org/a.xlsx', title: 'Enero', format: 'XLSX' }),
        distribution({ url: 'https://x.org/b.pdf', title: 'Nómina 2024', format: 'PDF' }),
        distribution({ mediaType: 'application/vnd.oasis.opendocument.spreadsheet' }),
        distribution({ identifier: 'r1', url: 'https://x.org/a.xlsx', title: 'Enero', format: 'XLSX' }),
      ]),
    );
    expect(records.map((record) => [record.distributionKey, record.title, record.type])).toEqual([
      ['r1', 'Nómina 2024: Enero', 'xlsx'],
      ['https://x.org/b.pdf', 'Nómina 2024: PDF', 'pdf'],
      ['#3', 'Nómina 2024: archivo 3', 'ods'],
    ]);
  });

  it("names a file its catalogue gives neither title nor format by its file's name in its URL, else by its number (Project Open Data's sample)", () => {
    const records = mapDataset(
      dataset([distribution({ url: 'https://x.org/datos/presupuesto%202024.csv' }), distribution({ url: 'https://x.org/api/descarga?id=7' })]),
    );
    expect(records.map((record) => record.title)).toEqual(['Nómina 2024: presupuesto 2024.csv', 'Nómina 2024: archivo 2']);
  });

  it('reads a format written as a media type, a known media type over an unknown label, and else the URL\'s extension', () => {
    const typeOf = (overrides: Partial<CatalogDistribution>) => mapDataset(dataset([distribution({ url: 'https://x.org/descarga', ...overrides })]))[0]!.type;
    // A CKAN publisher's `format: "text/csv"`.
    expect(typeOf({ format: 'text/csv' })).toBe('csv');
    expect(typeOf({ format: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' })).toBe('xlsx');
    expect(typeOf({ format: 'Datos', mediaType: 'application/vnd.oasis.opendocument.spreadsheet' })).toBe('ods');
    // A DCAT distribution without dct:format.
    expect(typeOf({ url: 'https://x.org/nomina.csv?descarga=1' })).toBe('csv');
    // What it declares wins over the extension.
    expect(typeOf({ url: 'https://x.org/nomina.csv', format: 'PDF' })).toBe('pdf');
    expect(typeOf({ format: 'API' })).toBe('other');
    // What was declared is kept as declared.
    expect(mapDataset(dataset([distribution({ url: 'https://x.org/a', format: 'text/csv' })]))[0]!.declaredFormat).toBe('text/csv');
  });

  it('makes one record of a dataset without a file to fetch, with every format it declares, keyed as its first distribution', () => {
    const [record, ...rest] = mapDataset(
      dataset([
        distribution({ title: 'Nómina 2024', format: 'XLSX' }),
        distribution({ title: 'Nómina 2024', format: 'CSV' }),
        distribution({ mediaType: 'application/vnd.oasis.opendocument.spreadsheet' }),
        distribution({ format: 'CSV' }),
      ]),
    );
    expect(rest).toEqual([]);
    expect(record).toMatchObject({
      distributionKey: '#1',
      url: null,
      title: 'Nómina 2024',
      description: 'Pagos del personal.',
      type: 'csv',
      formats: ['csv', 'xlsx', 'ods'],
      declaredFormat: 'XLSX, CSV, ods',
      declaredSize: null,
      declaredChecksum: null,
    });
    // Its identity survives the catalogue giving that first distribution a URL later.
    const later = mapDataset(dataset([distribution({ url: 'https://x.org/n.xlsx', format: 'XLSX' })]));
    expect(later.map((each) => each.distributionKey)).toEqual(['https://x.org/n.xlsx']);
    const identified = mapDataset(dataset([distribution({ identifier: 'r9', format: 'PDF' })]));
    expect(identified[0]).toMatchObject({ distributionKey: 'r9', type: 'pdf', formats: ['pdf'] });
    expect(mapDataset(dataset([distribution({ identifier: 'r9', url: 'https://x.org/n.pdf', format: 'PDF' })]))[0]?.distributionKey).toBe('r9');
  });

  it('makes one record of a dataset with no distribution at all: it is still an entry of the catalogue', () => {
    expect(mapDataset(dataset([]))).toEqual([
      expect.objectContaining({ distributionKey: '#1', url: null, title: 'Nómina 2024', type: 'other', formats: [], declaredFormat: null }),
    ]);
  });
});

describe('chooseCategory', () => {
  const choice = { themeMap: { 'grupo-salud': 7, Educación: 8 }, categoryByTitle: new Map([['gestion publica', 9]]), defaultCategoryId: 1 };
  it('takes the source map by identifier, then by label, then our category of the same title, then the default', () => {
    expect(chooseCategory([{ identifier: 'x', label: 'Otro' }, { identifier: 'grupo-salud', label: 'Salud' }], choice)).toBe(7);
    expect(chooseCategory([{ identifier: 'g-edu', label: 'Educación' }], choice)).toBe(8);
    expect(chooseCategory([{ identifier: 'g-gp', label: 'Gestión  Pública' }], choice)).toBe(9);
    expect(chooseCategory([{ identifier: 'g-x', label: 'Desconocido' }], choice)).toBe(1);
    expect(chooseCategory([], { ...choice, defaultCategoryId: null })).toBeNull();
  });

  it("never takes what an object inherits for a mapped category (a theme called 'constructor')", () => {
    expect(chooseCategory([{ identifier: 'constructor', label: '__proto__' }], choice)).toBe(1);
    expect(chooseCategory([{ identifier: 'toString', label: 'hasOwnProperty' }], choice)).toBe(1);
  });
});

describe('declared text', () => {
  it('loses control, format and bidi characters and is cut to a bounded length, as uploads store theirs', () => {
    expect(cleanText('  T\u202Eevil\u0000\u200B título  ')).toBe('Tevil título');
    expect(cleanText('x'.repeat(50_000_000))).toHaveLength(MAX_TEXT_CHARS);
    expect(cleanText('\u200B\u202E ')).toBeNull();
  });

  it("finds a publisher's name key in linear time, however long the name", () => {
    const started = performance.now();
    nameKey(`${' AB'.repeat(MAX_TEXT_CHARS)} x`);
    // The old expression took seconds on 60 KB (quadratic); this is milliseconds.
    expect(performance.now() - started).toBeLessThan(500);
    expect(nameKey('Ministerio de Vivienda, Hábitat y Edificaciones MIVHED')).toBe('ministerio vivienda habitat edificacione');
  });
});

describe('websiteKey', () => {
  it('finds one site however its address is written', () => {
    expect(websiteKey('https://www.ONE.gob.do/sobre-nosotros')).toBe('one.gob.do');
    expect(websiteKey('http://one.gob.do')).toBe('one.gob.do');
    expect(websiteKey('no es una url')).toBeNull();
    expect(websiteKey(null)).toBeNull();
  });
});

describe('intervalLabel', () => {
  it("names a moderator's choice by its label and any other interval in its largest whole unit, in Spanish", () => {
    expect(intervalLabel(86_400)).toBe('Diaria');
    expect(intervalLabel(2_592_000)).toBe('Mensual');
    expect(intervalLabel(2 * 86_400)).toBe('Cada 2 días');
    expect(intervalLabel(36 * 3600)).toBe('Cada 36 horas');
    expect(intervalLabel(3600)).toBe('Cada hora');
    expect(intervalLabel(90 * 60)).toBe('Cada 90 minutos');
    expect(intervalLabel(45)).toBe('Cada 45 segundos');
    expect(intervalLabel(20_000 * 86_400)).toBe('Cada 20,000 días');
  });
});
