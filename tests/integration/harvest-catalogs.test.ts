/**
 * The three catalogue readers against the local portal (tests/helpers/portal): the same five real
 * CKAN packages read as CKAN, DCAT-AP JSON-LD, DCAT-AP Turtle and data.json give the same
 * datasets; Hydra paging is followed and a loop stopped; an HTML page and a remote JSON-LD context
 * are refused. Then the archive's own `/catalog.jsonld` and `/catalog.ttl`, from a seeded database
 * on every engine, read back as a harvester reads them.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, categories, departments } from '../../src/lib/server/db/schema.ts';
import { catalogResponse } from '../../src/lib/server/dcat/response.ts';
import { CatalogReadError, readCatalog, type CatalogDataset, type CatalogKind, type CatalogPage, type FetchPage } from '../../src/lib/server/harvest/catalogs/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';

async function readAll(kind: CatalogKind, url: string, fetchPage: FetchPage, pageSize?: number): Promise<CatalogPage[]> {
  const pages: CatalogPage[] = [];
  for await (const page of readCatalog(kind, url, fetchPage, { pageSize })) pages.push(page);
  return pages;
}

async function readUntilError(kind: CatalogKind, url: string, fetchPage: FetchPage) {
  const pages: CatalogPage[] = [];
  try {
    for await (const page of readCatalog(kind, url, fetchPage)) pages.push(page);
  } catch (error) {
    expect(error).toBeInstanceOf(CatalogReadError);
    return { pages, error: error as CatalogReadError };
  }
  throw new Error('the reader ended without an error');
}

/** What every kind must agree on, in a comparable order. */
function essentials(datasets: CatalogDataset[]) {
  return datasets
    .map((dataset) => ({
      identifier: dataset.identifier,
      title: dataset.title,
      landingPage: dataset.landingPage,
      issued: dataset.issued?.toISOString(),
      publisher: dataset.publisher?.name,
      themes: dataset.themes.map((theme) => theme.label),
      keywords: [...dataset.keywords].sort(),
      distributions: dataset.distributions
        .map((distribution) => ({ identifier: distribution.identifier, url: distribution.url, format: distribution.format, byteSize: distribution.byteSize }))
        .sort((a, b) => a.identifier!.localeCompare(b.identifier!)),
    }))
    .sort((a, b) => a.identifier.localeCompare(b.identifier));
}

describe('the catalogue readers on the local portal', () => {
  let portal: LocalPortal;
  const read = {} as Record<'ckan' | 'jsonld' | 'turtle' | 'rdfxml' | 'datajson', CatalogPage[]>;
  const requestsOf = (path: string) => portal.requests.filter((request) => request.startsWith(path));

  beforeAll(async () => {
    portal = await startLocalPortal();
    read.ckan = await readAll('ckan', portal.urls.ckan, portal.fetchPage, 2);
    read.jsonld = await readAll('dcat', portal.urls.dcatJsonLd, portal.fetchPage);
    read.turtle = await readAll('dcat', portal.urls.dcatTurtle, portal.fetchPage);
    read.rdfxml = await readAll('dcat', portal.urls.dcatRdfXml, portal.fetchPage);
    read.datajson = await readAll('datajson', portal.urls.dataJson, portal.fetchPage);
  });
  afterAll(() => portal?.close());

  it('gives the same datasets, publishers, themes and distribution URLs in every kind', () => {
    const fromCkan = essentials(read.ckan.flatMap((page) => page.datasets));
    expect(fromCkan).toHaveLength(5);
    expect(fromCkan.flatMap((dataset) => dataset.distributions)).toHaveLength(22);
    expect(fromCkan.flatMap((dataset) => dataset.distributions).every((distribution) => distribution.url?.startsWith(`${portal.origin}/files/`))).toBe(true);
    for (const kind of ['jsonld', 'turtle', 'rdfxml', 'datajson'] as const) {
      expect(essentials(read[kind].flatMap((page) => page.datasets)), kind).toEqual(fromCkan);
    }
  });

  it('reads the declared checksums and media types of DCAT as CKAN declares them', () => {
    const checksums = (pages: CatalogPage[]) =>
      pages.flatMap((page) => page.datasets).flatMap((dataset) => dataset.distributions.map((distribution) => [distribution.identifier, distribution.checksum, distribution.mediaType]));
    const fromCkan = checksums(read.ckan).sort();
    expect(fromCkan.filter(([, checksum]) => checksum !== null)).toHaveLength(5);
    expect(checksums(read.jsonld).sort()).toEqual(fromCkan);
    expect(checksums(read.turtle).sort()).toEqual(fromCkan);
    expect(checksums(read.rdfxml).sort()).toEqual(fromCkan);
  });

  it('follows Hydra paging in JSON-LD (hydra:next), Turtle and RDF/XML (hydra:nextPage), page by page', () => {
    expect(requestsOf('/dcat/catalog.jsonld')).toEqual(['/dcat/catalog.jsonld', '/dcat/catalog.jsonld?page=2']);
    expect(requestsOf('/dcat/catalog.ttl')).toEqual(['/dcat/catalog.ttl', '/dcat/catalog.ttl?page=2']);
    expect(requestsOf('/dcat/catalog.rdf')).toEqual(['/dcat/catalog.rdf', '/dcat/catalog.rdf?page=2']);
    for (const pages of [read.jsonld, read.turtle, read.rdfxml]) {
      expect(pages.map((page) => page.datasets.length)).toEqual([3, 2]);
      expect(pages.map((page) => page.total)).toEqual([5, 5]);
    }
  });

  it('stops a Hydra next link that loops back, after the pages it could read', async () => {
    const { pages, error } = await readUntilError('dcat', `${portal.urls.dcatLoop}?page=1`, portal.fetchPage);
    expect(pages.map((page) => page.datasets.length)).toEqual([3, 2]);
    expect(error.code).toBe('paging-loop');
    expect(error.message).toBe(`La paginación del catálogo vuelve a una página ya leída (${portal.urls.dcatLoop}?page=1): se detuvo tras 2 página(s).`);
    expect(requestsOf('/dcat/loop.jsonld')).toHaveLength(2);
  });

  it('refuses an HTML page in every kind, in Spanish', async () => {
    for (const kind of ['ckan', 'dcat', 'datajson'] as const) {
      const { pages, error } = await readUntilError(kind, portal.urls.html, portal.fetchPage);
      expect(pages).toEqual([]);
      expect(error.code).toBe('wrong-kind');
      expect(error.message, kind).toMatch(/devolvió una página HTML, no (la respuesta JSON de la API de CKAN|un catálogo DCAT|un catálogo data\.json)/);
    }
  });

  it('refuses a JSON-LD catalogue with a remote @context without fetching it', async () => {
    const { pages, error } = await readUntilError('dcat', portal.urls.dcatRemoteContext, portal.fetchPage);
    expect(pages).toEqual([]);
    expect(error.code).toBe('remote-context');
    expect(error.message).toBe(
      `El JSON-LD de ${portal.urls.dcatRemoteContext} usa un @context remoto (${portal.origin}/contexts/dcat.jsonld) que el archivo no descarga: el catálogo debe llevar su contexto en línea.`,
    );
    expect(requestsOf('/contexts/')).toEqual([]);
    // The portal would have served it: only the reader's refusal kept it from being fetched.
    expect((await fetch(`${portal.origin}/contexts/dcat.jsonld`)).status).toBe(200);
  });

  it('sees an edited title and a removed package on the next read', async () => {
    const original = portal.packages;
    portal.packages = original.slice(1).map((pkg, index) => (index === 0 ? { ...pkg, title: 'Título nuevo' } : pkg));
    try {
      for (const [kind, url] of [['ckan', portal.urls.ckan], ['dcat', portal.urls.dcatJsonLd], ['datajson', portal.urls.dataJson]] as const) {
        const datasets = (await readAll(kind, url, portal.fetchPage)).flatMap((page) => page.datasets);
        // Sorted: jsonld.js orders a graph's nodes by IRI, not as the document listed them.
        expect(datasets.map((dataset) => dataset.identifier).sort(), kind).toEqual(original.slice(1).map((pkg) => pkg.id).sort());
        expect(datasets.find((dataset) => dataset.identifier === original[1]!.id)!.title).toBe('Título nuevo');
      }
    } finally {
      portal.packages = original;
    }
  });
});

