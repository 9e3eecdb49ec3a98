/**
 * The catalogue readers (issue #18) on what portals really publish: the real CKAN `package_search`
 * sample of datos.gob.do served by a local portal on 127.0.0.1 and read in pages of two; and the
 * parsing rules (languages, checksums, formats, dates, paging limits, wrong kinds) on small
 * documents handed to the readers directly, without any network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageSearchUrl } from '../../src/lib/server/harvest/catalogs/ckan.ts';
import { catalogIdentity } from '../../src/lib/server/harvest/catalogs/index.ts';
import { CatalogReadError, PageNotFoundError, readCatalog, type CatalogKind, type CatalogPage, type FetchPage, type ReadOptions } from '../../src/lib/server/harvest/catalogs/index.ts';
import { cleanChecksum, cleanDate, cleanLanguage, cleanSpatial, cleanUrl, KNOWN_LANGUAGES } from '../../src/lib/server/harvest/catalogs/values.ts';
import { languageName, languageTag } from '../../src/lib/server/dcat/vocabularies.ts';
import { frequencyLabel } from '../../src/lib/server/harvest/catalogs/frequency.ts';
import { formatDate } from '../../src/lib/format.ts';
import { samplePackages, startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';

async function readAll(kind: CatalogKind, url: string, fetchPage: FetchPage, options: ReadOptions = {}): Promise<CatalogPage[]> {
  const pages: CatalogPage[] = [];
  for await (const page of readCatalog(kind, url, fetchPage, options)) pages.push(page);
  return pages;
}

/** Reads until the reader throws; the pages it yielded first and the error. */
async function readUntilError(kind: CatalogKind, url: string, fetchPage: FetchPage, options: ReadOptions = {}) {
  const pages: CatalogPage[] = [];
  try {
    for await (const page of readCatalog(kind, url, fetchPage, options)) pages.push(page);
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogReadError);
    return { pages, error: error as CatalogReadError };
  }
  throw new Error('the reader ended without an error');
}

/** A fetcher that answers one fixed document, counting its calls: no network at all. */
function answering(body: string, contentType: string | null): FetchPage & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(async (url: string) => {
    calls.push(url);
    return { body, contentType };
  }, { calls });
}

describe('the CKAN reader on the real datos.gob.do sample', () => {
  let portal: LocalPortal;
  let pages: CatalogPage[];
  const sample = samplePackages();

  beforeAll(async () => {
    portal = await startLocalPortal();
    pages = await readAll('ckan', portal.urls.ckan, portal.fetchPage, { pageSize: 2 });
  });
  afterAll(() => portal?.close());

  it('reads package_search in pages of rows=2: three pages, five packages, 22 resources', () => {
    const searches = portal.requests.filter((path) => path.startsWith('/api/3/action/package_search'));
    expect(searches).toEqual([
      '/api/3/action/package_search?rows=2&start=0',
      '/api/3/action/package_search?rows=2&start=2',
      '/api/3/action/package_search?rows=2&start=4',
    ]);
    expect(pages.map((page) => page.datasets.length)).toEqual([2, 2, 1]);
    expect(pages.map((page) => page.number)).toEqual([1, 2, 3]);
    expect(pages.every((page) => page.total === 5 && page.skipped.length === 0)).toBe(true);
    expect(pages.flatMap((page) => page.datasets).flatMap((dataset) => dataset.distributions)).toHaveLength(22);
  });

  it('keeps each package: identity, title, description, dates, licence, keywords, organisation and groups', () => {
    const datasets = pages.flatMap((page) => page.datasets);
    expect(datasets.map((dataset) => dataset.identifier)).toEqual(sample.map((pkg) => pkg.id));
    expect(datasets.map((dataset) => dataset.title)).toEqual(sample.map((pkg) => pkg.title));
    const asde = datasets[0]!;
    expect(asde).toMatchObject({
      identifier: '91f40db8-01df-4718-ba96-99d6529ac8b8',
      title: 'Nómina Empleados',
      landingPage: 'https://ayuntamientosde.gob.do/transparencia/documentos/nomina-2020-2023/',
      license: { title: 'Open Data Commons Open Database License (ODbL)', url: 'http://www.opendefinition.org/licenses/odc-odbl' },
      keywords: ['Comunidad', 'Sociedad y Bienestar', 'Urbanismo'],
      publisher: {
        identifier: '89138235-f888-4969-aabf-d97fb0e88d8f',
        name: 'Ayuntamiento Municipal de Santo Domingo Este (ASDE)',
        homepage: null,
        acronym: null,
      },
      themes: [{ identifier: '130ee27c-a0f5-42b5-9134-56bf5617be14', label: 'Gestión Pública' }],
    });
    expect(asde.description).toMatch(/^Nómina correspondiente a los empleados administrativos/);
    // CKAN's times are UTC without a zone.
    expect(asde.issued?.toISOString()).toBe('2017-10-19T16:35:41.584Z');
    expect(asde.modified?.toISOString()).toBe('2024-02-22T15:05:11.787Z');
    // The dragas package has no group.
    expect(datasets[2]!.themes).toEqual([]);
    expect(datasets.map((dataset) => dataset.publisher?.identifier)).toEqual(sample.map((pkg) => pkg.organization!.id));
  });

  it('keeps every resource with its id, name, declared format, media type, size and checksum', () => {
    const distributions = pages.flatMap((page) => page.datasets).flatMap((dataset) => dataset.distributions);
    const resources = portal.packages.flatMap((pkg) => pkg.resources);
    expect(distributions.map((distribution) => distribution.identifier)).toEqual(resources.map((resource) => resource.id));
    expect(distributions.map((distribution) => distribution.title)).toEqual(resources.map((resource) => resource.name));
    expect(distributions.map((distribution) => distribution.format)).toEqual(sample.flatMap((pkg) => pkg.resources.map((resource) => resource.format || null)));
    const formats = distributions.map((distribution) => distribution.format ?? '(ninguno)');
    expect(Object.fromEntries([...new Set(formats)].map((format) => [format, formats.filter((each) => each === format).length]))).toEqual({
      CSV: 7,
      ODS: 7,
      XLSX: 6,
      XLS: 1,
      '(ninguno)': 1,
    });
    const conaleche = distributions.find((distribution) => distribution.identifier === 'a9257b14-3dc4-4030-8c5b-8d181aacc5ee')!;
    expect(conaleche).toMatchObject({ format: 'CSV', mediaType: 'text/csv', byteSize: portal.files.get(conaleche.identifier!)!.size });
    // The portal declares a SHA-256 on the first resource of each package, nothing on the others.
    const firsts = pages.flatMap((page) => page.datasets).map((dataset) => dataset.distributions[0]!);
    for (const first of firsts) expect(first.checksum).toEqual({ algorithm: 'sha256', value: portal.files.get(first.identifier!)!.sha256 });
    expect(distributions.filter((distribution) => distribution.checksum !== null)).toHaveLength(5);
  });

  it('percent-encodes the spaces of hand-typed resource URLs, and the encoded URL serves the file', async () => {
    const first = pages[0]!.datasets[0]!.distributions[0]!;
    expect(portal.packages[0]!.resources[0]!.url).toBe(`${portal.origin}/files/4f94087e-f833-44b5-b42d-9794550ff0a4/Nomina empleados 2019.csv`);
    expect(first.url).toBe(`${portal.origin}/files/4f94087e-f833-44b5-b42d-9794550ff0a4/Nomina%20empleados%202019.csv`);
    const urls = pages.flatMap((page) => page.datasets).flatMap((dataset) => dataset.distributions.map((distribution) => distribution.url!));
    expect(urls.filter((url) => url.includes(' '))).toEqual([]);
    expect(urls.filter((url) => url.includes('%20')).length).toBeGreaterThanOrEqual(9);
    const response = await fetch(first.url!);
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(portal.files.get(first.identifier!)!.size);
  });

  it('stops at maxPages and says the listing is incomplete, after yielding what it read', async () => {
    const before = portal.requests.length;
    const { pages: read, error } = await readUntilError('ckan', portal.urls.ckan, portal.fetchPage, { pageSize: 1, maxPages: 2 });
    expect(read.map((page) => page.datasets[0]!.identifier)).toEqual(sample.slice(0, 2).map((pkg) => pkg.id));
    expect(error.code).toBe('page-limit');
    expect(error.message).toMatch(/más de 2 páginas/);
    expect(portal.requests.length - before).toBe(2);
  });

  it('tells to check the address and kind when the first page is not there, not when a later one is gone', async () => {
    const missing = 'El catálogo respondió HTTP 404: no hay nada en esa dirección';
    const first = await readUntilError('ckan', portal.urls.ckan, async () => {
      throw new PageNotFoundError(missing);
    });
    expect(first.error.message).toBe(`No se pudo leer la página 1 del catálogo (${first.error.url}): ${missing}. Revise la dirección y el tipo del catálogo.`);
    let asked = 0;
    const later = await readUntilError('ckan', portal.urls.ckan, async (url) => {
      asked += 1;
      if (asked === 2) throw new PageNotFoundError(missing);
      return portal.fetchPage(url);
    }, { pageSize: 1 });
    expect(later.pages).toHaveLength(1);
    expect(later.error.message).toBe(`No se pudo leer la página 2 del catálogo (${later.error.url}): ${missing}`);
  });

  it('refuses an HTML page and a data.json with Spanish errors that say what to do', async () => {
    const html = await readUntilError('ckan', portal.urls.html, portal.fetchPage);
    expect(html.pages).toEqual([]);
    expect(html.error.code).toBe('wrong-kind');
    expect(html.error.message).toMatch(/devolvió una página HTML, no la respuesta JSON de la API de CKAN/);
    const wrong = await readUntilError('ckan', portal.urls.dataJson, portal.fetchPage);
    expect(wrong.error.message).toMatch(/Parece un data.json: elija el tipo data.json/);
    const missing = await readUntilError('ckan', `${portal.origin}/no-existe`, portal.fetchPage);
    expect(missing.error.code).toBe('fetch');
    expect(missing.error.message).toMatch(/No se pudo leer la página 1 del catálogo .*HTTP 404/);
  });
});

