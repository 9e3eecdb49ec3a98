import { describe, expect, it } from 'vitest';
import { calendarDayDate } from '../../src/lib/domain/calendar-day.ts';
import { ASSET_TYPES, ASSET_TYPE_VALUES } from '../../src/lib/domain/constants.ts';
import type { GroupItem } from '../../src/lib/server/queries/groups.ts';
import type { OriginFacts, RecordDetail, RecordRow } from '../../src/lib/server/queries/records.ts';
import { collectionJsonLd, compact, datasetJsonLd } from '../../src/lib/server/seo/jsonld.ts';

const ORIGIN = 'https://archivo.example';
const CID = 'bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4';

type DatasetRecord = RecordDetail & Pick<OriginFacts, 'harvested'>;

function record(overrides: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    harvested: false,
    id: 42,
    cid: CID,
    title: 'Estadísticas del Seguro Familiar de Salud',
    description: 'Afiliados y dispersión del régimen contributivo, por mes.',
    type: 'pdf',
    formats: ['pdf'],
    status: 'on_line',
    createdAt: new Date('2025-01-02T03:04:05.000Z'),
    updatedAt: new Date('2025-06-07T08:09:10.000Z'),
    sourceUrl: 'https://sisalril.gob.do/estadisticas',
    originalUrl: null,
    apiEndpoint: null,
    apiEnabled: false,
    fileName: 'estadisticas.pdf',
    fileExtension: 'pdf',
    fileSize: 509003,
    mimeType: 'application/pdf',
    walletAddress: null,
    provenanceNote: null,
    signedMessage: null,
    signature: null,
    importId: null,
    department: {
      id: 3,
      name: 'Superintendencia de Salud y Riesgos Laborales',
      desciption: null,
      website: 'https://sisalril.gob.do',
      acronym: 'SISALRIL',
    },
    source: { id: 2, name: 'Sitio web de SISALRIL', url: 'https://sisalril.gob.do' },
    category: { id: 5, title: 'Salud' },
    underReview: { source: false, department: false },
    aletheias: [],
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
    ...overrides,
  };
}

/** Every value of a JSON tree, to check that none is null or undefined. */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

