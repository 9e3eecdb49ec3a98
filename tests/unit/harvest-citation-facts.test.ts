/**
 * What a researcher needs to cite beyond licence and dates (issue #20): update frequency, the
 * publisher's contact and temporal coverage, read from every catalogue kind — the real datos.gob.do
 * CKAN sample (its `Periodicidad` extra, its `Periocidad` typo, its maintainers), DCAT-AP in
 * Turtle and JSON-LD, data.json — then cleaned (addresses, calendar dates, intervals) and named in
 * Spanish for the record page (frequency codes, coverage in words). No network: each reader gets
 * its document from a fetcher that answers it.
 */
import { describe, expect, it } from 'vitest';
import { frequencyIri, frequencyLabel } from '../../src/lib/server/harvest/catalogs/frequency.ts';
import { readCatalog, type CatalogDataset, type CatalogKind, type FetchPage } from '../../src/lib/server/harvest/catalogs/index.ts';
import { cleanCalendarDate, cleanEmail, cleanTemporal } from '../../src/lib/server/harvest/catalogs/values.ts';
import { calendarDate } from '../../src/lib/format.ts';
import { temporalCoverage } from '../../src/lib/server/seo/citation.ts';
import { samplePackages, type CkanPackage } from '../helpers/portal/index.ts';

/** A fetcher that answers one fixed document: no network at all. */
const answering =
  (body: string, contentType: string): FetchPage =>
  async () => ({ body, contentType });

async function datasetsOf(kind: CatalogKind, url: string, body: string, contentType: string): Promise<CatalogDataset[]> {
  const datasets: CatalogDataset[] = [];
  for await (const page of readCatalog(kind, url, answering(body, contentType))) datasets.push(...page.datasets);
  return datasets;
}

const ckanAnswer = (packages: unknown[]) => JSON.stringify({ success: true, result: { count: packages.length, results: packages } });
const readCkan = (packages: unknown[]) => datasetsOf('ckan', 'https://datos.gob.do', ckanAnswer(packages), 'application/json');

describe('the CKAN reader on the real datos.gob.do sample', () => {
  it('reads periodicidad as a field, as the hand-typed Periodicidad extra and its Periocidad typo, and every maintainer as the contact', async () => {
    const sample = samplePackages();
    const datasets = await readCkan(sample);
    const facts = datasets.map((dataset) => ({ frequency: dataset.updateFrequency, contact: dataset.contact, temporal: dataset.temporal }));
    expect(facts).toEqual([
      // "webmaster " as typed, trimmed.
      { frequency: 'Anual', contact: { name: 'webmaster', email: 'webasde76@hotmail.com' }, temporal: null },
      // CONALECHE's maintainer has an address but no name: the pair is kept, not the author's name beside it.
      { frequency: 'Mensual', contact: { name: null, email: 'conaleche@conaleche.gob.do' }, temporal: null },
      { frequency: null, contact: { name: 'Oficina de Acceso a la Información', email: 'datosabiertos@dragas.mil.do' }, temporal: null },
      { frequency: 'Mensual', contact: { name: 'Saul Santana', email: 'danyelysantana@bani.gob.do' }, temporal: null },
      { frequency: 'Mensual', contact: { name: 'Ayuntamiento del Municipal de San Cristobal', email: 'datosabiertos@sancristobal.gob.do' }, temporal: null },
    ]);
    // Those are the sample's own words, not the test's: ASDE and CONALECHE have a periodicidad
    // field (ckanext-scheming), Baní a Periodicidad extra, San Cristóbal a Periocidad one.
    expect([sample[0]!.periodicidad, sample[1]!.periodicidad]).toEqual(['Anual', 'Mensual']);
    const extraKeys = (pkg: CkanPackage) => (pkg.extras as Array<{ key: string }>).map((extra) => extra.key);
    expect(extraKeys(sample[3]!)).toContain('Periodicidad');
    expect(extraKeys(sample[4]!)).toContain('Periocidad');
  });

  it('falls back to the author when the maintainer has no address, keeps only valid addresses, and reads fields and coverage', async () => {
    const [authorOnly, noAddress, fields, coverage, words, interval, badDates] = await readCkan([
      { id: 'a', maintainer: 'Webmaster', maintainer_email: '', author: 'Oficina de Estadística', author_email: 'mailto:estadistica@one.gob.do' },
      { id: 'b', maintainer: 'Departamento de TI', maintainer_email: 'no tiene', author: 'ONE', author_email: 'www.one.gob.do' },
      { id: 'c', frequency: 'http://publications.europa.eu/resource/authority/frequency/QUARTERLY', extras: [{ key: 'Periodicidad', value: 'Mensual' }] },
      { id: 'd', accrual_periodicity: 'R/P1Y', extras: [{ key: 'temporal_start', value: '2015' }, { key: 'temporal_end', value: '2020-06' }] },
      { id: 'e', extras: [{ key: 'Cobertura temporal', value: 'Primer trimestre de cada año' }, { key: ' PERIODICIDAD ', value: ' Anual ' }] },
      { id: 'f', extras: [{ key: 'temporal', value: '2019-01-01/..' }] },
      { id: 'g', extras: [{ key: 'temporal_start', value: 'enero de 2017' }, { key: 'temporal_end', value: '2017-02-30' }] },
    ]);
    expect(authorOnly!.contact).toEqual({ name: 'Oficina de Estadística', email: 'estadistica@one.gob.do' });
    // Neither has an address: the maintainer's name stays, the bad addresses do not.
    expect(noAddress!.contact).toEqual({ name: 'Departamento de TI', email: null });
    // A field wins over an extra.
    expect(fields!.updateFrequency).toBe('http://publications.europa.eu/resource/authority/frequency/QUARTERLY');
    expect(fields!.contact).toBeNull();
    expect(coverage!.updateFrequency).toBe('R/P1Y');
    expect(coverage!.temporal).toEqual({ start: '2015-01-01', end: '2020-06-30', text: null });
    expect(words!.updateFrequency).toBe('Anual');
    expect(words!.temporal).toEqual({ start: null, end: null, text: 'Primer trimestre de cada año' });
    expect(interval!.temporal).toEqual({ start: '2019-01-01', end: null, text: null });
    // Not dates: kept in words, never guessed.
    expect(badDates!.temporal).toEqual({ start: null, end: null, text: 'enero de 2017 – 2017-02-30' });
  });
});