describe('the CKAN reader on broken answers', () => {
  it('builds package_search URLs from a portal root or the endpoint, keeping its filters', () => {
    expect(packageSearchUrl('https://datos.gob.do/', 100, 0)).toBe('https://datos.gob.do/api/3/action/package_search?rows=100&start=0');
    expect(packageSearchUrl('https://datos.gob.do/api/3/action/package_search?fq=organization:one', 50, 100)).toBe(
      'https://datos.gob.do/api/3/action/package_search?fq=organization%3Aone&rows=50&start=100',
    );
  });

  it('names one CKAN catalogue alike however its address is spelt, and tells filtered ones apart', () => {
    const portal = catalogIdentity('ckan', 'https://datos.gob.do/api/3/action/package_search');
    for (const spelling of [
      'https://datos.gob.do',
      // One portal over http and over https.
      'http://datos.gob.do/api/3/action/package_search',
      'https://datos.gob.do/',
      'https://datos.gob.do/api/3/action/package_search',
      'https://datos.gob.do/api/action/package_search/',
      'https://datos.gob.do/api/3/action/package_search?rows=10&start=20',
      'https://DATOS.gob.do:443/#arriba',
    ]) {
      expect(catalogIdentity('ckan', spelling), spelling).toBe(portal);
    }
    expect(catalogIdentity('ckan', 'https://datos.gob.do/api/3/action/package_search?q=salud&fq=organization:one')).toBe(
      catalogIdentity('ckan', 'https://datos.gob.do/?fq=organization:one&q=salud'),
    );
    expect(catalogIdentity('ckan', 'https://datos.gob.do/?fq=organization:one')).not.toBe(portal);
    // A portal in a folder of its site is another catalogue than the site's root.
    expect(catalogIdentity('ckan', 'https://datos.gob.do/dataset/')).not.toBe(portal);
    // DCAT and data.json are documents: their address is their identity.
    expect(catalogIdentity('datajson', 'https://datos.gob.ar/data.json#x')).toBe(catalogIdentity('datajson', 'http://datos.gob.ar/data.json'));
    expect(catalogIdentity('datajson', 'https://datos.gob.ar/data.json?')).toBe(catalogIdentity('datajson', 'http://datos.gob.ar/data.json'));
    expect(catalogIdentity('dcat', 'https://datos.gob.ar/catalog.ttl?#')).toBe(catalogIdentity('dcat', 'https://datos.gob.ar/catalog.ttl'));
    expect(catalogIdentity('dcat', 'https://datos.gob.ar/catalog.ttl?page=2')).not.toBe(catalogIdentity('dcat', 'https://datos.gob.ar/catalog.ttl'));
    expect(catalogIdentity('datajson', 'https://datos.gob.ar/data.json')).not.toBe(catalogIdentity('datajson', 'https://datos.gob.ar/otro/data.json'));
    // The same host on another port is another site.
    expect(catalogIdentity('datajson', 'http://datos.gob.ar:8080/data.json')).not.toBe(catalogIdentity('datajson', 'http://datos.gob.ar/data.json'));
    expect(catalogIdentity('dcat', 'https://datos.gob.ar/catalog.jsonld')).not.toBe(catalogIdentity('dcat', 'https://datos.gob.ar/catalog.ttl'));
  });

  it("reports CKAN's own error and a body that is not JSON", async () => {
    const failed = await readUntilError('ckan', 'https://portal.example', answering('{"success": false, "error": {"message": "Acceso denegado"}}', 'application/json'));
    expect(failed.error.code).toBe('catalog-error');
    expect(failed.error.message).toBe('El catálogo CKAN respondió con un error: Acceso denegado.');
    const notJson = await readUntilError('ckan', 'https://portal.example', answering('id;titulo\n1;Nómina', 'text/csv'));
    expect(notJson.error.code).toBe('wrong-kind');
    // In Spanish, without JSON.parse's English nor the body it quotes.
    expect(notJson.error.message).toBe('La respuesta de https://portal.example/api/3/action/package_search?rows=100&start=0 no es JSON válido (no se puede leer), así que no es la respuesta JSON de la API de CKAN (package_search).');
    const broken = await readUntilError('ckan', 'https://portal.example', answering('{"success": true, \u0000}', 'application/json'));
    expect(broken.error.message).toMatch(/no es JSON válido \(falla en el carácter 19\)/);
    expect(broken.error.message).not.toContain('\u0000');
    const cut = await readUntilError('ckan', 'https://portal.example', answering('{"success": true', 'application/json'));
    expect(cut.error.message).toMatch(/no es JSON válido \(acaba antes de tiempo\)/);
  });

  it("resolves a resource given by its path on the portal, as CKAN gives an uploaded file's", async () => {
    const body = JSON.stringify({
      success: true,
      result: { count: 1, results: [{ id: 'p', title: 'P', resources: [{ id: 'r', url: '/dataset/p/resource/r/download/nomina.xlsx', format: '.XLSX' }] }] },
    });
    const [page] = await readAll('ckan', 'https://datos.example.org/portal/', answering(body, 'application/json'));
    expect(page!.datasets[0]!.distributions[0]!.url).toBe('https://datos.example.org/dataset/p/resource/r/download/nomina.xlsx');
  });

  it('skips a package without id or name, and yields a dataset a later page repeats once', async () => {
    const answer = (results: unknown[]) => JSON.stringify({ success: true, result: { count: 3, results } });
    const bodies = [answer([{ id: 'a', title: 'A' }, { title: 'sin identidad' }]), answer([{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }])];
    const fetchPage: FetchPage = async () => ({ body: bodies.shift() ?? answer([]), contentType: 'application/json' });
    const pages = await readAll('ckan', 'https://portal.example', fetchPage, { pageSize: 2 });
    expect(pages.map((page) => page.datasets.map((dataset) => dataset.identifier))).toEqual([['a'], ['b']]);
    expect(pages[0]!.skipped).toEqual(['Un paquete de https://portal.example/api/3/action/package_search?rows=2&start=0 no tiene id ni name: no se puede identificar.']);
    // Listed again, it is no entry that could not be read: the page says it repeated it.
    expect([pages[1]!.skipped, pages[1]!.repeated]).toEqual([[], [{ identifier: 'a', samePage: false }]]);
  });
});