describe('the Dataset of a record', () => {
  it('describes an archived file with its publisher, catalogue and download', () => {
    const url = `${ORIGIN}/single/src/${CID}?assetId=42`;
    const publisher = {
      '@type': 'Organization',
      name: 'Superintendencia de Salud y Riesgos Laborales',
      alternateName: 'SISALRIL',
      url: 'https://sisalril.gob.do',
    };
    expect(datasetJsonLd(record(), ORIGIN)).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Dataset',
      '@id': url,
      name: 'Estadísticas del Seguro Familiar de Salud',
      description: 'Afiliados y dispersión del régimen contributivo, por mes.',
      url,
      identifier: [CID, { '@type': 'PropertyValue', propertyID: 'CID', value: CID }],
      // A hand upload: no date of the original is known; the archive's are its page's.
      mainEntityOfPage: { '@type': 'ItemPage', url, datePublished: '2025-01-02T03:04:05.000Z', dateModified: '2025-06-07T08:09:10.000Z' },
      inLanguage: 'es',
      isAccessibleForFree: true,
      publisher,
      creator: publisher,
      keywords: ['Salud'],
      // An upload: the archive's own language and area, as its DCAT catalogue states them.
      spatialCoverage: { '@type': 'Place', name: 'República Dominicana', sameAs: 'http://publications.europa.eu/resource/authority/country/DOM' },
      isBasedOn: 'https://sisalril.gob.do/estadisticas',
      sameAs: 'https://sisalril.gob.do/estadisticas',
      includedInDataCatalog: { '@type': 'DataCatalog', name: 'Archivo Abierto', url: `${ORIGIN}/dashboard` },
      distribution: [
        {
          '@type': 'DataDownload',
          name: 'estadisticas.pdf',
          identifier: CID,
          contentUrl: `${ORIGIN}/ipfs/${CID}`,
          encodingFormat: 'application/pdf',
          contentSize: '509003 B',
        },
      ],
    });
  });

  it("states a harvested record's languages and areas as its catalogue declared them, and none it did not declare", () => {
    const EU = 'http://publications.europa.eu/resource/authority';
    const declared = datasetJsonLd(
      record({ harvested: true, languages: [`${EU}/language/ENG`, `${EU}/language/SPA`], spatial: [`${EU}/country/CHL`, 'Región de Valparaíso', 'https://sws.geonames.org/3868626/'] }),
      ORIGIN,
    );
    expect(declared.inLanguage).toEqual(['en', 'es']);
    expect(declared.spatialCoverage).toEqual([
      { '@type': 'Place', name: 'Chile', sameAs: `${EU}/country/CHL` },
      { '@type': 'Place', name: 'Región de Valparaíso' },
      { '@type': 'Place', name: 'https://sws.geonames.org/3868626/', sameAs: 'https://sws.geonames.org/3868626/' },
    ]);
    const silent = datasetJsonLd(record({ harvested: true }), ORIGIN);
    expect(silent).not.toHaveProperty('inLanguage');
    expect(silent).not.toHaveProperty('spatialCoverage');
    expect(datasetJsonLd(record({ harvested: true, languages: [`${EU}/language/HAT`] }), ORIGIN).inLanguage).toBe('ht');
  });

  it('leaves out what is unknown instead of writing null', () => {
    const bare = datasetJsonLd(
      record({ description: null, department: null, category: null, mimeType: null, fileSize: null, fileName: null, type: 'xlsx' }),
      ORIGIN,
    );
    expect(leaves(bare).filter((value) => value === null || value === undefined)).toEqual([]);
    expect(bare).not.toHaveProperty('publisher');
    expect(bare).not.toHaveProperty('creator');
    expect(bare).not.toHaveProperty('keywords');
    expect(bare).not.toHaveProperty('license');
    // Search engines need a description: the title stands in.
    expect(bare.description).toBe(bare.name);
    // The media type comes from the format when the file had none.
    expect(bare.distribution).toEqual([
      {
        '@type': 'DataDownload',
        identifier: CID,
        contentUrl: `${ORIGIN}/ipfs/${CID}`,
        encodingFormat: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    ]);
  });

  it.each(ASSET_TYPE_VALUES)("describes a %s file that came without a media type by its format's", (type) => {
    const [download] = datasetJsonLd(record({ mimeType: null, type }), ORIGIN).distribution as Array<Record<string, unknown>>;
    if (type === 'other') expect(download).not.toHaveProperty('encodingFormat');
    else expect(download?.encodingFormat).toBe(ASSET_TYPES[type].mediaType);
  });

  it('does not claim an issuer home page is the dataset', () => {
    const published = datasetJsonLd(record({ sourceUrl: 'https://sisalril.gob.do' }), ORIGIN);
    expect(published.isBasedOn).toBe('https://sisalril.gob.do');
    expect(published).not.toHaveProperty('sameAs');
  });

  it('gives a record without a CID its own page, based on its source, with no download', () => {
    const harvested = datasetJsonLd(
      record({ cid: null, sourceUrl: 'https://datos.gob.do/dataset/empleo', source: null }),
      ORIGIN,
    );
    expect(harvested['@id']).toBe(`${ORIGIN}/registro/42`);
    expect(harvested.url).toBe(`${ORIGIN}/registro/42`);
    expect(harvested.isBasedOn).toBe('https://datos.gob.do/dataset/empleo');
    expect(harvested.sameAs).toBe('https://datos.gob.do/dataset/empleo');
    expect(harvested).not.toHaveProperty('identifier');
    expect(harvested).not.toHaveProperty('distribution');
  });

  it("states the original's licence, dates and keywords as its catalogue gives them, and the archive's dates as its page's", () => {
    const cited = datasetJsonLd(
      record({
        issued: new Date('2018-06-19T00:00:00.000Z'),
        modified: new Date('2024-02-22T15:05:11.000Z'),
        licenseTitle: 'Open Data Commons Open Database License (ODbL)',
        licenseUrl: 'http://www.opendefinition.org/licenses/odc-odbl',
        keywords: ['afiliados', 'ARS'],
      }),
      ORIGIN,
    );
    expect(cited).toMatchObject({
      datePublished: '2018-06-19T00:00:00.000Z',
      dateModified: '2024-02-22T15:05:11.000Z',
      license: 'http://www.opendefinition.org/licenses/odc-odbl',
      keywords: ['Salud', 'afiliados', 'ARS'],
      mainEntityOfPage: { '@type': 'ItemPage', datePublished: '2025-01-02T03:04:05.000Z', dateModified: '2025-06-07T08:09:10.000Z' },
    });
    expect(cited).not.toHaveProperty('dateCreated');
    // One date declared, the other not: the archive's does not stand in for it. A day the
    // catalogue gave as a day is given as one.
    const firstOnly = datasetJsonLd(record({ issued: calendarDayDate('2018-06-19') }), ORIGIN);
    expect(firstOnly.datePublished).toBe('2018-06-19');
    expect(firstOnly).not.toHaveProperty('dateModified');
    // A licence named without a usable URL is given by its name; none stated, none claimed.
    expect(datasetJsonLd(record({ licenseTitle: 'Licencia abierta', licenseUrl: 'notaurl' }), ORIGIN).license).toEqual({ '@type': 'CreativeWork', name: 'Licencia abierta' });
    // A name is never given where a reader takes a link.
    expect(datasetJsonLd(record({ licenseTitle: 'javascript:alert(1)', licenseUrl: null }), ORIGIN).license).toEqual({ '@type': 'CreativeWork', name: 'javascript:alert(1)' });
    const bare = datasetJsonLd(record(), ORIGIN);
    expect(bare).not.toHaveProperty('license');
    expect(bare).not.toHaveProperty('datePublished');
    expect(bare).not.toHaveProperty('dateModified');
    expect(bare).not.toHaveProperty('dateCreated');
  });

  it("states the original's temporal coverage as an ISO 8601 interval and its contact on the publisher", () => {
    const cited = datasetJsonLd(
      record({
        updateFrequency: 'Mensual',
        contactName: 'Oficina de Acceso a la Información',
        contactEmail: 'oai@sisalril.gob.do',
        temporalStart: '2017-01-01',
        temporalEnd: '2017-12-31',
        temporalText: 'Todo el año 2017',
      }),
      ORIGIN,
    );
    expect(cited.temporalCoverage).toBe('2017-01-01/2017-12-31');
    const contactPoint = { '@type': 'ContactPoint', name: 'Oficina de Acceso a la Información', email: 'oai@sisalril.gob.do' };
    expect(cited.publisher).toEqual({
      '@type': 'Organization',
      name: 'Superintendencia de Salud y Riesgos Laborales',
      alternateName: 'SISALRIL',
      url: 'https://sisalril.gob.do',
      contactPoint,
    });
    expect(cited.creator).toEqual(cited.publisher);
    // schema.org has no update frequency for a Dataset: the DCAT catalogue states it, this does not.
    expect(JSON.stringify(cited)).not.toMatch(/Mensual|MONTHLY|[Ff]requency|accrual/);

    // An open end is `..`; a contact may be only a name or only an address.
    const running = datasetJsonLd(record({ temporalStart: '2019-03-01', contactEmail: 'datos@sisalril.gob.do' }), ORIGIN);
    expect(running.temporalCoverage).toBe('2019-03-01/..');
    expect((running.publisher as Record<string, unknown>).contactPoint).toEqual({ '@type': 'ContactPoint', email: 'datos@sisalril.gob.do' });
    const until = datasetJsonLd(record({ temporalEnd: '2020-06-30', contactName: 'Webmaster' }), ORIGIN);
    expect(until.temporalCoverage).toBe('../2020-06-30');
    expect((until.publisher as Record<string, unknown>).contactPoint).toEqual({ '@type': 'ContactPoint', name: 'Webmaster' });
    // A stored name as an edit could leave it reads on one line, without the override (domain/contact-point.ts).
    const edited = datasetJsonLd(record({ contactName: 'Oficina de\r\nAcceso\u202E', contactEmail: null }), ORIGIN);
    expect((edited.publisher as Record<string, unknown>).contactPoint).toEqual({ '@type': 'ContactPoint', name: 'Oficina de Acceso' });

    // Words are not the precise notation a Dataset's coverage wants; with no institution there is
    // no organisation to carry a contact.
    const vague = datasetJsonLd(record({ temporalText: 'Primer trimestre de cada año', department: null, contactName: 'Webmaster' }), ORIGIN);
    expect(vague).not.toHaveProperty('temporalCoverage');
    expect(JSON.stringify(vague)).not.toContain('ContactPoint');

    // A blank name or a stored value that is not an address is not published, whoever wrote the row.
    const blank = datasetJsonLd(record({ contactName: '   ', contactEmail: 'escríbanos por el formulario' }), ORIGIN);
    expect(blank.publisher).not.toHaveProperty('contactPoint');
    const half = datasetJsonLd(record({ contactName: ' Webmaster ', contactEmail: 'N/A' }), ORIGIN);
    expect((half.publisher as Record<string, unknown>).contactPoint).toEqual({ '@type': 'ContactPoint', name: 'Webmaster' });
    // The stored value must itself be one plain address, as the record page and the DCAT catalogue
    // judge it (domain/contact-point.ts): not a link, not an address with headers or markup after it.
    for (const stored of ['mailto:datos@sisalril.gob.do', 'x@y.z?subject=a"onmouseover=', 'javascript:alert(1)//@sisalril.gob.do']) {
      const kept = datasetJsonLd(record({ contactEmail: stored }), ORIGIN);
      expect(kept.publisher, stored).not.toHaveProperty('contactPoint');
    }

    // A record whose catalogue declared none of them states none.
    const bare = datasetJsonLd(record(), ORIGIN);
    expect(bare).not.toHaveProperty('temporalCoverage');
    expect(bare.publisher).not.toHaveProperty('contactPoint');
  });

  it('keeps text as it is: escaping belongs to the layout', () => {
    const title = 'Informe </script><script>alert(1)</script> & "datos"';
    expect(datasetJsonLd(record({ title }), ORIGIN).name).toBe(title);
  });
});