const TURTLE = `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix vcard: <http://www.w3.org/2006/vcard/ns#> .
@prefix schema: <http://schema.org/> .
@prefix time: <http://www.w3.org/2006/time#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

<https://portal.example/dataset/presupuesto> a dcat:Dataset ;
  dct:identifier "presupuesto" ;
  dct:title "Presupuesto"@es ;
  dct:accrualPeriodicity <http://publications.europa.eu/resource/authority/frequency/MONTHLY> ;
  dcat:contactPoint [ a vcard:Organization ; vcard:fn "Dirección de Presupuesto"@es, "Budget Office"@en ; vcard:hasEmail <mailto:datos@digepres.gob.do> ] ;
  dct:temporal [ a dct:PeriodOfTime ; dcat:startDate "2020-01-01"^^xsd:date ; dcat:endDate "2023-12-31T23:59:59"^^xsd:dateTime ] .

<https://portal.example/dataset/aduanas> a dcat:Dataset ;
  dct:identifier "aduanas" ;
  dct:accrualPeriodicity [ a dct:Frequency ; rdf:value <http://purl.org/cld/freq/quarterly> ] ;
  dcat:contactPoint [ vcard:organization-name "Dirección General de Aduanas" ; vcard:hasEmail "no-es-un-correo" ] ;
  dct:temporal [ schema:startDate "2018"^^xsd:gYear ; schema:endDate "2019"^^xsd:gYear ; <http://www.w3.org/2000/01/rdf-schema#label> "2018-2019" ] .

<https://portal.example/dataset/clima> a dcat:Dataset ;
  dct:identifier "clima" ;
  dct:accrualPeriodicity "Diaria" ;
  dcat:contactPoint "clima@onamet.gob.do" ;
  dct:temporal [ time:hasBeginning [ time:inXSDDate "2001-03-05"^^xsd:date ] ] .

<https://portal.example/dataset/sin-datos> a dcat:Dataset ; dct:identifier "sin-datos" .
`;