describe('declared values', () => {
  it("reads a declared language as the EU table's IRI, from a code, a tag, an IRI or a name, and guesses nothing else", () => {
    const eu = (code: string) => `http://publications.europa.eu/resource/authority/language/${code}`;
    for (const value of ['es', 'ES', 'es-AR', 'es_DO', 'spa', 'esp', 'Español', 'castellano', eu('SPA'), 'http://lexvo.org/id/iso639-3/spa', 'http://id.loc.gov/vocabulary/iso639-1/es']) {
      expect(cleanLanguage(value), value).toBe(eu('SPA'));
    }
    expect(cleanLanguage('en-US')).toBe(eu('ENG'));
    expect(cleanLanguage('fre')).toBe(eu('FRA'));
    expect(cleanLanguage('ht')).toBe(eu('HAT'));
    expect(cleanLanguage('https://publications.europa.eu/resource/authority/language/spa')).toBe(eu('SPA'));
    expect(cleanLanguage('cze')).toBe(eu('CES'));
    // Three letters that are a word, or no code the table knows.
    for (const value of ['', 'N/A', 'Varios idiomas', 'sin', 'ing', 'cas', eu('spanish'), 42, null]) expect(cleanLanguage(value), String(value)).toBeNull();
  });

  it('reads back, by its BCP 47 tag, every language a moderator may choose, each with a Spanish name', () => {
    // What the settings form offers and the API answers (`languageTag`) must be taken back as the same language.
    expect(KNOWN_LANGUAGES.length).toBeGreaterThan(30);
    for (const iri of KNOWN_LANGUAGES) {
      const tag = languageTag(iri);
      expect(tag, iri).toMatch(/^[a-z]{2,3}$/);
      expect(cleanLanguage(tag), iri).toBe(iri);
      expect(languageName(iri), iri).toMatch(/^\p{Ll}/u);
    }
  });

  it('reads a declared area as an IRI or a place, never a box or a geometry', () => {
    expect(cleanSpatial('http://publications.europa.eu/resource/authority/country/CHL')).toBe('http://publications.europa.eu/resource/authority/country/CHL');
    expect(cleanSpatial('  Región de Valparaíso ')).toBe('Región de Valparaíso');
    expect(cleanSpatial('Provincia:Santo Domingo')).toBe('Provincia:Santo Domingo');
    for (const value of ['{"type": "Polygon", "coordinates": [[[-71.9, 17.5]]]}', 'POLYGON((-71.9 17.5, -68.3 19.9))', '-71.9,17.5,-68.3,19.9', 'javascript:alert(1)', 'urn:ogc:def:crs:EPSG::4326', ' ']) {
      expect(cleanSpatial(value), value).toBeNull();
    }
  });

  it('reads checksums by declared algorithm, prefix or digest length', () => {
    const sha256 = 'A'.repeat(64);
    expect(cleanChecksum(`sha256:${sha256}`)).toEqual({ algorithm: 'sha256', value: 'a'.repeat(64) });
    expect(cleanChecksum('d41d8cd98f00b204e9800998ecf8427e')).toEqual({ algorithm: 'md5', value: 'd41d8cd98f00b204e9800998ecf8427e' });
    expect(cleanChecksum('0'.repeat(40), 'http://spdx.org/rdf/terms#checksumAlgorithm_sha1')).toEqual({ algorithm: 'sha1', value: '0'.repeat(40) });
    expect(cleanChecksum('abc', 'SHA-256')).toEqual({ algorithm: 'sha256', value: 'abc' });
    expect(cleanChecksum('')).toBeNull();
    expect(cleanChecksum('no es un resumen')).toBeNull();
    expect(cleanChecksum('abcdef')).toBeNull();
  });

  it('reads zone-less CKAN times as UTC, keeps declared zones, and a calendar day as that day wherever it is read', () => {
    expect(cleanDate('2019-04-11T16:16:40.809422')?.toISOString()).toBe('2019-04-11T16:16:40.809Z');
    // A day (data.json's, DCAT's `issued`): noon UTC, so Santo Domingo (UTC−4) shows that day, not the one before.
    expect(cleanDate('2019-04-11')?.toISOString()).toBe('2019-04-11T12:00:00.000Z');
    expect(formatDate(cleanDate('2021-01-01')!)).toBe('01/01/2021');
    expect(cleanDate('2021-02-30')).toBeNull();
    expect(cleanDate('2019-04-11T10:00:00-04:00')?.toISOString()).toBe('2019-04-11T14:00:00.000Z');
    expect(cleanDate('ayer')).toBeNull();
    expect(cleanDate('2019-04-11 10:00:00')?.toISOString()).toBe('2019-04-11T10:00:00.000Z');
    expect(cleanDate('2019-04-11T10:00:00-0400')?.toISOString()).toBe('2019-04-11T14:00:00.000Z');
  });

  it('reads a day written day first as Spanish writes it, a year or a month as its first day, and guesses nothing else', () => {
    // 5 March, not 3 May as JavaScript's own parser reads it; 13/03 is the 13th of March, not refused.
    expect(cleanDate('05/03/2021')?.toISOString()).toBe('2021-03-05T12:00:00.000Z');
    expect(cleanDate('13/03/2021')?.toISOString()).toBe('2021-03-13T12:00:00.000Z');
    expect(cleanDate('5-3-2021')?.toISOString()).toBe('2021-03-05T12:00:00.000Z');
    expect(cleanDate('31/02/2021')).toBeNull();
    expect(cleanDate('2021')?.toISOString()).toBe('2021-01-01T12:00:00.000Z');
    expect(cleanDate('2021-07')?.toISOString()).toBe('2021-07-01T12:00:00.000Z');
    // JavaScript's parser makes 2001 of these.
    expect(cleanDate('1')).toBeNull();
    expect(cleanDate('12')).toBeNull();
    expect(cleanDate('R/P1D')).toBeNull();
    expect(cleanDate('Tue Mar 05 2021')).toBeNull();
  });

  it('keeps the other forms catalogues write: a dated day with a zone or slashes, short zones, HTTP dates; and checks the day of a date-time', () => {
    expect(cleanDate('2021-03-05Z')?.toISOString()).toBe('2021-03-05T12:00:00.000Z');
    expect(cleanDate('2021-03-05-04:00')?.toISOString()).toBe('2021-03-05T12:00:00.000Z');
    expect(cleanDate('2021/03/05')?.toISOString()).toBe('2021-03-05T12:00:00.000Z');
    expect(cleanDate('2021-03-05 12:34:56+00')?.toISOString()).toBe('2021-03-05T12:34:56.000Z');
    expect(cleanDate('Fri, 05 Mar 2021 12:00:00 GMT')?.toISOString()).toBe('2021-03-05T12:00:00.000Z');
    expect(cleanDate('2021-02-30T10:00:00Z')).toBeNull();
  });

  it('keeps only http(s) URLs, encoded, resolving relative ones against the page', () => {
    expect(cleanUrl(' http://x.gob.do/Nomina Empleados 2018.csv ')).toBe('http://x.gob.do/Nomina%20Empleados%202018.csv');
    expect(cleanUrl('javascript:alert(1)')).toBeNull();
    expect(cleanUrl('ftp://x.gob.do/a.csv')).toBeNull();
    expect(cleanUrl('?page=2', 'https://x.gob.do/catalog.ttl?page=1')).toBe('https://x.gob.do/catalog.ttl?page=2');
  });
});

const TURTLE = `
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix spdx: <http://spdx.org/rdf/terms#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix hydra: <http://www.w3.org/ns/hydra/core#> .

<https://portal.example/catalog> a dcat:Catalog ; dcat:dataset <https://portal.example/dataset/presupuesto> .

<https://portal.example/dataset/presupuesto> a dcat:Dataset ;
  dct:title "Budget"@en, "Presupuesto"@es, "Presupuesto (sin idioma)" ;
  dct:description "Only in English"@en ;
  dcat:keyword "budget"@en, "presupuesto"@es, "hacienda" ;
  dct:publisher [ a foaf:Agent ; foaf:name "Ministerio de Hacienda"@es ; foaf:homepage <https://hacienda.gob.do/> ] ;
  dcat:theme <http://publications.europa.eu/resource/authority/data-theme/ECON>, "Finanzas" ;
  dcat:distribution <https://portal.example/dataset/presupuesto/resource/1>, [
    dcat:accessURL <https://portal.example/pagina> ;
    dct:format [ a dct:IMT ; rdf:value "XLSX" ] ;
    dcat:mediaType "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
  ] .

<https://portal.example/dataset/presupuesto/resource/1>
  dct:title "Presupuesto 2024"@es ;
  dcat:downloadURL <https://portal.example/files/presupuesto%202024.csv> ;
  dcat:accessURL <https://portal.example/dataset/presupuesto> ;
  dct:format <http://publications.europa.eu/resource/authority/file-type/CSV> ;
  dcat:mediaType <http://www.iana.org/assignments/media-types/text/csv> ;
  dcat:byteSize "2048"^^<http://www.w3.org/2001/XMLSchema#decimal> ;
  dct:license <https://creativecommons.org/licenses/by/4.0/> ;
  spdx:checksum [ spdx:algorithm "SHA-1" ; spdx:checksumValue "${'ab'.repeat(20)}" ] .

<https://portal.example/catalog.ttl?page=1> a hydra:PagedCollection ; hydra:totalItems 1 ; hydra:nextPage "?page=2" .
`;

