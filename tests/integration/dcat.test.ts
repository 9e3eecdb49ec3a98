/**
 * The DCAT-AP catalogue (`/catalog.jsonld`, `/catalog.ttl`), read the way a harvester reads it: both
 * documents parsed by real RDF libraries (jsonld.js to N-Quads, N3.js for Turtle) and the graph
 * checked for what DCAT-AP requires, against the database and the real files on disk.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, asc, eq, inArray, notInArray } from 'drizzle-orm';
import jsonld from 'jsonld';
import { DataFactory, Parser, Store, Writer, type Quad, type Term } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, captures, categories, departments, harvestedRecords, recordVersions } from '../../src/lib/server/db/schema.ts';
import { catalogIriDocument } from '../../src/lib/server/dcat/catalog.ts';
import { CATALOG_DOCUMENTS_AT_ONCE, CATALOG_DOCUMENTS_WAITING, catalogDocumentsWaiting, catalogResponse, type CatalogFormat } from '../../src/lib/server/dcat/response.ts';
import { HttpError } from '../../src/lib/server/http/errors.ts';
import { calendarDayDate, calendarDayOf, isCalendarDay } from '../../src/lib/domain/calendar-day.ts';
import { webIri } from '../../src/lib/server/dcat/rdf.ts';
import { frequencyIri } from '../../src/lib/server/harvest/catalogs/frequency.ts';
import { readCatalog, type CatalogDataset, type FetchPage } from '../../src/lib/server/harvest/catalogs/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';

const ORIGIN = 'https://archivo.example';
const { namedNode } = DataFactory;

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const DCAT = 'http://www.w3.org/ns/dcat#';
const DCT = 'http://purl.org/dc/terms/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
/** Later than any record's own change in the test: the withdrawal is the catalogue record's last change. */
const WITHDRAWN_AT = new Date('2099-01-02T03:04:05.000Z');
const SKOS = 'http://www.w3.org/2004/02/skos/core#';
const SPDX = 'http://spdx.org/rdf/terms#';
const ADMS = 'http://www.w3.org/ns/adms#';
const VCARD = 'http://www.w3.org/2006/vcard/ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const FREQUENCY = 'http://publications.europa.eu/resource/authority/frequency/';

/**
 * What three harvested records' catalogues said of them (their own dates, update frequency,
 * contact, coverage), as the harvester keeps it: every fact, a few with an open side, and none at
 * all (every other record: the seed's portal export states no dates).
 */
const DECLARED_FACTS = {
  // All of them, the frequency as datos.gob.do's publishers type it.
  full: {
    // A day, as data.json and DCAT catalogues give it: kept at noon UTC, stated as a day.
    issued: calendarDayDate('2018-06-19'),
    modified: new Date('2024-02-22T15:05:11.000Z'),
    updateFrequency: 'Mensual',
    contactName: 'Oficina de Acceso a la Información',
    contactEmail: 'datosabiertos@one.gob.do',
    temporalStart: '2017-01-01',
    temporalEnd: '2017-12-31',
    temporalText: null,
    licenseTitle: 'Creative Commons Atribución 4.0',
    licenseUrl: 'https://creativecommons.org/licenses/by/4.0/',
    keywords: ['matrícula', 'escuelas públicas'] as string[],
  },
  // A frequency no vocabulary names, an address with characters a mailto: IRI must escape and
  // accents it need not, a coverage still running and said in words too.
  open: {
    issued: new Date('2019-03-04T10:00:00.000Z'),
    modified: null,
    updateFrequency: 'Cuando cambia la ley',
    contactName: null,
    contactEmail: 'año{2024}|datos@municipio.gob.do',
    temporalStart: '2019-03-01',
    temporalEnd: null,
    temporalText: 'Desde la reforma de 2019',
    licenseTitle: 'Licencia de datos abiertos del municipio',
    licenseUrl: null,
    keywords: [] as string[],
  },
  // An ISO 8601 period (data.json's), a name without an address, only an end.
  closing: {
    issued: null,
    modified: null,
    updateFrequency: 'R/P1Y',
    contactName: 'Departamento de Estadísticas "Sectoriales"',
    contactEmail: null,
    temporalStart: null,
    temporalEnd: '2020-06-30',
    temporalText: null,
    licenseTitle: null,
    licenseUrl: 'https://www.datos.gob.do/licencia',
    keywords: ['presupuesto'] as string[],
  },
} as const;

/** A licence, a frequency, a contact and a period an English catalogue wrote in words. */
const FOREIGN_WORDS = {
  licenseTitle: 'Open Government Licence',
  licenseUrl: null,
  updateFrequency: 'Whenever the law changes',
  contactName: 'Open Data Office',
  contactEmail: null,
  temporalText: 'Since the 2019 reform',
};

type FactCase = keyof typeof DECLARED_FACTS;
const FACT_CASES = Object.keys(DECLARED_FACTS) as FactCase[];

/** Text no serialiser may bend: quotes of both kinds, backslashes, line breaks, a tab, markup, accents. */
const TRICKY_TITLE = 'Presupuesto "2024" de l\'Ayuntamiento \\ niños y ñandúes\r\n<script>alert("x")</script>\t"""fin';
const TRICKY_DESCRIPTION =
  'Línea 1\nLínea 2 con "comillas" y \'apóstrofos\'\n" ; dct:title "inyectado"@es .\n{"@id": "x"} ]] > & < 📊 Ñ';
const TRICKY_SOURCE = 'https://example.org/página con espacios/{x}|^`?q="a"&b=<c>\\d';

type Graph = Store;

async function parseTurtle(text: string): Promise<Graph> {
  return new Store(new Parser({ format: 'text/turtle' }).parse(text));
}

/** JSON-LD through jsonld.js (safe mode: a value it would have to drop is an error) to N-Quads. */
async function jsonLdQuads(document: unknown): Promise<string> {
  const options: jsonld.Options.ToRdf & { safe: boolean } = { format: 'application/n-quads', safe: true };
  return (await jsonld.toRDF(document as jsonld.JsonLdDocument, options)) as unknown as string;
}

async function parseJsonLd(text: string): Promise<Graph> {
  return new Store(new Parser({ format: 'N-Quads' }).parse(await jsonLdQuads(JSON.parse(text))));
}