describe('the DCAT reader', () => {
  it('reads dct:accrualPeriodicity, dcat:contactPoint and dct:temporal however DCAT-AP states them', async () => {
    const datasets = await datasetsOf('dcat', 'https://portal.example/catalog.ttl', TURTLE, 'text/turtle');
    const byId = new Map(datasets.map((dataset) => [dataset.identifier, dataset]));
    expect(byId.get('presupuesto')).toMatchObject({
      updateFrequency: 'http://publications.europa.eu/resource/authority/frequency/MONTHLY',
      // The Spanish name, and the address without mailto:.
      contact: { name: 'Dirección de Presupuesto', email: 'datos@digepres.gob.do' },
      // A date-time's own day, not moved to another zone.
      temporal: { start: '2020-01-01', end: '2023-12-31', text: null },
    });
    expect(byId.get('aduanas')).toMatchObject({
      updateFrequency: 'http://purl.org/cld/freq/quarterly',
      contact: { name: 'Dirección General de Aduanas', email: null },
      temporal: { start: '2018-01-01', end: '2019-12-31', text: '2018-2019' },
    });
    expect(byId.get('clima')).toMatchObject({
      updateFrequency: 'Diaria',
      contact: { name: null, email: 'clima@onamet.gob.do' },
      temporal: { start: '2001-03-05', end: null, text: null },
    });
    expect(byId.get('sin-datos')).toMatchObject({ updateFrequency: null, contact: null, temporal: null });
  });

  it('reads them from JSON-LD too', async () => {
    const jsonld = {
      '@context': { dcat: 'http://www.w3.org/ns/dcat#', dct: 'http://purl.org/dc/terms/', vcard: 'http://www.w3.org/2006/vcard/ns#' },
      '@graph': [
        {
          '@id': 'https://portal.example/dataset/nomina',
          '@type': 'dcat:Dataset',
          'dct:identifier': 'nomina',
          'dct:accrualPeriodicity': { '@id': 'http://publications.europa.eu/resource/authority/frequency/ANNUAL' },
          'dcat:contactPoint': { '@type': 'vcard:Kind', 'vcard:fn': 'Recursos Humanos', 'vcard:hasEmail': { '@id': 'mailto:rrhh@map.gob.do?subject=Datos' } },
          'dct:temporal': { '@type': 'dct:PeriodOfTime', 'dcat:startDate': '2024-07' },
        },
      ],
    };
    const [dataset] = await datasetsOf('dcat', 'https://portal.example/catalog.jsonld', JSON.stringify(jsonld), 'application/ld+json');
    expect(dataset).toMatchObject({
      updateFrequency: 'http://publications.europa.eu/resource/authority/frequency/ANNUAL',
      contact: { name: 'Recursos Humanos', email: 'rrhh@map.gob.do' },
      temporal: { start: '2024-07-01', end: null, text: null },
    });
  });
});

describe('the data.json reader', () => {
  it('reads accrualPeriodicity, contactPoint and an ISO 8601 temporal interval', async () => {
    const catalog = {
      dataset: [
        {
          identifier: 'ds-1',
          title: 'Exportaciones',
          accrualPeriodicity: 'R/P1M',
          contactPoint: { '@type': 'vcard:Contact', fn: 'Dirección de Estadística', hasEmail: 'mailto:estadistica@indec.gob.ar' },
          temporal: '2016-01-01/2016-12-31',
        },
        { identifier: 'ds-2', accrualPeriodicity: 'irregular', contactPoint: { fn: '  ', hasEmail: 'mailto:' }, temporal: '2010/2019' },
        { identifier: 'ds-3', contactPoint: 'texto suelto', temporal: 'Censo 2010' },
      ],
    };
    const datasets = await datasetsOf('datajson', 'https://datos.gob.ar/data.json', JSON.stringify(catalog), 'application/json');
    expect(datasets.map(({ updateFrequency, contact, temporal }) => ({ updateFrequency, contact, temporal }))).toEqual([
      {
        updateFrequency: 'R/P1M',
        contact: { name: 'Dirección de Estadística', email: 'estadistica@indec.gob.ar' },
        temporal: { start: '2016-01-01', end: '2016-12-31', text: null },
      },
      { updateFrequency: 'irregular', contact: null, temporal: { start: '2010-01-01', end: '2019-12-31', text: null } },
      { updateFrequency: null, contact: null, temporal: { start: null, end: null, text: 'Censo 2010' } },
    ]);
  });
});