describe('the JSON-LD of a collection page', () => {
  const department: GroupItem = {
    entity: 'dep',
    id: 3,
    name: 'Superintendencia de Salud y Riesgos Laborales',
    description: 'Regula el Seguro Familiar de Salud.',
    url: 'https://sisalril.gob.do',
    updatedAt: new Date('2025-06-07T08:09:10.000Z'),
    acronym: 'SISALRIL',
    iconName: null,
    records: 12,
    byFormat: { pdf: 2, csv: 10, xlsx: 0, ods: 0, other: 0 },
  };
  const rows: RecordRow[] = [
    { ...record(), department: { id: 3, name: department.name }, withdrawnFromCatalogAt: null, goneFromOriginSince: null },
    { ...record({ id: 43, cid: null, title: 'Afiliados por ARS' }), department: null, withdrawnFromCatalogAt: null, goneFromOriginSince: null },
  ];

  it('lists the records of the page, each linked to its page', () => {
    const page = collectionJsonLd(department, rows, ORIGIN, 2);
    expect(page).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'CollectionPage',
      url: `${ORIGIN}/collection/dep/3?page=2`,
      name: department.name,
      inLanguage: 'es',
      dateModified: '2025-06-07T08:09:10.000Z',
      isPartOf: { '@type': 'DataCatalog', name: 'Archivo Abierto' },
      about: { '@type': 'Organization', alternateName: 'SISALRIL', url: 'https://sisalril.gob.do' },
    });
    expect(page.mainEntity).toEqual({
      '@type': 'ItemList',
      numberOfItems: 12,
      itemListElement: [
        {
          '@type': 'ListItem',
          position: 11,
          name: 'Estadísticas del Seguro Familiar de Salud',
          url: `${ORIGIN}/single/src/${CID}?assetId=42`,
        },
        { '@type': 'ListItem', position: 12, name: 'Afiliados por ARS', url: `${ORIGIN}/registro/43` },
      ],
    });
  });

  it('describes a source as a catalogue and a category as a theme', () => {
    const source = collectionJsonLd({ ...department, entity: 'src', acronym: null, url: 'https://datos.gob.do' }, [], ORIGIN, 1);
    expect(source.url).toBe(`${ORIGIN}/collection/src/3`);
    expect(source.about).toEqual({
      '@type': 'DataCatalog',
      name: department.name,
      description: department.description,
      url: 'https://datos.gob.do',
    });
    expect(source.mainEntity).toEqual({ '@type': 'ItemList', numberOfItems: 12 });
    const theme = collectionJsonLd({ ...department, entity: 'cat', acronym: null, url: null, description: null }, [], ORIGIN, 1);
    expect(theme.about).toEqual({ '@type': 'DefinedTerm', name: department.name });
    expect(theme).not.toHaveProperty('description');
  });
});

describe('compact', () => {
  it('drops nulls, undefined and what they leave empty, and writes dates as ISO text', () => {
    expect(compact({ a: null, b: undefined, c: [null], d: { e: null }, f: 0, g: false, h: '', i: new Date(0) })).toEqual({
      f: 0,
      g: false,
      h: '',
      i: '1970-01-01T00:00:00.000Z',
    });
  });
});