/** URDNA2015 canonical N-Quads: equal strings mean isomorphic graphs, blank nodes included. */
async function canonical(quads: Quad[]): Promise<string> {
  const nquads = new Writer({ format: 'N-Quads' }).quadsToString(quads);
  const options: jsonld.Options.Normalize = { algorithm: 'URDNA2015', inputFormat: 'application/n-quads', format: 'application/n-quads' };
  return jsonld.canonize(nquads as unknown as jsonld.JsonLdDocument, options);
}

const objects = (graph: Graph, subject: Term | string, predicate: string): Term[] =>
  graph.getObjects(typeof subject === 'string' ? namedNode(subject) : subject, namedNode(predicate), null);

/** The one object of `predicate` (among those `which` keeps, when given). */
function one(graph: Graph, subject: Term | string, predicate: string, which: (term: Term) => boolean = () => true): Term {
  const found = objects(graph, subject, predicate).filter(which);
  expect(found, `${String(typeof subject === 'string' ? subject : subject.value)} ${predicate}`).toHaveLength(1);
  return found[0]!;
}

function literal(term: Term, { language, datatype }: { language?: string; datatype?: string }) {
  expect(term.termType).toBe('Literal');
  const value = term as Term & { language: string; datatype: { value: string } };
  if (language !== undefined) expect(value.language).toBe(language);
  if (datatype !== undefined) expect(value.datatype.value).toBe(datatype);
  return value.value;
}

const isA = (graph: Graph, subject: Term | string, type: string) =>
  objects(graph, subject, `${RDF}type`).some((term) => term.value === type);

/** When the versioned record's current file (its v2) was captured. */
/** Where the archive captured the versioned record's two files from: its catalogue's link moved between them. */
const CAPTURED_FROM = 'https://datos.gob.do/dataset/salario-minimo/resource/2/download/salario-minimo.csv';
const EARLIER_CAPTURED_FROM = 'https://datos.gob.do/dataset/salario-minimo/resource/1/download/salario-minimo-2024.csv';
const CURRENT_CAPTURED_AT = '2026-02-03T04:05:06.000Z';

const datasetIri = (id: number) => `${ORIGIN}/catalog/dataset/${id}`;
const catalogRecordIri = (id: number) => `${ORIGIN}/catalog/record/${id}`;

const LANGUAGE = 'http://publications.europa.eu/resource/authority/language/';