describe.each(testEngines())("the archive's own DCAT-AP catalogue read back on %s", (engine) => {
  const ORIGIN = 'https://archivo.example';
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  /** The catalogue's answer handed to the reader as the fetcher would: no network involved. */
  const fetchOwnCatalog: FetchPage = async (url) => {
    const format = url.endsWith('.ttl') ? 'turtle' : 'jsonld';
    const response = await catalogResponse(format, { db: seeded.db, origin: ORIGIN, request: new Request(url) });
    return { body: await response.text(), contentType: response.headers.get('content-type') };
  };

  it('lists every published record with its file, checksum, publisher and theme', async () => {
    const published = await seeded.db
      .select({
        id: alexandrias.id,
        title: alexandrias.title,
        cid: alexandrias.cid,
        sha256: alexandrias.fileSha256,
        department: departments.name,
        category: categories.title,
      })
      .from(alexandrias)
      .leftJoin(departments, eq(departments.id, alexandrias.departmentId))
      .leftJoin(categories, eq(categories.id, alexandrias.categoryId))
      .where(inArray(alexandrias.status, ['on_line', 'under_review']));
    expect(published.length).toBeGreaterThan(100);
    for (const path of ['/catalog.jsonld', '/catalog.ttl']) {
      const pages = await readAll('dcat', `${ORIGIN}${path}`, fetchOwnCatalog);
      expect(pages, path).toHaveLength(1);
      const datasets = new Map(pages[0]!.datasets.map((dataset) => [dataset.identifier, dataset]));
      expect(datasets.size).toBe(published.length);
      const archived = published.filter((record) => record.cid && record.sha256);
      expect(archived.length).toBeGreaterThan(0);
      for (const record of published) {
        const dataset = datasets.get(String(record.id))!;
        expect(dataset.title).toBe(record.title);
        expect(dataset.publisher?.name ?? null).toBe(record.department);
        if (record.category) expect(dataset.themes.map((theme) => theme.label)).toContain(record.category);
        if (!record.cid) {
          expect(dataset.distributions).toEqual([]);
          continue;
        }
        const [file] = dataset.distributions;
        expect(file!.url).toBe(`${ORIGIN}/ipfs/${record.cid}`);
        expect(file!.identifier).toBe(`ipfs://${record.cid}`);
        if (record.sha256) expect(file!.checksum).toEqual({ algorithm: 'sha256', value: record.sha256.toLowerCase() });
      }
      const csv = archived.map((record) => datasets.get(String(record.id))!.distributions[0]!).find((file) => file.format === 'CSV');
      expect(csv?.mediaType).toMatch(/^text\/csv/);
    }
  });
});