describe('the DCAT reader on what the graph states', () => {
  it('prefers Spanish, then untagged, then any language; keywords in other languages drop out', async () => {
    const fetchPage = answering(TURTLE, 'text/turtle');
    const { pages, error } = await readUntilError('dcat', 'https://portal.example/catalog.ttl?page=1', fetchPage);
    const dataset = pages[0]!.datasets[0]!;
    expect(dataset.identifier).toBe('https://portal.example/dataset/presupuesto');
    expect(dataset.title).toBe('Presupuesto');
    expect(dataset.description).toBe('Only in English');
    expect(dataset.keywords.sort()).toEqual(['hacienda', 'presupuesto']);
    expect(dataset.publisher).toEqual({ identifier: null, name: 'Ministerio de Hacienda', homepage: 'https://hacienda.gob.do/', acronym: null });
    expect(dataset.themes).toEqual([
      { identifier: 'http://publications.europa.eu/resource/authority/data-theme/ECON', label: null },
      { identifier: 'Finanzas', label: 'Finanzas' },
    ]);
    // ckanext-dcat's licence on the distribution stands for the dataset's.
    expect(dataset.license).toEqual({ title: null, url: 'https://creativecommons.org/licenses/by/4.0/' });
    // The relative literal nextPage was followed; the same document again is a loop.
    expect(fetchPage.calls).toEqual(['https://portal.example/catalog.ttl?page=1', 'https://portal.example/catalog.ttl?page=2']);
    expect(error.code).toBe('paging-loop');
  });

  it('reads formats, media types, sizes and checksums however they are stated', async () => {
    const { pages } = await readUntilError('dcat', 'https://portal.example/catalog.ttl?page=1', answering(TURTLE, null));
    const distributions = pages[0]!.datasets[0]!.distributions;
    expect(distributions).toHaveLength(2);
    expect(distributions.find((distribution) => distribution.identifier !== null)).toEqual({
      identifier: 'https://portal.example/dataset/presupuesto/resource/1',
      url: 'https://portal.example/files/presupuesto%202024.csv',
      accessUrl: 'https://portal.example/dataset/presupuesto',
      title: 'Presupuesto 2024',
      format: 'CSV',
      mediaType: 'text/csv',
      byteSize: 2048,
      checksum: { algorithm: 'sha1', value: 'ab'.repeat(20) },
    });
    expect(distributions.find((distribution) => distribution.identifier === null)).toMatchObject({
      url: 'https://portal.example/pagina',
      accessUrl: null,
      format: 'XLSX',
      mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      byteSize: null,
      checksum: null,
    });
  });

  it('keeps a badly escaped file-type code as written instead of failing the whole catalogue', async () => {
    const turtle = [
      '@prefix dcat: <http://www.w3.org/ns/dcat#> .',
      '@prefix dct: <http://purl.org/dc/terms/> .',
      '<https://portal.example/d/1> a dcat:Dataset ; dct:identifier "d-1" ; dct:title "Uno" ; dcat:distribution <https://portal.example/d/1/f> .',
      '<https://portal.example/d/1/f> a dcat:Distribution ; dcat:downloadURL <https://portal.example/f.csv> ;',
      '  dct:format <http://publications.europa.eu/resource/authority/file-type/%E0%A4%A> .',
    ].join('\n');
    const [page] = await readAll('dcat', 'https://portal.example/catalog.ttl', answering(turtle, 'text/turtle'));
    expect(page!.datasets.map((dataset) => dataset.identifier)).toEqual(['d-1']);
    expect(page!.datasets[0]!.distributions[0]!.format).toBe('%E0%A4%A');
  });

  it('refuses JSON that is not DCAT, HTML, XML that is not RDF, and broken Turtle and RDF/XML, in Spanish', async () => {
    const ckan = await readUntilError('dcat', 'https://portal.example/x', answering('{"success": true, "result": {"count": 0, "results": []}}', 'application/json'));
    expect(ckan.error.message).toMatch(/no describe ningún dcat:Catalog ni dcat:Dataset: no es un catálogo DCAT\. Parece una respuesta de la API de CKAN/);
    const html = await readUntilError('dcat', 'https://portal.example/x', answering('<!doctype html><title>Inicio</title>', null));
    expect(html.error.message).toMatch(/devolvió una página HTML, no un catálogo DCAT/);
    const atom = await readUntilError('dcat', 'https://portal.example/x', answering('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>', 'application/xml'));
    expect(atom.error.message).toBe('https://portal.example/x sirve XML que no es RDF/XML (no tiene la raíz rdf:RDF), así que no es un catálogo DCAT.');
    // Cut short: its elements are left open.
    const brokenXml = await readUntilError('dcat', 'https://portal.example/x', answering('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description>', 'application/rdf+xml'));
    expect(brokenXml.error.code).toBe('wrong-kind');
    expect(brokenXml.error.message).toMatch(/^https:\/\/portal\.example\/x no es un catálogo DCAT en RDF\/XML válido: /);
    const empty = await readUntilError('dcat', 'https://portal.example/x', answering('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>', 'application/rdf+xml'));
    expect(empty.error.message).toMatch(/no describe ningún dcat:Catalog ni dcat:Dataset: no es un catálogo DCAT/);
    const broken = await readUntilError('dcat', 'https://portal.example/x', answering('@prefix dcat: <http://www.w3.org/ns/dcat#> .\n<a> a dcat:Dataset ;; ]', 'text/turtle'));
    expect(broken.error.code).toBe('wrong-kind');
    expect(broken.error.message).toMatch(/no es un catálogo DCAT en Turtle válido/);
  });

  it("tells what is wrong with broken Turtle in Spanish, with its line, and quotes what it cannot translate", async () => {
    const reasonFor = async (turtle: string) => {
      const { error } = await readUntilError('dcat', 'https://portal.example/catalog.ttl', answering(turtle, 'text/turtle'));
      expect(error.code).toBe('wrong-kind');
      return error.message.replace('https://portal.example/catalog.ttl no es un catálogo DCAT en Turtle válido: ', '');
    };
    const prefix = '@prefix dcat: <http://www.w3.org/ns/dcat#> .\n';
    expect(await reasonFor(`${prefix}<a> a dcat:Catalog ;\n dcat:dataset <b>\n<c> a dcat:Dataset .`)).toBe(
      'en la línea 4, falta el punto (o la coma o el punto y coma) que cierra una tripleta',
    );
    expect(await reasonFor(`${prefix}<a> a foaf:Agent .`)).toBe('en la línea 2, usa el prefijo «foaf:» sin declararlo con @prefix');
    expect(await reasonFor(`${prefix}<a> a dcat:Dataset ;\n  dcat:keyword "salud`)).toBe('en la línea 3, aparece «"salud», que no es Turtle');
    expect(await reasonFor(`${prefix}<a> a\n`)).toBe('en la línea 3, el documento termina antes de tiempo (¿la página llegó cortada?)');
    expect(await reasonFor(`${prefix}<a> a .`)).toBe('en la línea 2, se esperaba un IRI, un nombre con prefijo o un valor, y aparece «.»');
    expect(await reasonFor(`${prefix}<a> a dcat:Dataset ;; ]`)).toMatch(/^en la línea 2, /);
    const { error } = await readUntilError('dcat', 'https://portal.example/catalog.jsonld', answering('{"@context": 5, "@id": "x"}', 'application/ld+json'));
    expect(error.message).toBe('https://portal.example/catalog.jsonld no es JSON-LD válido, según jsonld.js: «@context must be an object.»');
    // A long token is quoted in part: the reason stays readable, and whole when stored.
    const token = `"${'x'.repeat(5_000)}`;
    expect(await reasonFor(`${prefix}<a> a dcat:Dataset ;\n  dcat:keyword ${token}`)).toBe(`en la línea 3, aparece «${token.slice(0, 80)}…», que no es Turtle`);
    // An object that spans lines (a long literal) before a missing dot is told as the others.
    expect(await reasonFor(`${prefix}<a> dcat:keyword """una\ndos"""\n<b> a dcat:Dataset .`)).toBe('en la línea 4, falta el punto (o la coma o el punto y coma) que cierra una tripleta');
    // A message without a translation keeps N3.js's words, quoted, after the Spanish.
    expect(await reasonFor(`${prefix}<a> _:b <c> .`)).toBe('en la línea 2, error de sintaxis (N3.js: «Disallowed blank node as predicate»)');
  });
});