describe.each(testEngines())('the DCAT-AP catalogue on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const documents = {} as Record<CatalogFormat, { text: string; headers: Headers; graph: Graph }>;
  let published: Array<typeof alexandrias.$inferSelect>;
  let hidden: number[];
  const special = {} as {
    tricky: number;
    noDescription: number;
    badSource: number;
    noChecksum: number;
    versioned: number;
    earlierCid: string;
    earlierSize: number;
    earlierSha: string;
    facts: Record<FactCase, number>;
    withdrawn: number;
    /** Harvested from a catalogue that declares English and Chile; and from one that declares nothing. */
    foreign: number;
    undeclared: number;
  };

  async function fetchCatalog(format: CatalogFormat, init: RequestInit = {}, pageSize?: number) {
    const path = format === 'jsonld' ? '/catalog.jsonld' : '/catalog.ttl';
    return catalogResponse(format, { db: seeded.db, origin: ORIGIN, request: new Request(`${ORIGIN}${path}`, init), pageSize });
  }

  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
    const db = seeded.db;
    const harvested = await db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.status, 'under_review')).orderBy(asc(alexandrias.id)).limit(10);
    const archived = await db.select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.status, 'on_line')).orderBy(asc(alexandrias.id));
    const [tricky, blocked, broken, noDescription, badSource] = harvested.map((row) => row.id) as [number, number, number, number, number];
    Object.assign(special, { tricky, noDescription, badSource, noChecksum: archived[1]!.id });
    await db.update(alexandrias).set({ title: TRICKY_TITLE, description: TRICKY_DESCRIPTION, sourceUrl: TRICKY_SOURCE }).where(eq(alexandrias.id, tricky));
    await db.update(alexandrias).set({ description: null }).where(eq(alexandrias.id, noDescription));
    await db.update(alexandrias).set({ sourceUrl: 'javascript:alert(1)' }).where(eq(alexandrias.id, badSource));
    await db.update(alexandrias).set({ fileSha256: null }).where(eq(alexandrias.id, special.noChecksum));
    special.facts = Object.fromEntries(FACT_CASES.map((name, index) => [name, harvested[5 + index]!.id])) as Record<FactCase, number>;
    for (const name of FACT_CASES) await db.update(alexandrias).set(DECLARED_FACTS[name]).where(eq(alexandrias.id, special.facts[name]));
    Object.assign(special, { foreign: harvested[8]!.id, undeclared: harvested[9]!.id });
    await db
      .update(alexandrias)
      .set({ languages: [`${LANGUAGE}ENG`], spatial: ['http://publications.europa.eu/resource/authority/country/CHL', 'Región de Valparaíso'] })
      .where(eq(alexandrias.id, special.foreign));
    await db.update(alexandrias).set({ languages: [], spatial: [] }).where(eq(alexandrias.id, special.undeclared));
    // What else their catalogues wrote of them, in words: in the language each declared, or none.
    await db.update(alexandrias).set(FOREIGN_WORDS).where(inArray(alexandrias.id, [special.foreign, special.undeclared]));
    // A blocked archived file too: its distribution must go with it.
    hidden = [blocked, broken, archived[0]!.id];
    await db.update(alexandrias).set({ status: 'blocked' }).where(inArray(alexandrias.id, [blocked, archived[0]!.id]));
    await db.update(alexandrias).set({ status: 'broken' }).where(eq(alexandrias.id, broken));
    // A captured record whose file changed at its origin (issue #19): v1 was another file, v2 is its own.
    const versioned = archived[2]!.id;
    const [earlier] = await db.select().from(alexandrias).where(eq(alexandrias.id, archived[3]!.id));
    const [current] = await db.select().from(alexandrias).where(eq(alexandrias.id, versioned));
    Object.assign(special, { versioned, earlierCid: earlier!.cid, earlierSize: earlier!.fileSize, earlierSha: earlier!.fileSha256 });
    // Its catalogue names a third link now, not captured yet: no distribution may claim bytes from it.
    await db
      .update(alexandrias)
      .set({ licenseTitle: 'CC BY 4.0', licenseUrl: 'https://creativecommons.org/licenses/by/4.0/', originalUrl: 'https://datos.gob.do/dataset/salario-minimo/resource/3/download/nuevo.csv' })
      .where(eq(alexandrias.id, versioned));
    const [v1, v2] = await db
      .insert(captures)
      .values([
        { alexandriaId: versioned, requestedUrl: EARLIER_CAPTURED_FROM, finalUrl: EARLIER_CAPTURED_FROM, status: 200, cid: earlier!.cid!, capturedAt: new Date('2026-01-02T03:04:05Z') },
        { alexandriaId: versioned, requestedUrl: 'https://datos.gob.do/r/2', finalUrl: CAPTURED_FROM, status: 200, cid: current!.cid!, capturedAt: new Date(CURRENT_CAPTURED_AT) },
      ])
      .returning({ id: captures.id });
    await db.insert(recordVersions).values([
      { alexandriaId: versioned, number: 1, cid: earlier!.cid!, sha256: earlier!.fileSha256!, size: earlier!.fileSize!, type: earlier!.type, mimeType: earlier!.mimeType, fileName: 'anterior.csv', capturedAt: new Date('2026-01-02T03:04:05Z'), captureId: v1!.id },
      { alexandriaId: versioned, number: 2, cid: current!.cid!, sha256: current!.fileSha256!, size: current!.fileSize!, type: current!.type, mimeType: current!.mimeType, fileName: current!.fileName, capturedAt: new Date(CURRENT_CAPTURED_AT), captureId: v2!.id },
    ]);
    // A harvested record its catalogue withdrew since: still described, its catalogue record says so.
    const taken = [...harvested.map((row) => row.id), ...archived.slice(0, 4).map((row) => row.id)];
    const [listed] = await db
      .select({ id: harvestedRecords.alexandriaId })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(and(inArray(alexandrias.status, ['on_line', 'under_review']), notInArray(alexandrias.id, taken)))
      .orderBy(asc(harvestedRecords.alexandriaId))
      .limit(1);
    special.withdrawn = listed!.id;
    const withdrawnRows = await db.update(harvestedRecords).set({ withdrawnAt: WITHDRAWN_AT }).where(eq(harvestedRecords.alexandriaId, special.withdrawn)).returning();
    expect(withdrawnRows).toHaveLength(1);
    published = await db.select().from(alexandrias).where(inArray(alexandrias.status, ['on_line', 'under_review'])).orderBy(asc(alexandrias.id));

    // JSON-LD in the default pages, Turtle in many small ones: the same graph proves the paging.
    for (const [format, pageSize] of [['jsonld', undefined], ['turtle', 97]] as const) {
      const response = await fetchCatalog(format, {}, pageSize);
      expect(response.status).toBe(200);
      const text = await response.text();
      const graph = format === 'jsonld' ? await parseJsonLd(text) : await parseTurtle(text);
      documents[format] = { text, headers: response.headers, graph };
    }
  });
  afterAll(() => seeded?.destroy());

  it('answers with the RDF media types and an hour of public caching', () => {
    expect(documents.jsonld.headers.get('content-type')).toBe('application/ld+json');
    expect(documents.turtle.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    for (const { headers } of Object.values(documents)) {
      expect(headers.get('cache-control')).toBe('public, max-age=3600');
      expect(headers.get('etag')).toMatch(/^W\/"[0-9a-f]{32}"$/);
    }
    // An inline context: a harvester never has to fetch anything else to read it.
    const document = JSON.parse(documents.jsonld.text) as { '@context': unknown };
    expect(typeof document['@context']).toBe('object');
  });

  it('states the same graph in JSON-LD and in Turtle', async () => {
    const fromJsonLd = documents.jsonld.graph.getQuads(null, null, null, null);
    const fromTurtle = documents.turtle.graph.getQuads(null, null, null, null);
    expect(fromJsonLd.length).toBeGreaterThan(published.length * 10);
    expect(fromJsonLd).toHaveLength(fromTurtle.length);
    expect(await canonical(fromJsonLd)).toBe(await canonical(fromTurtle));
  });

  describe.each(['jsonld', 'turtle'] as const)('read from %s', (format) => {
    const graph = () => documents[format].graph;

    it("leads every IRI on the archive's origin to a document: the catalogue's, a record's page, or a page of the archive", () => {
      const iris = new Set<string>();
      for (const quad of graph().getQuads(null, null, null, null)) {
        for (const term of [quad.subject, quad.object]) if (term.termType === 'NamedNode' && term.value.startsWith(`${ORIGIN}/`)) iris.add(term.value);
      }
      const things = [...iris].filter((iri) => new URL(iri).pathname.startsWith('/catalog') && !/\.(jsonld|ttl)$/.test(iri));
      expect(things.length).toBeGreaterThan(published.length * 2);
      for (const iri of things) {
        const { pathname } = new URL(iri);
        const id = /\/(?:dataset|record)\/(\d+)/.exec(pathname)?.[1];
        expect(catalogIriDocument(pathname, null), iri).toBe(id ? `/registro/${id}` : '/catalog.jsonld');
      }
      expect(catalogIriDocument('/catalog', 'text/turtle, application/ld+json;q=0.9')).toBe('/catalog.ttl');
      expect(catalogIriDocument('/catalog', 'application/ld+json, text/turtle')).toBe('/catalog.jsonld');
      for (const nothing of ['/catalog/dataset/x', '/catalog/dataset/0', '/catalog/otra/1', '/catalog/dataset/99999999999', '/catalog/record/1/extra']) expect(catalogIriDocument(nothing, null), nothing).toBeNull();
    });

    it('has one dcat:Catalog with the mandatory and recommended properties', () => {
      const catalogs = graph().getSubjects(namedNode(`${RDF}type`), namedNode(`${DCAT}Catalog`), null);
      expect(catalogs).toHaveLength(1);
      const catalog = catalogs[0]!;
      expect(catalog.value).toBe(`${ORIGIN}/catalog`);
      expect(literal(one(graph(), catalog, `${DCT}title`), { language: 'es' })).toBe('Archivo Abierto');
      expect(literal(one(graph(), catalog, `${DCT}description`), { language: 'es' }).length).toBeGreaterThan(20);
      const publisher = one(graph(), catalog, `${DCT}publisher`);
      expect(isA(graph(), publisher, `${FOAF}Agent`)).toBe(true);
      expect(literal(one(graph(), publisher, `${FOAF}name`), { language: 'es' })).toBe('Archivo Abierto');
      expect(one(graph(), catalog, `${FOAF}homepage`).value).toBe(`${ORIGIN}/`);
      expect(one(graph(), catalog, `${DCT}language`).value).toBe('http://publications.europa.eu/resource/authority/language/SPA');
      // No area of the catalogue's own: another archive harvesting it would give it to every dataset without one.
      expect(objects(graph(), catalog, `${DCT}spatial`)).toEqual([]);
      const modified = literal(one(graph(), catalog, `${DCT}modified`), { datatype: `${XSD}dateTime` });
      const latest = Math.max(...published.map((record) => record.updatedAt.getTime()));
      expect(new Date(modified).getTime()).toBe(latest);
      literal(one(graph(), catalog, `${DCT}issued`), { datatype: `${XSD}dateTime` });

      const taxonomies = objects(graph(), catalog, `${DCAT}themeTaxonomy`).map((term) => term.value);
      expect(taxonomies).toContain('http://publications.europa.eu/resource/authority/data-theme');
      const scheme = `${ORIGIN}/group/cat`;
      expect(taxonomies).toContain(scheme);
      expect(isA(graph(), scheme, `${SKOS}ConceptScheme`)).toBe(true);
      literal(one(graph(), scheme, `${DCT}title`), { language: 'es' });

      const datasets = objects(graph(), catalog, `${DCAT}dataset`).map((term) => term.value).sort();
      expect(datasets).toEqual(published.map((record) => datasetIri(record.id)).sort());
      const records = objects(graph(), catalog, `${DCAT}record`).map((term) => term.value).sort();
      expect(records).toEqual(published.map((record) => catalogRecordIri(record.id)).sort());
    });

    it("dates each dataset by its original's catalogue, and the archive's description of it by the archive", () => {
      const dates = (subject: string, predicate: string) =>
        objects(graph(), subject, predicate).map((term) => literal(term, { datatype: `${XSD}dateTime` }));
      const typedDates = (subject: string, predicate: string) =>
        objects(graph(), subject, predicate).map((term) => `${term.value}^^${(term as Term & { datatype: { value: string } }).datatype.value}`);
      // A day the catalogue gave as a day is stated as one (`xsd:date`), an instant as an instant.
      const declared = (date: Date | null) => (!date ? [] : isCalendarDay(date) ? [`${calendarDayOf(date)}^^${XSD}date`] : [`${date.toISOString()}^^${XSD}dateTime`]);
      for (const record of published) {
        const dataset = datasetIri(record.id);
        // The original's own dates, only when its catalogue declared them (a hand upload has none).
        expect(typedDates(dataset, `${DCT}issued`), `${record.id}`).toEqual(declared(record.issued));
        expect(typedDates(dataset, `${DCT}modified`), `${record.id}`).toEqual(declared(record.modified));
        // The archive's: its catalogue record about the dataset, listed by the catalogue.
        const about = graph().getSubjects(namedNode(`${FOAF}primaryTopic`), namedNode(dataset), null).map((term) => term.value);
        expect(about).toEqual([catalogRecordIri(record.id)]);
        const catalogRecord = about[0]!;
        expect(objects(graph(), catalogRecord, `${RDF}type`).map((term) => term.value)).toEqual([`${DCAT}CatalogRecord`]);
        expect(dates(catalogRecord, `${DCT}issued`)).toEqual([record.createdAt.toISOString()]);
        // A withdrawal changed the description of a dataset its catalogue no longer lists: then, and «Withdrawn» since.
        const withdrawn = record.id === special.withdrawn;
        expect(dates(catalogRecord, `${DCT}modified`)).toEqual([(withdrawn ? WITHDRAWN_AT : record.updatedAt).toISOString()]);
        expect(objects(graph(), catalogRecord, `${ADMS}status`).map((term) => term.value)).toEqual(withdrawn ? ['http://purl.org/adms/status/Withdrawn'] : []);
      }
      // Only the records whose catalogue declared dates have them; the others' are the archive's alone.
      const { full, open } = special.facts;
      expect(published.filter((record) => record.issued !== null).map((record) => record.id)).toEqual([full, open].sort((a, b) => a - b));
      expect(published.filter((record) => record.modified !== null).map((record) => record.id)).toEqual([full]);
      expect(typedDates(datasetIri(full), `${DCT}issued`)).toEqual([`2018-06-19^^${XSD}date`]);
      expect(typedDates(datasetIri(full), `${DCT}modified`)).toEqual([`2024-02-22T15:05:11.000Z^^${XSD}dateTime`]);
      expect(dates(catalogRecordIri(full), `${DCT}issued`)).not.toEqual(['2018-06-19T12:00:00.000Z']);
      expect(graph().getSubjects(namedNode(`${RDF}type`), namedNode(`${DCAT}CatalogRecord`), null)).toHaveLength(published.length);
    });

    it('describes every online or under-review record as a dcat:Dataset with title, description, publisher and theme', async () => {
      const db = seeded.db;
      const departmentRows = new Map((await db.select().from(departments)).map((row) => [row.id, row]));
      const categoryRows = new Map((await db.select().from(categories)).map((row) => [row.id, row]));
      const allDatasets = graph().getSubjects(namedNode(`${RDF}type`), namedNode(`${DCAT}Dataset`), null);
      expect(allDatasets).toHaveLength(published.length);
      expect(published).toHaveLength(1076 - hidden.length);

      let themed = 0;
      for (const record of published) {
        const dataset = datasetIri(record.id);
        expect(isA(graph(), dataset, `${DCAT}Dataset`)).toBe(true);
        expect(literal(one(graph(), dataset, `${DCT}identifier`), { language: '', datatype: `${XSD}string` })).toBe(String(record.id));
        // In the language its catalogue declared: Spanish for the seed's, English for the foreign one, none when undeclared.
        const language = record.id === special.foreign ? 'en' : record.id === special.undeclared ? '' : 'es';
        expect(literal(one(graph(), dataset, `${DCT}title`), { language })).toBe(record.title);
        expect(literal(one(graph(), dataset, `${DCT}description`), { language })).toBe(record.description ?? record.title);
        // The seed's catalogue declares Spanish and the Dominican Republic (the two below declare otherwise).
        if (record.id !== special.foreign && record.id !== special.undeclared) {
          expect(one(graph(), dataset, `${DCT}language`).value).toBe(`${LANGUAGE}SPA`);
          expect(one(graph(), dataset, `${DCT}spatial`).value).toBe('http://publications.europa.eu/resource/authority/country/DOM');
        }

        // Every seeded record names its issuer: the publisher, an agent with its name and website.
        const department = departmentRows.get(record.departmentId!)!;
        const publisher = one(graph(), dataset, `${DCT}publisher`);
        expect(publisher.value).toBe(`${ORIGIN}/collection/dep/${department.id}`);
        expect(isA(graph(), publisher, `${FOAF}Agent`)).toBe(true);
        expect(literal(one(graph(), publisher, `${FOAF}name`), { language: 'es' })).toBe(department.name);
        const homepages = objects(graph(), publisher, `${FOAF}homepage`).map((term) => term.value);
        expect(homepages).toEqual(department.website ? [webIri(department.website)] : []);

        // The theme is the record's category, a concept of the archive's scheme. 151 harvested
        // datasets came from datos.gob.do without a group: they have no theme rather than a made-up one.
        const themes = objects(graph(), dataset, `${DCAT}theme`).map((term) => term.value);
        if (record.categoryId === null) {
          expect(themes).toEqual([]);
          continue;
        }
        themed += 1;
        const category = categoryRows.get(record.categoryId)!;
        const concept = `${ORIGIN}/collection/cat/${category.id}`;
        expect(themes).toContain(concept);
        expect(isA(graph(), concept, `${SKOS}Concept`)).toBe(true);
        expect(literal(one(graph(), concept, `${SKOS}prefLabel`), { language: 'es' })).toBe(category.title);
        expect(one(graph(), concept, `${SKOS}inScheme`).value).toBe(`${ORIGIN}/group/cat`);
        expect(themes.filter((theme) => theme.startsWith('http://publications.europa.eu/resource/authority/data-theme/')).length).toBeLessThanOrEqual(1);
      }
      expect(themed).toBe(published.filter((record) => record.categoryId !== null).length);
      expect(themed).toBeGreaterThan(900);
    });

    it('gives every archived record a distribution on the gateway with media type, size and the real SHA-256', async () => {
      const archived = published.filter((record) => record.cid !== null);
      expect(archived).toHaveLength(10);
      // The seed's files came from datos.gob.do's institutions: their pages are there to be named.
      expect(archived.every((record) => webIri(record.sourceUrl))).toBe(true);
      for (const record of archived) {
        const cid = record.cid!;
        const dataset = datasetIri(record.id);
        expect(one(graph(), dataset, `${DCAT}landingPage`).value).toBe(`${ORIGIN}/single/src/${cid}?assetId=${record.id}`);
        // Where it came from stays named: its origin's page (and, below, where its file was captured from).
        expect(objects(graph(), dataset, `${DCT}source`).map((term) => term.value)).toEqual(webIri(record.sourceUrl) ? [webIri(record.sourceUrl)] : []);
        const notation = one(graph(), one(graph(), dataset, `${ADMS}identifier`), `${SKOS}notation`);
        expect(literal(notation, { language: '' })).toBe(cid);

        // Its current file (a record whose file changed lists its earlier versions beside it).
        const distribution = one(graph(), dataset, `${DCAT}distribution`, (term) => term.value === `${dataset}/distribution`);
        expect(isA(graph(), distribution, `${DCAT}Distribution`)).toBe(true);
        expect(literal(one(graph(), distribution, `${DCT}identifier`), { language: '' })).toBe(`ipfs://${cid}`);
        // Titled by its file's name, a name in no language; a file without one, by the record's title in the record's.
        const title = one(graph(), distribution, `${DCT}title`);
        if (record.fileName) expect(literal(title, { language: '', datatype: `${XSD}string` })).toBe(record.fileName);
        else expect(literal(title, { language: 'es' })).toBe(record.title);
        const download = one(graph(), distribution, `${DCAT}downloadURL`).value;
        expect(download.endsWith(`/ipfs/${cid}`)).toBe(true);
        expect(download).toBe(`${ORIGIN}/ipfs/${cid}`);
        expect(one(graph(), distribution, `${DCAT}accessURL`).value).toBe(download);
        // Issued when the archive got the file: its version's capture, else the upload that created the record.
        const issued = literal(one(graph(), distribution, `${DCT}issued`), { datatype: `${XSD}dateTime` });
        expect(issued, `${record.id}`).toBe(record.id === special.versioned ? CURRENT_CAPTURED_AT : record.createdAt.toISOString());
        expect(one(graph(), distribution, `${DCAT}mediaType`).value).toBe(`http://www.iana.org/assignments/media-types/${record.mimeType}`);
        // Where its bytes were captured from (after redirects); the seed's files came with it.
        expect(objects(graph(), distribution, `${DCT}source`).map((term) => term.value)).toEqual(record.id === special.versioned ? [CAPTURED_FROM] : []);
        expect(one(graph(), distribution, `${DCT}format`).value).toBe(
          `http://publications.europa.eu/resource/authority/file-type/${record.type.toUpperCase()}`,
        );

        const file = await fs.readFile(path.join(FIXTURES_DIR, 'files', record.originKey!.replace(/^fixtures:/, '')));
        const size = literal(one(graph(), distribution, `${DCAT}byteSize`), { datatype: `${XSD}decimal` });
        expect(Number(size)).toBe(record.fileSize);
        expect(Number(size)).toBe(file.byteLength);

        const checksums = objects(graph(), distribution, `${SPDX}checksum`);
        if (record.id === special.noChecksum) {
          expect(checksums).toEqual([]);
          continue;
        }
        expect(checksums).toHaveLength(1);
        const checksum = checksums[0]!;
        expect(isA(graph(), checksum, `${SPDX}Checksum`)).toBe(true);
        expect(one(graph(), checksum, `${SPDX}algorithm`).value).toBe(`${SPDX}checksumAlgorithm_sha256`);
        const value = literal(one(graph(), checksum, `${SPDX}checksumValue`), { datatype: `${XSD}hexBinary` });
        expect(value).toBe(createHash('sha256').update(file).digest('hex'));
      }
    });

    it('lists every earlier version of a captured file as a distribution of its own, issued when captured, a version of the dataset', () => {
      const dataset = datasetIri(special.versioned);
      const distributions = objects(graph(), dataset, `${DCAT}distribution`).map((term) => term.value);
      expect(distributions.sort()).toEqual([`${dataset}/distribution`, `${dataset}/distribution/v1`]);
      const older = `${dataset}/distribution/v1`;
      expect(isA(graph(), older, `${DCAT}Distribution`)).toBe(true);
      expect(literal(one(graph(), older, `${DCT}identifier`), { language: '' })).toBe(`ipfs://${special.earlierCid}`);
      expect(one(graph(), older, `${DCAT}downloadURL`).value).toBe(`${ORIGIN}/ipfs/${special.earlierCid}`);
      expect(literal(one(graph(), older, `${DCT}issued`), { datatype: `${XSD}dateTime` })).toBe('2026-01-02T03:04:05.000Z');
      expect(one(graph(), older, `${DCT}isVersionOf`).value).toBe(dataset);
      expect(one(graph(), older, `${DCT}source`).value).toBe(EARLIER_CAPTURED_FROM);
      expect(Number(literal(one(graph(), older, `${DCAT}byteSize`), { datatype: `${XSD}decimal` }))).toBe(special.earlierSize);
      const checksum = one(graph(), older, `${SPDX}checksum`);
      expect(literal(one(graph(), checksum, `${SPDX}checksumValue`), { datatype: `${XSD}hexBinary` })).toBe(special.earlierSha);
      // The licence its catalogue declared, on every distribution (where DCAT-AP looks for it).
      for (const distribution of distributions) expect(one(graph(), distribution, `${DCT}license`).value).toBe('https://creativecommons.org/licenses/by/4.0/');
    });

    it('leaves records without a file as datasets without distribution, landing on their origin', () => {
      const waiting = published.filter((record) => record.cid === null);
      for (const record of waiting) {
        const dataset = datasetIri(record.id);
        expect(objects(graph(), dataset, `${DCAT}distribution`)).toEqual([]);
        const landing = objects(graph(), dataset, `${DCAT}landingPage`).map((term) => term.value);
        if (record.id === special.badSource) expect(landing).toEqual([]);
        else if (record.id === special.tricky) expect(landing).toEqual([webIri(TRICKY_SOURCE)]);
        else expect(landing).toEqual([record.sourceUrl]);
      }
      // One per archived file, and one for the versioned record's earlier version.
      expect(graph().getSubjects(namedNode(`${RDF}type`), namedNode(`${DCAT}Distribution`), null)).toHaveLength(10 + 1);
    });

    it('leaves blocked and broken records out entirely', () => {
      for (const id of hidden) {
        const iri = namedNode(datasetIri(id));
        expect(graph().getQuads(iri, null, null, null)).toEqual([]);
        expect(graph().getQuads(null, null, iri, null)).toEqual([]);
        expect(graph().getQuads(namedNode(`${datasetIri(id)}/distribution`), null, null, null)).toEqual([]);
      }
    });

    it("states a record's update frequency, contact point and temporal coverage as DCAT-AP does, and only what it has", () => {
      const { full, open, closing } = special.facts;
      const contact = (id: number) => one(graph(), datasetIri(id), `${DCAT}contactPoint`);
      const period = (id: number) => one(graph(), datasetIri(id), `${DCT}temporal`);

      expect(one(graph(), datasetIri(full), `${DCT}accrualPeriodicity`).value).toBe(`${FREQUENCY}MONTHLY`);
      expect(isA(graph(), contact(full), `${VCARD}Kind`)).toBe(true);
      expect(literal(one(graph(), contact(full), `${VCARD}fn`), { language: 'es' })).toBe('Oficina de Acceso a la Información');
      expect(one(graph(), contact(full), `${VCARD}hasEmail`)).toMatchObject({ termType: 'NamedNode', value: 'mailto:datosabiertos@one.gob.do' });
      expect(isA(graph(), period(full), `${DCT}PeriodOfTime`)).toBe(true);
      expect(literal(one(graph(), period(full), `${DCAT}startDate`), { datatype: `${XSD}date` })).toBe('2017-01-01');
      expect(literal(one(graph(), period(full), `${DCAT}endDate`), { datatype: `${XSD}date` })).toBe('2017-12-31');
      expect(objects(graph(), period(full), `${RDFS}label`)).toEqual([]);

      // A frequency outside the EU table keeps its words, as the label of a dct:Frequency of its
      // own (not guessed into the table); what the record lacks is not stated empty.
      const ownFrequency = one(graph(), datasetIri(open), `${DCT}accrualPeriodicity`);
      expect(ownFrequency.termType).toBe('BlankNode');
      expect(objects(graph(), ownFrequency, `${RDF}type`).map((term) => term.value)).toEqual([`${DCT}Frequency`]);
      expect(literal(one(graph(), ownFrequency, `${RDFS}label`), { language: 'es' })).toBe('Cuando cambia la ley');
      expect(objects(graph(), contact(open), `${VCARD}fn`)).toEqual([]);
      expect(one(graph(), contact(open), `${VCARD}hasEmail`).value).toBe('mailto:año%7B2024%7D%7Cdatos@municipio.gob.do');
      expect(literal(one(graph(), period(open), `${DCAT}startDate`), { datatype: `${XSD}date` })).toBe('2019-03-01');
      expect(objects(graph(), period(open), `${DCAT}endDate`)).toEqual([]);
      expect(literal(one(graph(), period(open), `${RDFS}label`), { language: 'es' })).toBe('Desde la reforma de 2019');

      expect(one(graph(), datasetIri(closing), `${DCT}accrualPeriodicity`).value).toBe(`${FREQUENCY}ANNUAL`);
      expect(literal(one(graph(), contact(closing), `${VCARD}fn`), { language: 'es' })).toBe('Departamento de Estadísticas "Sectoriales"');
      expect(objects(graph(), contact(closing), `${VCARD}hasEmail`)).toEqual([]);
      expect(objects(graph(), period(closing), `${DCAT}startDate`)).toEqual([]);
      expect(literal(one(graph(), period(closing), `${DCAT}endDate`), { datatype: `${XSD}date` })).toBe('2020-06-30');

      // The licence and keywords its catalogue declared: its IRI, or a licence document named by its
      // title alone; the keywords with the category's title, each once.
      const license = (id: number) => one(graph(), datasetIri(id), `${DCT}license`);
      expect(license(full)).toMatchObject({ termType: 'NamedNode', value: 'https://creativecommons.org/licenses/by/4.0/' });
      expect(license(open).termType).toBe('BlankNode');
      expect(isA(graph(), license(open), `${DCT}LicenseDocument`)).toBe(true);
      expect(literal(one(graph(), license(open), `${RDFS}label`), { language: 'es' })).toBe('Licencia de datos abiertos del municipio');
      expect(license(closing)).toMatchObject({ termType: 'NamedNode', value: 'https://www.datos.gob.do/licencia' });
      const keywords = (id: number) => objects(graph(), datasetIri(id), `${DCAT}keyword`).map((term) => term.value);
      const categoryOf = (id: number) => published.find((row) => row.id === id)!.categoryId;
      expect(keywords(full)).toEqual(expect.arrayContaining(['matrícula', 'escuelas públicas']));
      expect(keywords(full)).toHaveLength(categoryOf(full) === null ? 2 : 3);
      expect(keywords(closing)).toContain('presupuesto');

      // Every other record (the seed declares none of the three) states none of them.
      const withFacts = new Set([...Object.values(special.facts), special.foreign, special.undeclared]);
      for (const record of published.filter((row) => !withFacts.has(row.id))) {
        for (const predicate of [`${DCT}accrualPeriodicity`, `${DCAT}contactPoint`, `${DCT}temporal`]) {
          expect(objects(graph(), datasetIri(record.id), predicate), `${record.id} ${predicate}`).toEqual([]);
        }
      }
      expect(graph().getSubjects(namedNode(`${RDF}type`), namedNode(`${VCARD}Kind`), null)).toHaveLength(5);
      expect(graph().getSubjects(namedNode(`${RDF}type`), namedNode(`${DCT}PeriodOfTime`), null)).toHaveLength(5);
    });

    it("states a harvested record's languages and areas as its catalogue declared them, and none it did not declare", () => {
      const stated = (id: number, predicate: string) => objects(graph(), datasetIri(id), predicate);
      expect(stated(special.foreign, `${DCT}language`).map((term) => term.value)).toEqual([`${LANGUAGE}ENG`]);
      const areas = stated(special.foreign, `${DCT}spatial`);
      expect(areas.filter((term) => term.termType === 'NamedNode').map((term) => term.value)).toEqual(['http://publications.europa.eu/resource/authority/country/CHL']);
      const named = areas.find((term) => term.termType === 'BlankNode')!;
      expect(isA(graph(), named, `${DCT}Location`)).toBe(true);
      expect(literal(one(graph(), named, `${SKOS}prefLabel`), { language: '' })).toBe('Región de Valparaíso');
      // A catalogue that says nothing of them: the archive does not say Spanish or Dominican for it.
      expect(stated(special.undeclared, `${DCT}language`)).toEqual([]);
      expect(stated(special.undeclared, `${DCT}spatial`)).toEqual([]);
      // Nor does it tag its words Spanish: the English one's are English, the undeclared one's plain;
      // the archive's own category stays Spanish among the keywords.
      expect(literal(one(graph(), datasetIri(special.foreign), `${DCT}title`), { language: 'en' })).toBeTruthy();
      expect(literal(one(graph(), datasetIri(special.undeclared), `${DCT}title`), { language: '', datatype: `${XSD}string` })).toBeTruthy();
      const keywords = stated(special.foreign, `${DCAT}keyword`) as Array<Term & { language: string }>;
      const [foreignRecord] = published.filter((record) => record.id === special.foreign);
      expect(keywords.filter((term) => term.language === 'es').map((term) => term.value)).toEqual(foreignRecord!.categoryId === null ? [] : [expect.any(String)]);
      expect(keywords.filter((term) => term.language === 'en')).toHaveLength(keywords.length - (foreignRecord!.categoryId === null ? 0 : 1));
      // The rest of its catalogue's words too: a licence's title, a frequency, a contact's name, a period.
      const declaredWords = (id: number) => [
        one(graph(), one(graph(), datasetIri(id), `${DCT}license`), `${RDFS}label`),
        one(graph(), one(graph(), datasetIri(id), `${DCT}accrualPeriodicity`), `${RDFS}label`),
        one(graph(), one(graph(), datasetIri(id), `${DCAT}contactPoint`), `${VCARD}fn`),
        one(graph(), one(graph(), datasetIri(id), `${DCT}temporal`), `${RDFS}label`),
      ];
      const expected = [FOREIGN_WORDS.licenseTitle, FOREIGN_WORDS.updateFrequency, FOREIGN_WORDS.contactName, FOREIGN_WORDS.temporalText];
      expect(declaredWords(special.foreign).map((term) => literal(term, { language: 'en' }))).toEqual(expected);
      expect(declaredWords(special.undeclared).map((term) => literal(term, { language: '', datatype: `${XSD}string` }))).toEqual(expected);
    });

    it('carries quotes, line breaks, markup and accents exactly', () => {
      const dataset = datasetIri(special.tricky);
      expect(literal(one(graph(), dataset, `${DCT}title`), { language: 'es' })).toBe(TRICKY_TITLE);
      expect(literal(one(graph(), dataset, `${DCT}description`), { language: 'es' })).toBe(TRICKY_DESCRIPTION);
      // The injected text stayed a value: no statement beyond what every dataset has.
      expect(objects(graph(), dataset, `${DCT}title`)).toHaveLength(1);
      const landing = one(graph(), dataset, `${DCAT}landingPage`).value;
      expect(landing).not.toMatch(/[\s<>"{}|^`\\]/);
      expect(landing.startsWith('https://example.org/p%C3%A1gina%20con%20espacios/')).toBe(true);
      // A record without a description is described by its title (DCAT-AP requires one).
      const untold = published.find((record) => record.id === special.noDescription)!;
      expect(literal(one(graph(), datasetIri(untold.id), `${DCT}description`), { language: 'es' })).toBe(untold.title);
    });
  });

  it("gives the archive's own DCAT harvester back each record's dates, frequency, contact and coverage", async () => {
    /** The catalogue's answer handed to the reader as its fetcher would: no network involved. */
    const fetchOwnCatalog: FetchPage = async (url) => {
      const response = await fetchCatalog(url.endsWith('.ttl') ? 'turtle' : 'jsonld');
      return { body: await response.text(), contentType: response.headers.get('content-type') };
    };
    for (const path of ['/catalog.jsonld', '/catalog.ttl']) {
      const read: CatalogDataset[] = [];
      for await (const page of readCatalog('dcat', `${ORIGIN}${path}`, fetchOwnCatalog)) read.push(...page.datasets);
      const byId = new Map(read.map((dataset) => [dataset.identifier, dataset]));
      // Every dataset once, and nothing else: the catalogue records are not taken for datasets.
      expect(read, path).toHaveLength(published.length);
      expect([...byId.keys()].sort(), path).toEqual(published.map((record) => String(record.id)).sort());
      for (const record of published) {
        // The original's dates, as its catalogue declared them; the archive's stay the archive's.
        const back = byId.get(String(record.id))!;
        expect({ issued: back.issued, modified: back.modified }, `${path} ${record.id}`).toEqual({ issued: record.issued, modified: record.modified });
      }
      for (const name of FACT_CASES) {
        const declared = DECLARED_FACTS[name];
        const back = byId.get(String(special.facts[name]))!;
        // A frequency the EU table names comes back as its IRI, which names the same frequency;
        // one it does not comes back in the catalogue's own words.
        const known = frequencyIri(declared.updateFrequency);
        expect(back.updateFrequency && (known ? frequencyIri(back.updateFrequency) : back.updateFrequency), `${path} ${name}`).toBe(
          known ?? declared.updateFrequency,
        );
        expect(back.contact, `${path} ${name}`).toEqual({ name: declared.contactName, email: declared.contactEmail });
        expect(back.temporal, `${path} ${name}`).toEqual({ start: declared.temporalStart, end: declared.temporalEnd, text: declared.temporalText });
        // A licence's IRI comes back without the title its catalogue gave it (an IRI is not labelled).
        expect(back.license, `${path} ${name}`).toEqual({ title: declared.licenseUrl ? null : declared.licenseTitle, url: declared.licenseUrl });
        expect(back.keywords, `${path} ${name}`).toEqual(expect.arrayContaining(declared.keywords));
      }
      expect(byId.get(String(special.facts.full))!.updateFrequency).toBe(`${FREQUENCY}MONTHLY`);
      expect(byId.get(String(special.facts.open))!.updateFrequency).toBe('Cuando cambia la ley');
      // An English catalogue's words come back as they were written, whatever their language tag.
      for (const id of [special.foreign, special.undeclared]) {
        expect(byId.get(String(id))).toMatchObject({
          updateFrequency: FOREIGN_WORDS.updateFrequency,
          contact: { name: FOREIGN_WORDS.contactName, email: null },
          license: { title: FOREIGN_WORDS.licenseTitle, url: null },
          temporal: expect.objectContaining({ text: FOREIGN_WORDS.temporalText }),
        });
      }
      const withFacts = new Set([...Object.values(special.facts), special.foreign, special.undeclared].map(String));
      const others = read.filter((dataset) => !withFacts.has(dataset.identifier));
      expect(others.length).toBeGreaterThan(1000);
      expect(others.filter((dataset) => dataset.updateFrequency !== null || dataset.contact !== null || dataset.temporal !== null)).toEqual([]);
    }
  });

  it('writes catalogues one chunk at a time, and a client that stops reading holds up nobody', async () => {
    // Catalogues are written in one lane, a chunk at a time: a reader who takes a first chunk and
    // then stalls must not keep the next client from its whole catalogue.
    const stalled = await fetchCatalog('jsonld', {}, 25);
    const reader = stalled.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const whole = await Promise.race([
      fetchCatalog('turtle', {}, 25).then((response) => response.text()),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('el segundo catálogo esperó al lector parado')), 20_000)),
    ]);
    expect(whole).toContain('dcat:Catalog');
    // Two read together both come whole, each the same document as alone.
    const [one, two] = await Promise.all([fetchCatalog('jsonld', {}, 25), fetchCatalog('jsonld', {}, 25)].map(async (response) => (await response).text()));
    expect(one).toBe(two);
    expect(JSON.parse(one!)).toBeTruthy();
    await reader.cancel();
  }, 60_000);

  it('sends a few documents at once at most: the next wait their turn, in line, and past a full line are refused with a 503 to retry', async () => {
    // Clients that stop reading keep their documents open, and a page of records each.
    expect([CATALOG_DOCUMENTS_AT_ONCE, CATALOG_DOCUMENTS_WAITING]).toEqual([8, 64]);
    // HEADs (an uptime monitor's) hold no turn: their body, which Astro throws away unread, is none.
    for (let n = 0; n < CATALOG_DOCUMENTS_AT_ONCE + 2; n += 1) {
      const head = await fetchCatalog('turtle', { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body).toBeNull();
      expect(head.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    }
    const open = await Promise.all(Array.from({ length: CATALOG_DOCUMENTS_AT_ONCE }, (_, index) => fetchCatalog(index % 2 ? 'turtle' : 'jsonld', {}, 50)));
    // The line: each waits, holding nothing, until a document is done with (or its client leaves).
    const leaving = new AbortController();
    const waiting = Array.from({ length: CATALOG_DOCUMENTS_WAITING }, () => fetchCatalog('turtle', { signal: leaving.signal }));
    let served = 0;
    const done = waiting.map((answer) =>
      answer.then(
        (response) => (served += 1, response),
        () => null,
      ),
    );
    // Each joins the line once it has the catalogue's tag (a query, slower on PostgreSQL's pool).
    await expect.poll(catalogDocumentsWaiting, { timeout: 20_000 }).toBe(CATALOG_DOCUMENTS_WAITING);
    const refused = await fetchCatalog('turtle').then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ status: 503, headers: { 'Retry-After': '30' } });
    expect((refused as HttpError).message).toBe('Se están enviando demasiadas copias del catálogo a la vez; vuelva a pedirlo en medio minuto.');
    expect(served).toBe(0);
    // One abandoned before its first byte, one read to its end: two of the line served, in turn.
    await open[0]!.body!.cancel();
    expect(await open[1]!.text()).toContain('dcat:Catalog');
    await expect.poll(() => served).toBe(2);
    // The rest of the line leaves (their clients gone): they are let out of it, and every turn comes back.
    leaving.abort();
    for (const answer of await Promise.all(done)) await answer?.body!.cancel();
    for (const response of open.slice(2)) await response.body!.cancel();
    expect(served).toBe(2);
    expect(catalogDocumentsWaiting()).toBe(0);
    const last = await fetchCatalog('turtle');
    expect(last.status).toBe(200);
    // Given back too: the turns are this module's, and the other engine's tests run after these.
    await last.body!.cancel();
  }, 60_000);

  it('answers 304 to a harvester whose copy is current, and a full catalogue once the records change', async () => {
    const etag = documents.turtle.headers.get('etag')!;
    const unchanged = await fetchCatalog('turtle', { headers: { 'If-None-Match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(await unchanged.text()).toBe('');

    await seeded.db.update(alexandrias).set({ title: 'Título nuevo' }).where(eq(alexandrias.id, special.noDescription));
    const changed = await fetchCatalog('turtle', { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(await changed.text()).toContain('"Título nuevo"@es');
  });
});