describe('declared contacts and coverage, cleaned', () => {
  it('keeps an e-mail address only when it is one', () => {
    expect(cleanEmail(' datos@hacienda.gob.do ')).toBe('datos@hacienda.gob.do');
    expect(cleanEmail('MAILTO:josé.pérez@ministerio.gob.do')).toBe('josé.pérez@ministerio.gob.do');
    expect(cleanEmail('mailto:datos%40one.gob.do?subject=hola')).toBe('datos@one.gob.do');
    for (const notOne of ['N/A', 'datos@', '@one.gob.do', 'datos@localhost', 'dos palabras@one.gob.do', 'a@b@c.do', 'https://one.gob.do', 'x?y@one.gob.do', `${'a'.repeat(250)}@one.gob.do`, 42, null]) {
      expect(cleanEmail(notOne), String(notOne)).toBeNull();
    }
  });

  it('reads calendar dates from dates, date-times, months and years, and refuses days that do not exist', () => {
    expect(cleanCalendarDate('2024-02', 'end')).toBe('2024-02-29');
    expect(cleanCalendarDate('2023-02', 'end')).toBe('2023-02-28');
    expect(cleanCalendarDate(2017, 'start')).toBe('2017-01-01');
    expect(cleanCalendarDate('2017', 'end')).toBe('2017-12-31');
    expect(cleanCalendarDate('2017-06-30T22:00:00-04:00', 'end')).toBe('2017-06-30');
    for (const notOne of ['2017-13', '2017-02-30', '17', 'junio', '0999', '2017-6-1']) expect(cleanCalendarDate(notOne, 'start'), notOne).toBeNull();
  });

  it('turns an interval into dates and keeps other words as written', () => {
    expect(cleanTemporal(null, null, '2017-03/2018')).toEqual({ start: '2017-03-01', end: '2018-12-31', text: null });
    expect(cleanTemporal(null, null, '../2018-05-04')).toEqual({ start: null, end: '2018-05-04', text: null });
    expect(cleanTemporal(null, null, '2021')).toEqual({ start: '2021-01-01', end: '2021-12-31', text: null });
    expect(cleanTemporal(null, null, 'a/b/c')).toEqual({ start: null, end: null, text: 'a/b/c' });
    expect(cleanTemporal('desde siempre', null)).toEqual({ start: null, end: null, text: 'Desde desde siempre' });
    expect(cleanTemporal('2001', null, 'Serie histórica')).toEqual({ start: '2001-01-01', end: null, text: 'Serie histórica' });
    expect(cleanTemporal(' ', null, '')).toBeNull();
  });
});

describe('frequencies and coverage in Spanish', () => {
  it('names the EU vocabulary, Dublin Core and ISO 8601 codes, and shows other words as declared', () => {
    const eu = 'http://publications.europa.eu/resource/authority/frequency/';
    expect(frequencyLabel(`${eu}MONTHLY`)).toBe('Mensual');
    expect(frequencyLabel('https://publications.europa.eu/resource/authority/frequency/ANNUAL_2/')).toBe('Semestral');
    expect(frequencyLabel('http://purl.org/cld/freq/quarterly')).toBe('Trimestral');
    expect(frequencyLabel('R/P1M')).toBe('Mensual');
    expect(frequencyLabel('R/P0.5M')).toBe('Dos veces al mes');
    expect(frequencyLabel('irregular')).toBe('Irregular');
    expect(frequencyLabel('IRREG')).toBe('Irregular');
    expect(frequencyLabel('Cuando hay elecciones')).toBe('Cuando hay elecciones');
    expect(frequencyLabel(`${eu}SOMETHING_NEW`)).toBe(`${eu}SOMETHING_NEW`);
    // The DCAT output names words it knows by the vocabulary's IRI.
    expect(frequencyIri('Mensual')).toBe(`${eu}MONTHLY`);
    expect(frequencyIri(' diaria ')).toBe(`${eu}DAILY`);
    expect(frequencyIri('R/P3M')).toBe(`${eu}QUARTERLY`);
    expect(frequencyIri('Cuando hay elecciones')).toBeNull();
  });

  it('says a coverage as years when it spans whole years, as dates otherwise, with the words after', () => {
    const coverage = (temporalStart: string | null, temporalEnd: string | null, temporalText: string | null = null) => temporalCoverage({ temporalStart, temporalEnd, temporalText });
    expect(coverage('2017-01-01', '2026-12-31')).toEqual(['De 2017 a 2026']);
    expect(coverage('2017-01-01', '2017-12-31')).toEqual(['Año 2017']);
    expect(coverage('2017-01-01', '2017-06-30')).toEqual(['Del 01/01/2017 al 30/06/2017']);
    expect(coverage('2019-03-05', null, 'Serie en curso')).toEqual(['Desde el 05/03/2019', 'Serie en curso']);
    expect(coverage(null, '2018-12-31')).toEqual(['Hasta el 31/12/2018']);
    expect(coverage(null, null)).toEqual([]);
    // A calendar date is not an instant: no zone moves it to the day before.
    expect(calendarDate('2017-01-01')).toBe('01/01/2017');
  });
});