describe('the readers on what real portals publish beyond the examples', () => {
  /** A fetcher that answers each URL with its own document, and a 404 for any other. */
  const serving = (documents: Record<string, [string, string | null]>): FetchPage => async (url) => {
    const document = documents[url];
    if (!document) throw new PageNotFoundError(url);
    return { body: document[0], contentType: document[1] };
  };
  const DCAT_PREFIXES = ['@prefix dcat: <http://www.w3.org/ns/dcat#> .', '@prefix dct: <http://purl.org/dc/terms/> .', '@prefix foaf: <http://xmlns.com/foaf/0.1/> .'];

  it('DCAT: a page lists every dataset but describes some (uData): only those it describes are its datasets', async () => {
    const listing = 'dcat:dataset <https://p.example/d/1>, <https://p.example/d/2>, <https://p.example/d/3>';
    const page = (described: number[], next: string | null) =>
      [
        ...DCAT_PREFIXES,
        '@prefix hydra: <http://www.w3.org/ns/hydra/core#> .',
        `<https://p.example/catalog> a dcat:Catalog ; dct:publisher [ foaf:name "Ministerio de Hacienda" ] ; ${listing} .`,
        ...described.map((n) => `<https://p.example/d/${n}> a dcat:Dataset ; dct:identifier "${n}" ; dct:title "Conjunto ${n}" .`),
        `<https://p.example/catalog.ttl?page=1> a hydra:PagedCollection ; hydra:totalItems 3${next ? ` ; hydra:nextPage "${next}"` : ''} .`,
      ].join('\n');
    const pages = await readAll(
      'dcat',
      'https://p.example/catalog.ttl?page=1',
      serving({
        'https://p.example/catalog.ttl?page=1': [page([1, 2], 'https://p.example/catalog.ttl?page=2'), 'text/turtle'],
        'https://p.example/catalog.ttl?page=2': [page([3], null), 'text/turtle'],
      }),
    );
    expect(pages.map((one) => one.datasets.map((dataset) => dataset.identifier).sort())).toEqual([['1', '2'], ['3']]);
    // A dataset that names no publisher is the catalogue's (DCAT-AP makes the catalogue's mandatory).
    expect(pages[1]!.datasets[0]!.publisher).toMatchObject({ name: 'Ministerio de Hacienda' });
  });

  it("DCAT: a dataset takes the publisher of the catalogue that lists it, never another's; a page that only names datasets says so", async () => {
    const two = [
      ...DCAT_PREFIXES,
      '<https://p.example/a> a dcat:Catalog ; dct:publisher [ foaf:name "Ministerio A" ] ; dcat:dataset <https://p.example/d/1> .',
      '<https://p.example/b> a dcat:Catalog ; dct:publisher [ foaf:name "Ministerio B" ] ; dcat:dataset <https://p.example/d/2> .',
      '<https://p.example/d/1> a dcat:Dataset ; dct:title "Uno" .',
      '<https://p.example/d/2> a dcat:Dataset ; dct:title "Dos" .',
      '<https://p.example/d/3> a dcat:Dataset ; dct:title "Tres" .',
    ].join('\n');
    const [page] = await readAll('dcat', 'https://p.example/catalog.ttl', answering(two, 'text/turtle'));
    const publisherOf = (title: string) => page!.datasets.find((dataset) => dataset.title === title)!.publisher?.name ?? null;
    expect([publisherOf('Uno'), publisherOf('Dos'), publisherOf('Tres')]).toEqual(['Ministerio A', 'Ministerio B', null]);

    // A catalogue that lists the addresses of its datasets' own documents: read as nothing, and said.
    const listing = [...DCAT_PREFIXES, '<https://p.example/c> a dcat:Catalog ; dcat:dataset <https://p.example/d/1>, <https://p.example/d/2> .'].join('\n');
    const [listed] = await readAll('dcat', 'https://p.example/c.ttl', answering(listing, 'text/turtle'));
    expect(listed!.datasets).toEqual([]);
    expect(listed!.skipped).toEqual([
      'La página https://p.example/c.ttl nombra 2 conjunto(s) de datos sin describir ninguno (el archivo no abre la dirección de cada uno): no se leen.',
    ]);
    // Only typed, nothing more: named, not described; not «no DCAT at all».
    const typed = await readAll('dcat', 'https://p.example/t.ttl', answering('<https://p.example/d/9> a <http://www.w3.org/ns/dcat#Dataset> .', 'text/turtle'));
    expect(typed[0]!.skipped).toHaveLength(1);
  });

  it("DCAT: datos.gob.es's frequency nodes (OWL-Time durations) and format nodes (label and media type); a size of 0 is unknown", async () => {
    const turtle = [
      ...DCAT_PREFIXES,
      '@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .',
      '@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .',
      '@prefix time: <http://www.w3.org/2006/time#> .',
      '<https://p.example/d/1> a dcat:Dataset ; dct:identifier "1" ; dct:title "Uno" ;',
      '  dct:accrualPeriodicity <https://p.example/d/1/Frequency> ; dcat:distribution <https://p.example/d/1/f> .',
      '<https://p.example/d/1/Frequency> a dct:Frequency ; rdf:value <https://p.example/d/1/DurationDescription> .',
      '<https://p.example/d/1/DurationDescription> a time:DurationDescription ; time:years 1.0 .',
      '<https://p.example/d/1/f> a dcat:Distribution ; dcat:accessURL <https://p.example/f.xls> ; dcat:byteSize 0 ;',
      '  dct:format [ a dct:IMT ; rdfs:label "XLS" ; rdf:value "application/vnd.ms-excel" ] .',
      '<https://p.example/d/2> a dcat:Dataset ; dct:identifier "2" ; dct:title "Dos" ;',
      '  dct:accrualPeriodicity <http://publications.europa.eu/resource/authority/frequency/MONTHLY> .',
    ].join('\n');
    const [page] = await readAll('dcat', 'https://p.example/catalog.ttl', answering(turtle, 'text/turtle'));
    const byId = new Map(page!.datasets.map((dataset) => [dataset.identifier, dataset]));
    expect(byId.get('1')!.updateFrequency).toBe('R/P1Y');
    // Other durations: weeks alone or as days beside other components (ISO 8601), times after T,
    // and nothing from an amount that is no number of them.
    const frequencyOf = async (duration: string) => {
      const document = turtle.replace('time:years 1.0', duration);
      const [read] = await readAll('dcat', 'https://p.example/catalog.ttl', answering(document, 'text/turtle'));
      return read!.datasets.find((dataset) => dataset.identifier === '1')!.updateFrequency;
    };
    expect(await frequencyOf('time:weeks 2')).toBe('R/P2W');
    expect(await frequencyOf('time:months 1 ; time:weeks 2')).toBe('R/P1M14D');
    expect(await frequencyOf('time:hours 12')).toBe('R/PT12H');
    expect(await frequencyOf('time:years "INF"^^<http://www.w3.org/2001/XMLSchema#double>')).toBeNull();
    expect(byId.get('2')!.updateFrequency).toBe('http://publications.europa.eu/resource/authority/frequency/MONTHLY');
    expect(byId.get('1')!.distributions[0]).toMatchObject({ url: 'https://p.example/f.xls', format: 'XLS', mediaType: 'application/vnd.ms-excel', byteSize: null });
  });

  it('DCAT: Turtle that opens with a relative IRI is read; RDF/XML sent as text/plain, XML or untyped is read; a data.json read as DCAT is told so', async () => {
    const relative = '<#catalogo> a <http://www.w3.org/ns/dcat#Catalog> ; <http://www.w3.org/ns/dcat#dataset> <#d1> .\n<#d1> a <http://www.w3.org/ns/dcat#Dataset> ; <http://purl.org/dc/terms/title> "Uno" .';
    const [page] = await readAll('dcat', 'https://p.example/catalogo.ttl', answering(relative, null));
    expect(page!.datasets.map((dataset) => [dataset.identifier, dataset.title])).toEqual([['https://p.example/catalogo.ttl#d1', 'Uno']]);
    for (const contentType of [null, 'text/plain', 'application/xml', 'text/xml; charset=utf-8']) {
      const rdfXml = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:dct="http://purl.org/dc/terms/">',
        '<rdf:Description rdf:about="#d1"><rdf:type rdf:resource="http://www.w3.org/ns/dcat#Dataset"/><dct:title>Uno</dct:title></rdf:Description>',
        '</rdf:RDF>',
      ].join('\n');
      const [rdfPage] = await readAll('dcat', 'https://p.example/catalog.rdf', answering(rdfXml, contentType));
      expect(rdfPage!.datasets.map((dataset) => [dataset.identifier, dataset.title]), String(contentType)).toEqual([['https://p.example/catalog.rdf#d1', 'Uno']]);
    }
    for (const markup of ['<html><body>Mantenimiento</body></html>', '<p>Error 500</p>', '<title>Inicio</title>', '<div><span>x</span></div>']) {
      const html = await readUntilError('dcat', 'https://p.example/x', answering(markup, null));
      expect(html.error.message, markup).toMatch(/devolvió una página HTML/);
    }
    // JSON-LD or Turtle that merely mentions RDF/XML's root is read as what it is.
    const mentions = await readAll('dcat', 'https://p.example/c.ttl', answering(`# Antes: <rdf:RDF> en catalog.rdf\n${relative}`, 'text/plain'));
    expect(mentions[0]!.datasets).toHaveLength(1);
    // ArcGIS Hub's data.json names DCAT-US's context, which is never fetched.
    const dataJson = JSON.stringify({ '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld', '@type': 'dcat:Catalog', dataset: [] });
    const { error } = await readUntilError('dcat', 'https://p.example/data.json', answering(dataJson, 'application/json'));
    expect(error.code).toBe('remote-context');
    expect(error.message).toMatch(/usa un @context remoto .* Parece un data\.json: elija el tipo data\.json\.$/);
    // Compact DCAT JSON-LD has a `dataset` list too: no hint to choose what was chosen.
    const compact = JSON.stringify({ '@context': 'https://p.example/contexto.jsonld', '@type': 'dcat:Catalog', dataset: [] });
    const refused = await readUntilError('dcat', 'https://p.example/catalog.jsonld', answering(compact, 'application/ld+json'));
    expect(refused.error.message).toMatch(/el catálogo debe llevar su contexto en línea\.$/);
  });

  it('reads a dataset listed again once, and says whether it came again on its own page or on a later one (the pages moved)', async () => {
    // data.json: one document that lists «a» twice.
    const twice = JSON.stringify({ dataset: [{ identifier: 'a', title: 'A' }, { identifier: 'b', title: 'B' }, { identifier: 'a', title: 'A otra vez' }] });
    const [document] = await readAll('datajson', 'https://p.example/data.json', answering(twice, 'application/json'));
    expect(document!.datasets.map((dataset) => dataset.title)).toEqual(['A', 'B']);
    expect([document!.repeated, document!.skipped]).toEqual([[{ identifier: 'a', samePage: true }], []]);
    // CKAN, two at a time: a dataset added at the front after the first page moves «b» onto the second.
    const pages: Record<string, string[]> = { '0': ['a', 'b'], '2': ['b', 'c'], '4': [] };
    const shifting: FetchPage = async (url) => {
      const results = pages[new URL(url).searchParams.get('start') ?? '0']!.map((id) => ({ id, name: id, title: id.toUpperCase() }));
      return { body: JSON.stringify({ success: true, result: { count: 3, results } }), contentType: 'application/json' };
    };
    const read = await readAll('ckan', 'https://p.example/api/3/action/package_search', shifting, { pageSize: 2 });
    expect(read.map((page) => page.datasets.map((dataset) => dataset.identifier))).toEqual([['a', 'b'], ['c']]);
    expect(read.map((page) => page.repeated)).toEqual([[], [{ identifier: 'b', samePage: false }]]);
    expect(read.flatMap((page) => page.skipped)).toEqual([]);
  });

  it('reads the languages and areas each kind declares: CKAN (ckanext-dcat fields and extras), data.json and DCAT (the catalogue\'s area for a dataset that states none)', async () => {
    const spain = 'http://publications.europa.eu/resource/authority/country/ESP';
    const ckan = answering(
      JSON.stringify({
        success: true,
        result: {
          count: 3,
          results: [
            { id: 'a', name: 'a', title: 'A', language: ['http://publications.europa.eu/resource/authority/language/SPA', 'en'], extras: [{ key: 'spatial_uri', value: spain }, { key: 'spatial_text', value: 'España' }, { key: 'spatial', value: '{"type": "Point", "coordinates": [-3.7, 40.4]}' }] },
            { id: 'b', name: 'b', title: 'B', extras: [{ key: 'language', value: '["es", "ca"]' }, { key: 'spatial_text', value: 'Cataluña' }] },
            { id: 'c', name: 'c', title: 'C' },
          ],
        },
      }),
      'application/json',
    );
    const [ckanPage] = await readAll('ckan', 'https://p.example/api/3/action/package_search', ckan);
    const eu = (code: string) => `http://publications.europa.eu/resource/authority/language/${code}`;
    expect(ckanPage!.datasets.map((dataset) => [dataset.identifier, dataset.languages, dataset.spatial])).toEqual([
      ['a', [eu('SPA'), eu('ENG')], [spain]],
      ['b', [eu('SPA'), eu('CAT')], ['Cataluña']],
      ['c', [], []],
    ]);
    const dataJson = JSON.stringify({ dataset: [{ identifier: 'x', title: 'X', language: ['es-AR'], spatial: 'Provincia de Buenos Aires' }, { identifier: 'y', title: 'Y', language: 'es, en', spatial: '-58.5,-34.7,-58.3,-34.5' }] });
    const [jsonPage] = await readAll('datajson', 'https://p.example/data.json', answering(dataJson, 'application/json'));
    expect(jsonPage!.datasets.map((dataset) => [dataset.languages, dataset.spatial])).toEqual([
      [[eu('SPA')], ['Provincia de Buenos Aires']],
      [[eu('SPA'), eu('ENG')], []],
    ]);
    const turtle = [
      ...DCAT_PREFIXES,
      '@prefix locn: <http://www.w3.org/ns/locn#> .',
      `<https://p.example/catalog> a dcat:Catalog ; dct:language <${eu('SPA')}> ; dct:spatial <${spain}> ; dcat:dataset <https://p.example/d/1>, <https://p.example/d/2> .`,
      `<https://p.example/d/1> a dcat:Dataset ; dct:identifier "1" ; dct:title "Uno" ; dct:language <${eu('ENG')}>, "fr" ; dct:spatial [ a dct:Location ; locn:geographicName "Madrid"@es ] .`,
      '<https://p.example/d/2> a dcat:Dataset ; dct:identifier "2" ; dct:title "Dos" .',
    ].join('\n');
    const [dcatPage] = await readAll('dcat', 'https://p.example/catalog.ttl', answering(turtle, 'text/turtle'));
    const byId = new Map(dcatPage!.datasets.map((dataset) => [dataset.identifier, dataset]));
    expect([byId.get('1')!.languages.sort(), byId.get('1')!.spatial]).toEqual([[eu('ENG'), eu('FRA')], ['Madrid']]);
    // The catalogue's area is its datasets'; its language is that of its descriptions, not of the data.
    expect([byId.get('2')!.languages, byId.get('2')!.spatial]).toEqual([[], [spain]]);
  });

  it("DCAT: RDF/XML as ckanext-dcat writes catalog.rdf (typed nodes, nested distributions, Hydra paging) reads as its Turtle would", async () => {
    const page = (n: number, next: string | null) =>
      [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:dct="http://purl.org/dc/terms/"',
        '  xmlns:foaf="http://xmlns.com/foaf/0.1/" xmlns:hydra="http://www.w3.org/ns/hydra/core#" xmlns:spdx="http://spdx.org/rdf/terms#" xmlns:xsd="http://www.w3.org/2001/XMLSchema#">',
        '  <hydra:PagedCollection rdf:about="https://p.example/catalog.rdf?page=' + n + '">',
        '    <hydra:totalItems rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">2</hydra:totalItems>',
        next ? `    <hydra:nextPage>${next}</hydra:nextPage>` : '',
        '  </hydra:PagedCollection>',
        '  <dcat:Catalog rdf:about="https://p.example/catalog"><dcat:dataset rdf:resource="https://p.example/dataset/d' + n + '"/></dcat:Catalog>',
        '  <dcat:Dataset rdf:about="https://p.example/dataset/d' + n + '">',
        `    <dct:identifier>d-${n}</dct:identifier>`,
        `    <dct:title>Ejecución presupuestaria &amp; deuda ${n}</dct:title>`,
        '    <dct:issued rdf:datatype="http://www.w3.org/2001/XMLSchema#dateTime">2024-01-15T10:00:00</dct:issued>',
        '    <dcat:keyword>presupuesto</dcat:keyword>',
        '    <dcat:theme rdf:resource="http://publications.europa.eu/resource/authority/data-theme/ECON"/>',
        '    <dct:publisher><foaf:Organization rdf:about="https://p.example/organization/hacienda"><foaf:name>Ministerio de Hacienda</foaf:name></foaf:Organization></dct:publisher>',
        '    <dcat:distribution>',
        `      <dcat:Distribution rdf:about="https://p.example/dataset/d${n}/resource/r1">`,
        `        <dcat:downloadURL rdf:resource="https://p.example/files/d${n}.csv"/>`,
        '        <dct:format>CSV</dct:format>',
        '        <dcat:byteSize rdf:datatype="http://www.w3.org/2001/XMLSchema#decimal">5120</dcat:byteSize>',
        '        <spdx:checksum><spdx:Checksum><spdx:algorithm rdf:resource="http://spdx.org/rdf/terms#checksumAlgorithm_sha256"/>',
        `          <spdx:checksumValue>${'a'.repeat(64)}</spdx:checksumValue></spdx:Checksum></spdx:checksum>`,
        '      </dcat:Distribution>',
        '    </dcat:distribution>',
        '  </dcat:Dataset>',
        '</rdf:RDF>',
      ].join('\n');
    const fetcher = serving({
      'https://p.example/catalog.rdf': [page(1, 'https://p.example/catalog.rdf?page=2'), 'application/rdf+xml; charset=utf-8'],
      'https://p.example/catalog.rdf?page=2': [page(2, null), 'application/rdf+xml; charset=utf-8'],
    });
    const pages = await readAll('dcat', 'https://p.example/catalog.rdf', fetcher);
    expect(pages.map((one) => one.datasets.map((dataset) => dataset.identifier))).toEqual([['d-1'], ['d-2']]);
    expect(pages.map((one) => one.total)).toEqual([2, 2]);
    const [first] = pages[0]!.datasets;
    expect(first).toMatchObject({ title: 'Ejecución presupuestaria & deuda 1', keywords: ['presupuesto'], publisher: { name: 'Ministerio de Hacienda' } });
    expect(first!.issued?.toISOString().slice(0, 10)).toBe('2024-01-15');
    expect(first!.distributions).toEqual([
      expect.objectContaining({ url: 'https://p.example/files/d1.csv', format: 'CSV', byteSize: 5120, checksum: { algorithm: 'sha256', value: 'a'.repeat(64) } }),
    ]);
  });

  it('DCAT: RDF/XML entities: IRI abbreviations are read; a bomb, a flood of references or a file of the server never is', async () => {
    const root = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:dct="http://purl.org/dc/terms/">';
    const dataset = (title: string) => `${root}<dcat:Dataset rdf:about="https://p.example/d"><dct:title>${title}</dct:title></dcat:Dataset></rdf:RDF>`;
    const refused = async (body: string) => (await readUntilError('dcat', 'https://p.example/catalog.rdf', answering(body, 'application/rdf+xml'))).error;
    // A value of a megabyte named hundreds of times: one string of 400 MB, had it been expanded.
    const long = await refused(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY a "${'a'.repeat(1_000_000)}">]>${dataset('&a;'.repeat(400))}`);
    const nested = await refused(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "${'&a;'.repeat(10)}">]>${dataset('&b;')}`);
    const external = await refused(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM "file:///etc/passwd">]>${dataset('&x;')}`);
    for (const error of [long, nested, external]) {
      expect(error.code).toBe('wrong-kind');
      expect(error.message).toBe(
        'https://p.example/catalog.rdf declara entidades XML que el archivo no lee (externas, de parámetro, anidadas o de más de 256 caracteres): un catálogo DCAT en RDF/XML no las necesita.',
      );
    }
    // Short values, but so many references that they would add more than the page holds.
    const flood = await refused(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY a "${'a'.repeat(200)}">]>${dataset('&a;'.repeat(1000))}`);
    expect(flood.message).toMatch(/^https:\/\/p\.example\/catalog\.rdf usa sus entidades XML tantas veces que ocuparían 200,000 caracteres, más que la página misma/);
    const redefined = await refused(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY amp "y">]>${dataset('Salud &amp; educación')}`);
    expect(redefined.message).toBe('https://p.example/catalog.rdf redefine una entidad propia de XML (amp, lt, gt, quot o apos), y el archivo no la lee.');
    const many = await refused(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [${Array.from({ length: 65 }, (_, i) => `<!ENTITY e${i} "x">`).join('')}]>${dataset('&e1;')}`);
    expect(many.message).toBe('https://p.example/catalog.rdf declara 65 entidades XML, más de las 64 que el archivo lee.');
    // The idiom RDF/XML writers use, an IRI abbreviated; and the predefined ones and character references.
    const idiom = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE rdf:RDF [<!ENTITY xsd "http://www.w3.org/2001/XMLSchema#"> <!ENTITY dcat "http://www.w3.org/ns/dcat#">]>',
      root,
      '<rdf:Description rdf:about="https://p.example/d"><rdf:type rdf:resource="&dcat;Dataset"/>',
      '<dct:title>Salud &amp; educaci&#243;n</dct:title><dct:issued rdf:datatype="&xsd;date">2024-03-05</dct:issued></rdf:Description></rdf:RDF>',
    ].join('\n');
    const [page] = await readAll('dcat', 'https://p.example/catalog.rdf', answering(idiom, 'application/rdf+xml'));
    expect(page!.datasets[0]).toMatchObject({ title: 'Salud & educación' });
    expect(page!.datasets[0]!.issued?.toISOString().slice(0, 10)).toBe('2024-03-05');
  });

  it('DCAT: an HTML page served as RDF/XML or Turtle is named as HTML; what the XML parser says of a page cut short is told in Spanish', async () => {
    for (const type of ['application/rdf+xml', 'text/turtle']) {
      const { error } = await readUntilError('dcat', 'https://p.example/catalog.rdf', answering('<!DOCTYPE html><html><body>Error</body></html>', type));
      expect(error.message, type).toBe('https://p.example/catalog.rdf devolvió una página HTML, no un catálogo DCAT. Revise la dirección y el tipo del catálogo.');
    }
    // A character outside the BMP (two UTF-16 units) across the parser's 64 KB slices is read whole.
    const head = '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:dct="http://purl.org/dc/terms/"><dcat:Dataset rdf:about="https://p.example/d"><dct:title>';
    const title = `${'a'.repeat(65_535 - head.length)}😀b`;
    // Its first half is the last unit of the first slice.
    expect((head + title).charCodeAt(65_535)).toBe(0xd83d);
    const [emoji] = await readAll('dcat', 'https://p.example/catalog.rdf', answering(`${head}${title}</dct:title></dcat:Dataset></rdf:RDF>`, 'application/rdf+xml'));
    expect(emoji!.datasets[0]!.title.endsWith('😀b')).toBe(true);
    const cut = dcatPageOf(3, 'rdfxml').slice(0, -40);
    const { error } = await readUntilError('dcat', 'https://p.example/catalog.rdf', answering(cut, 'application/rdf+xml'));
    expect(error.message).toMatch(/no es un catálogo DCAT en RDF\/XML válido: .*la etiqueta \S+ no se cierra \(¿la página llegó cortada\?\)/);
  });

  it('DCAT: in RDF/XML, one download URL with a space loses nothing else of its page; a real error is told as itself', async () => {
    const root = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:dct="http://purl.org/dc/terms/">';
    const body = [
      root,
      '<dcat:Dataset rdf:about="https://p.example/d/1"><dct:identifier>1</dct:identifier><dct:title>Uno</dct:title>',
      '<dcat:distribution><dcat:Distribution rdf:about="https://p.example/d/1/r"><dcat:downloadURL rdf:resource="https://p.example/files/mi archivo.csv"/></dcat:Distribution></dcat:distribution></dcat:Dataset>',
      '<dcat:Dataset rdf:about="https://p.example/d/2"><dct:identifier>2</dct:identifier><dct:title>Dos</dct:title></dcat:Dataset>',
      '</rdf:RDF>',
    ].join('');
    const [page] = await readAll('dcat', 'https://p.example/catalog.rdf', answering(body, 'application/rdf+xml'));
    expect(page!.datasets.map((dataset) => dataset.title).sort()).toEqual(['Dos', 'Uno']);
    expect(page!.datasets.find((dataset) => dataset.title === 'Uno')!.distributions[0]!.url).toBe('https://p.example/files/mi%20archivo.csv');
    // Two names for one node is RDF/XML's own error, not a cut-short page's.
    const misplaced = `${root}<rdf:Description rdf:about="https://p.example/d/3" rdf:nodeID="b3"/></rdf:RDF>`;
    const { error } = await readUntilError('dcat', 'https://p.example/catalog.rdf', answering(misplaced, 'application/rdf+xml'));
    expect(error.message).toMatch(/^https:\/\/p\.example\/catalog\.rdf no es un catálogo DCAT en RDF\/XML válido: /);
    expect(error.message).toMatch(/Only one of rdf:about, rdf:nodeID and rdf:ID can be present/);
  });

  it("CKAN: ckanext-dcat's DCAT-AP fields (declared dates, theme IRIs, vocabulary formats, resource licence, contact and publisher lists, coverage); a size of 0 is unknown", async () => {
    const pkg = {
      id: 'x',
      name: 'x',
      title: 'Equis',
      issued: '2020-01-01',
      modified: '2021-02-03T10:00:00',
      metadata_created: '2024-06-01T00:00:00',
      metadata_modified: '2024-06-02T00:00:00',
      theme: ['http://publications.europa.eu/resource/authority/data-theme/ECON', 'http://publications.europa.eu/resource/authority/data-theme/ECON'],
      contact: [{ name: 'Oficina de datos', email: 'datos@p.example' }],
      publisher: [{ name: 'Ministerio de Economía', uri: 'https://p.example/org/mepyd', url: 'https://mepyd.p.example/' }],
      temporal_coverage: [{ start: '2019-01-01', end: '2019-12-31' }],
      resources: [
        {
          id: 'r',
          url: 'https://p.example/download?id=7',
          format: 'http://publications.europa.eu/resource/authority/file-type/CSV',
          mimetype: 'http://www.iana.org/assignments/media-types/text/csv',
          license: 'http://creativecommons.org/licenses/by/4.0/',
          size: 0,
        },
      ],
    };
    const body = JSON.stringify({ success: true, result: { count: 1, results: [pkg] } });
    const [page] = await readAll('ckan', 'https://p.example', answering(body, 'application/json'));
    const dataset = page!.datasets[0]!;
    // A calendar day is kept as its noon in UTC (`calendarDayDate`), the same day wherever it is read.
    expect(dataset.issued?.toISOString()).toBe('2020-01-01T12:00:00.000Z');
    expect(dataset.modified?.toISOString()).toBe('2021-02-03T10:00:00.000Z');
    expect(dataset.themes).toEqual([{ identifier: 'http://publications.europa.eu/resource/authority/data-theme/ECON', label: null }]);
    expect(dataset.license).toEqual({ title: null, url: 'http://creativecommons.org/licenses/by/4.0/' });
    expect(dataset.contact).toMatchObject({ name: 'Oficina de datos', email: 'datos@p.example' });
    expect(dataset.publisher).toEqual({ identifier: 'https://p.example/org/mepyd', name: 'Ministerio de Economía', homepage: 'https://mepyd.p.example/', acronym: null });
    expect(dataset.temporal).toMatchObject({ start: '2019-01-01', end: '2019-12-31' });
    expect(dataset.distributions[0]).toMatchObject({ format: 'CSV', mediaType: 'text/csv', byteSize: null });
    // Tags given as one comma-separated string, as some portals' APIs do.
    const tagged = JSON.stringify({ success: true, result: { count: 1, results: [{ id: 'y', name: 'y', tags: 'salud, hospitales ,' }] } });
    const [other] = await readAll('ckan', 'https://p.example', answering(tagged, 'application/json'));
    expect(other!.datasets[0]!.keywords).toEqual(['salud', 'hospitales']);
  });

  it("CKAN: HDX's update frequency in days is read as the EU table's frequency, other numbers are not guessed; a user id is no contact", async () => {
    const packages: Array<Record<string, unknown>> = ['365', '30', 7, '-1', '0', '45'].map((days, index) => ({ id: `p${index}`, name: `p${index}`, data_update_frequency: days }));
    // HDX's maintainer is its user's id: no contact; the author, when named, is.
    Object.assign(packages[0]!, { maintainer: '84e567b6-1d09-4f7e-96f5-b69c09028cbc', author: 'Oficina de datos', author_email: 'datos@p.example' });
    Object.assign(packages[1]!, { maintainer: '84e567b6-1d09-4f7e-96f5-b69c09028cbc' });
    const body = JSON.stringify({ success: true, result: { count: packages.length, results: packages } });
    const [page] = await readAll('ckan', 'https://p.example', answering(body, 'application/json'));
    const frequencies = page!.datasets.map((dataset) => dataset.updateFrequency);
    expect(frequencies).toEqual([
      'http://publications.europa.eu/resource/authority/frequency/ANNUAL',
      'http://publications.europa.eu/resource/authority/frequency/MONTHLY',
      'http://publications.europa.eu/resource/authority/frequency/WEEKLY',
      'http://publications.europa.eu/resource/authority/frequency/NEVER',
      'http://publications.europa.eu/resource/authority/frequency/CONT',
      null,
    ]);
    expect(frequencies.slice(0, 2).map((frequency) => frequencyLabel(frequency!))).toEqual(['Anual', 'Mensual']);
    expect(page!.datasets[0]!.contact).toMatchObject({ name: 'Oficina de datos', email: 'datos@p.example' });
    expect(page!.datasets[1]!.contact).toBeNull();
  });

  it('CKAN: a resource of type api (resource_type, or url_type as HDX says it) is hinted as one', async () => {
    const resources = [
      { id: 'f', url: 'https://p.example/f.xlsx', format: 'XLSX', url_type: 'upload', resource_type: 'file.upload' },
      { id: 'a', url: 'https://mapas.p.example/arcgis/rest/services/X/MapServer', format: 'Geoservice', url_type: 'api', resource_type: null },
      { id: 'b', url: 'https://p.example/api/3/action/datastore_search?resource_id=f', format: 'JSON', resource_type: 'API' },
    ];
    const body = JSON.stringify({ success: true, result: { count: 1, results: [{ id: 'x', name: 'x', title: 'Equis', resources }] } });
    const [page] = await readAll('ckan', 'https://p.example', answering(body, 'application/json'));
    expect(page!.datasets[0]!.distributions.map(({ identifier, apiHint }) => ({ identifier, apiHint }))).toEqual([
      { identifier: 'f', apiHint: false },
      { identifier: 'a', apiHint: true },
      { identifier: 'b', apiHint: true },
    ]);
  });

  it('data.json: a lone theme or distribution where DCAT-US asks for a list is read as a list of one', async () => {
    const catalog = { dataset: [{ identifier: 'a', title: 'A', theme: 'economia', distribution: { downloadURL: 'https://p.example/a.csv', format: 'CSV' } }] };
    const [page] = await readAll('datajson', 'https://p.example/data.json', answering(JSON.stringify(catalog), 'application/json'));
    expect(page!.datasets[0]!.themes).toEqual([{ identifier: 'economia', label: 'economia' }]);
    expect(page!.datasets[0]!.distributions).toMatchObject([{ url: 'https://p.example/a.csv', format: 'CSV' }]);
  });
});

describe('the data.json reader', () => {
  const catalog = {
    themeTaxonomy: [{ id: 'ECON', label: 'Economía y finanzas' }],
    dataset: [
      {
        identifier: 'ds-1',
        title: 'Presupuesto',
        keyword: 'presupuesto, hacienda ,',
        publisher: 'Ministerio de Economía',
        theme: ['ECON', 'OTRO'],
        license: 'Creative Commons Attribution 4.0',
        distribution: [{ identifier: 'd-1', downloadURL: 'https://x.gob.ar/a b.csv', format: 'CSV', byteSize: '10' }],
      },
      { title: 'sin identificador' },
      { identifier: 'ds-2', title: 'Otro' },
      { identifier: 'ds-3' },
    ],
  };

  it('names theme codes from the taxonomy, accepts DCAT-US 1.0 values and yields in chunks of pageSize', async () => {
    const pages = await readAll('datajson', 'https://x.gob.ar/data.json', answering(JSON.stringify(catalog), 'application/json'), { pageSize: 2 });
    expect(pages.map((page) => page.datasets.map((dataset) => dataset.identifier))).toEqual([['ds-1', 'ds-2'], ['ds-3']]);
    expect(pages[0]!.skipped).toEqual(['Un conjunto de https://x.gob.ar/data.json no tiene identifier: no se puede identificar.']);
    const first = pages[0]!.datasets[0]!;
    expect(first.keywords).toEqual(['presupuesto', 'hacienda']);
    expect(first.publisher).toEqual({ identifier: null, name: 'Ministerio de Economía', homepage: null, acronym: null });
    expect(first.themes).toEqual([{ identifier: 'ECON', label: 'Economía y finanzas' }, { identifier: 'OTRO', label: 'OTRO' }]);
    expect(first.license).toEqual({ title: 'Creative Commons Attribution 4.0', url: null });
    expect(first.distributions[0]).toMatchObject({ identifier: 'd-1', url: 'https://x.gob.ar/a%20b.csv', format: 'CSV', byteSize: 10 });
    expect(pages[1]!.datasets[0]!.title).toBe('ds-3');
  });

  it('refuses a document without a dataset list, suggesting the kind it looks like', async () => {
    const { error } = await readUntilError('datajson', 'https://x.gob.ar/catalog.jsonld', answering('{"@context": {}, "@graph": []}', 'application/ld+json'));
    expect(error.message).toBe('https://x.gob.ar/catalog.jsonld no es un catálogo data.json (falta la lista "dataset"). Parece JSON-LD: elija el tipo DCAT.');
  });
});

/** A DCAT page of `count` datasets with two distributions each (18 triples a dataset), in Turtle or JSON-LD. */
function dcatPageOf(count: number, syntax: 'turtle' | 'jsonld' | 'rdfxml'): string {
  if (syntax === 'rdfxml') {
    // ckanext-dcat's style: typed node elements, nested distributions.
    const datasets = Array.from({ length: count }, (_, i) =>
      [
        `<dcat:Dataset rdf:about="https://portal.example/d/${i}"><dct:identifier>d-${i}</dct:identifier><dct:title xml:lang="es">Conjunto ${i}</dct:title>`,
        '<dcat:keyword>uno</dcat:keyword><dcat:keyword>dos</dcat:keyword>',
        ...[1, 2].map(
          (n) =>
            `<dcat:distribution><dcat:Distribution rdf:about="https://portal.example/d/${i}/${n}"><dcat:downloadURL rdf:resource="https://portal.example/f/${i}-${n}.csv"/><dct:format>CSV</dct:format></dcat:Distribution></dcat:distribution>`,
        ),
        '</dcat:Dataset>',
      ].join(''),
    );
    return `<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#" xmlns:dct="http://purl.org/dc/terms/">\n${datasets.join('\n')}\n</rdf:RDF>\n`;
  }
  if (syntax === 'turtle') {
    const lines = ['@prefix dcat: <http://www.w3.org/ns/dcat#> .', '@prefix dct: <http://purl.org/dc/terms/> .'];
    for (let i = 0; i < count; i++) {
      const dataset = `<https://portal.example/d/${i}>`;
      lines.push(`${dataset} a dcat:Dataset ; dct:identifier "d-${i}" ; dct:title "Conjunto ${i}"@es ; dcat:keyword "uno", "dos" ;`);
      lines.push(`  dcat:distribution <https://portal.example/d/${i}/1>, <https://portal.example/d/${i}/2> .`);
      for (const n of [1, 2]) lines.push(`<https://portal.example/d/${i}/${n}> a dcat:Distribution ; dcat:downloadURL <https://portal.example/f/${i}-${n}.csv> ; dct:format "CSV" .`);
    }
    return lines.join('\n');
  }
  const graph = Array.from({ length: count }, (_, i) => ({
    '@id': `https://portal.example/d/${i}`,
    '@type': 'dcat:Dataset',
    'dct:identifier': `d-${i}`,
    'dct:title': { '@value': `Conjunto ${i}`, '@language': 'es' },
    'dcat:keyword': ['uno', 'dos'],
    'dcat:distribution': [1, 2].map((n) => ({
      '@id': `https://portal.example/d/${i}/${n}`,
      '@type': 'dcat:Distribution',
      'dcat:downloadURL': { '@id': `https://portal.example/f/${i}-${n}.csv` },
      'dct:format': 'CSV',
    })),
  }));
  return JSON.stringify({ '@context': { dcat: 'http://www.w3.org/ns/dcat#', dct: 'http://purl.org/dc/terms/' }, '@graph': graph });
}

/** The longest the event loop went without running a 5 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}

describe('what one DCAT page may cost', () => {
  it('refuses a page past its triples or datasets, Turtle, JSON-LD and RDF/XML alike, and reads one within them', async () => {
    for (const [syntax, type] of [['turtle', 'text/turtle'], ['jsonld', 'application/ld+json'], ['rdfxml', 'application/rdf+xml']] as const) {
      const body = dcatPageOf(100, syntax);
      const triples = await readUntilError('dcat', 'https://portal.example/catalogo', answering(body, type), { limits: { maxTriples: 1000 } });
      expect(triples.pages, syntax).toEqual([]);
      expect(triples.error.code, syntax).toBe('too-costly');
      expect(triples.error.message, syntax).toBe(
        'La página https://portal.example/catalogo del catálogo pasa de 1,000 tripletas RDF, el máximo que el archivo lee de una página: el catálogo debe paginarse (Hydra).',
      );
      const datasets = await readUntilError('dcat', 'https://portal.example/catalogo', answering(body, type), { limits: { maxDatasets: 99 } });
      expect(datasets.error.code, syntax).toBe('too-costly');
      expect(datasets.error.message, syntax).toMatch(/describe 100 conjuntos de datos, más de los 99 que el archivo lee de una página/);
      const [page] = await readAll('dcat', 'https://portal.example/catalogo', answering(body, type), { limits: { maxTriples: 1800, maxDatasets: 100 } });
      expect(page!.datasets, syntax).toHaveLength(100);
    }
  });

  it('parses off the event loop, and stops a page that takes too long with the reason', async () => {
    // About 180,000 triples: seconds of jsonld.js expansion, all of it on the worker's thread.
    const body = dcatPageOf(10_000, 'jsonld');
    let failure: CatalogReadError | undefined;
    const started = performance.now();
    const stall = await longestStall(async () => {
      ({ error: failure } = await readUntilError('dcat', 'https://portal.example/lento.jsonld', answering(body, 'application/ld+json'), { limits: { timeoutMs: 500 } }));
    });
    expect(failure!.code).toBe('too-costly');
    expect(failure!.message).toBe('La lectura de la página https://portal.example/lento.jsonld del catálogo se detuvo: no terminó en 0.5 s, el máximo para una página.');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(stall).toBeLessThan(250);
  });

  it('stops a page whose expansion outgrows the heap (10 KB IRIs repeated), and the next read works', async () => {
    // 800 KB of JSON-LD: each compact IRI `x:N` expands to 10 KB, 200 MB in all, twice over in N-Quads.
    const long = `https://portal.example/${'a'.repeat(10_000)}/`;
    const graph = Array.from({ length: 20_000 }, (_, i) => ({ '@id': `x:${i}`, '@type': 'dcat:Dataset' }));
    const body = JSON.stringify({ '@context': { x: long, dcat: 'http://www.w3.org/ns/dcat#' }, '@graph': graph });
    expect(body.length).toBeLessThan(1_000_000);
    const { error } = await readUntilError('dcat', 'https://portal.example/enorme.jsonld', answering(body, 'application/ld+json'), {
      limits: { workerHeapMb: 64, maxTriples: 10_000_000, maxDatasets: 10_000_000 },
    });
    expect(error.code).toBe('too-costly');
    expect(error.message).toBe('La lectura de la página https://portal.example/enorme.jsonld del catálogo se detuvo: pasó de 64 MiB de memoria, el máximo para una página.');
    const [page] = await readAll('dcat', 'https://portal.example/catalog.ttl', answering(dcatPageOf(3, 'turtle'), 'text/turtle'));
    expect(page!.datasets.map((dataset) => dataset.identifier).sort()).toEqual(['d-0', 'd-1', 'd-2']);
  });

  it('refuses a page past its bytes before parsing it, for every kind (a data.json is held whole)', async () => {
    const dataJsonBody = JSON.stringify({ dataset: Array.from({ length: 200 }, (_, i) => ({ identifier: `ds-${i}`, title: 'Conjunto con un título' })) });
    expect(dataJsonBody.length).toBeGreaterThan(5_000);
    for (const [kind, body] of [['datajson', dataJsonBody], ['dcat', dcatPageOf(50, 'turtle')], ['ckan', JSON.stringify({ success: true, result: { count: 1, results: [{ id: 'a', notes: 'ñ'.repeat(3_000) }] } })]] as const) {
      const { pages, error } = await readUntilError(kind, 'https://portal.example/catalogo', answering(body, 'application/json'), { limits: { maxPageBytes: 5_000 } });
      expect(pages, kind).toEqual([]);
      expect(error.code, kind).toBe('too-costly');
      expect(error.message, kind).toMatch(/^La página 1 del catálogo \(https:\/\/portal\.example\/catalogo.*\) pasa de 5,000 bytes, el máximo que el archivo lee de una página\.$/);
    }
  });
});
