import { and, count, desc, eq, inArray, isNotNull, isNull, max, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPath } from '../../src/lib/paths.ts';
import { alexandrias, captures, categories, departments, sources } from '../../src/lib/server/db/schema.ts';
import { getGroupItem, getRecord, listRecords, loadRecordById } from '../../src/lib/server/queries/index.ts';
import { sitemapEntries, sitemapSize, type SitemapEntry } from '../../src/lib/server/queries/sitemap.ts';
import { collectionJsonLd, datasetJsonLd } from '../../src/lib/server/seo/jsonld.ts';
import { renderSitemap, renderSitemapFile } from '../../src/lib/server/seo/sitemap.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

const ORIGIN = 'https://archivo.example';

describe.each(testEngines())('findability on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const db = () => seeded.db;
  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  async function sisalrilPdf() {
    const [file] = await db().select().from(alexandrias).where(eq(alexandrias.fileName, 'sisalril-pespj-d1.pdf'));
    return (await getRecord(db(), file!.id))!;
  }

  async function recordsWithCid() {
    return db().select({ id: alexandrias.id, cid: alexandrias.cid }).from(alexandrias).where(isNotNull(alexandrias.cid));
  }

  describe('the Dataset of a record', () => {
    it('names the issuer as publisher and the archived PDF as its download', async () => {
      const record = await sisalrilPdf();
      const [issuer] = await db().select().from(departments).where(eq(departments.acronym, 'SISALRIL'));
      const dataset = datasetJsonLd(record, ORIGIN);
      const url = `${ORIGIN}/single/src/${record.cid}?assetId=${record.id}`;
      expect(dataset).toMatchObject({
        '@type': 'Dataset',
        url,
        name: record.title,
        identifier: [record.cid, { '@type': 'PropertyValue', propertyID: 'CID', value: record.cid }],
        publisher: { '@type': 'Organization', name: issuer!.name, alternateName: 'SISALRIL', url: issuer!.website },
        keywords: ['Salud'],
        // A hand-archived file: the archive's dates are its page's, the original's are not known.
        mainEntityOfPage: { '@type': 'ItemPage', url, datePublished: record.createdAt.toISOString(), dateModified: record.updatedAt.toISOString() },
      });
      expect(dataset).not.toHaveProperty('datePublished');
      expect(dataset).not.toHaveProperty('dateModified');
      // Not harvested: the archive's own language and area, as its DCAT catalogue states them.
      expect(record.harvested).toBe(false);
      expect(dataset).toMatchObject({ inLanguage: 'es', spatialCoverage: { '@type': 'Place', name: 'República Dominicana' } });
      expect(dataset.creator).toEqual(dataset.publisher);
      expect(dataset.distribution).toEqual([
        {
          '@type': 'DataDownload',
          name: 'sisalril-pespj-d1.pdf',
          identifier: record.cid,
          contentUrl: `${ORIGIN}/ipfs/${record.cid}`,
          encodingFormat: 'application/pdf',
          contentSize: `${record.fileSize} B`,
        },
      ]);
      // The seeded files were published on the issuer's home page: based on it, not the same thing.
      expect(dataset.isBasedOn).toBe('https://sisalril.gob.do');
      expect(dataset).not.toHaveProperty('sameAs');
    });

    it('lists a department page with its records', async () => {
      const record = await sisalrilPdf();
      const item = await getGroupItem(db(), 'dep', record.department!.id);
      const page = await listRecords(db(), { entity: 'dep', id: item!.id }, 1);
      const jsonLd = collectionJsonLd(item!, page.items, ORIGIN, 1);
      expect(jsonLd).toMatchObject({
        '@type': 'CollectionPage',
        url: `${ORIGIN}/collection/dep/${item!.id}`,
        mainEntity: { '@type': 'ItemList', numberOfItems: page.total },
      });
      expect(JSON.stringify(jsonLd)).toContain(`${ORIGIN}${recordPath({ cid: record.cid!, id: record.id })}`);
    });
  });

  describe('the page of a record without a file', () => {
    async function catalogued() {
      const [row] = await db().select().from(alexandrias).where(isNull(alexandrias.cid)).orderBy(alexandrias.id).limit(1);
      return row!;
    }

    it('is read by id, with what the catalogue knows and nothing of a file', async () => {
      const row = await catalogued();
      const page = await loadRecordById(db(), row.id);
      expect(page?.record).toMatchObject({ id: row.id, cid: null, title: row.title, formats: row.formats, sourceUrl: row.sourceUrl });
      expect(page?.record.formats.length).toBeGreaterThan(0);
      expect(page?.storage).toEqual({ pins: [], deals: [] });
      expect(page?.versions).toEqual([]);
      expect(page?.siblings).toEqual([]);
      expect(page?.record.capture).toBeNull();
      expect(recordPath(page!.record)).toBe(`/registro/${row.id}`);
      // Its Dataset is its own page, based on where the original is published.
      const dataset = datasetJsonLd(page!.record, ORIGIN);
      expect(dataset).toMatchObject({ '@type': 'Dataset', '@id': `${ORIGIN}/registro/${row.id}`, url: `${ORIGIN}/registro/${row.id}`, name: row.title });
      expect(dataset).not.toHaveProperty('distribution');
    });

    it("states the coverage and the publisher's contact its catalogue declared, and none when it declared none", async () => {
      const [row] = await db()
        .select()
        .from(alexandrias)
        .where(and(isNull(alexandrias.cid), isNotNull(alexandrias.departmentId)))
        .orderBy(alexandrias.id)
        .limit(1);
      const before = datasetJsonLd((await loadRecordById(db(), row!.id))!.record, ORIGIN);
      expect(before).not.toHaveProperty('temporalCoverage');
      expect(before.publisher).toBeDefined();
      expect(before.publisher).not.toHaveProperty('contactPoint');

      const facts = { updateFrequency: 'Anual', contactName: 'Oficina de Acceso a la Información', contactEmail: 'oai@one.gob.do', temporalStart: '2015-01-01', temporalEnd: null };
      await db().update(alexandrias).set(facts).where(eq(alexandrias.id, row!.id));
      try {
        const dataset = datasetJsonLd((await loadRecordById(db(), row!.id))!.record, ORIGIN);
        expect(dataset.temporalCoverage).toBe('2015-01-01/..');
        expect(dataset.publisher).toMatchObject({ '@type': 'Organization', contactPoint: { '@type': 'ContactPoint', name: facts.contactName, email: facts.contactEmail } });
        expect(JSON.stringify(dataset)).not.toContain('Anual');
      } finally {
        await db()
          .update(alexandrias)
          .set({ updateFrequency: null, contactName: null, contactEmail: null, temporalStart: null })
          .where(eq(alexandrias.id, row!.id));
      }
    });

    it("carries the failed capture's reason once the harvest tried", async () => {
      const row = await catalogued();
      const url = 'https://datos.gob.do/dataset/x/resource/1.csv';
      const [capture] = await db()
        .insert(captures)
        .values({ alexandriaId: row.id, requestedUrl: url, status: 404, errorReason: 'La fuente respondió 404 (no encontrado).' })
        .returning();
      try {
        const page = await loadRecordById(db(), row.id);
        expect(page?.record.capture).toMatchObject({ requestedUrl: url, cid: null, errorReason: 'La fuente respondió 404 (no encontrado).' });
      } finally {
        await db().delete(captures).where(eq(captures.id, capture!.id));
      }
    });

    it('is the same record when it has a file (its page then lives at its CID), and nothing for an unknown id', async () => {
      const record = await sisalrilPdf();
      expect((await loadRecordById(db(), record.id))?.record.cid).toBe(record.cid);
      expect(await loadRecordById(db(), 2_000_000_000)).toBeNull();
    });
  });

  describe('the sitemap', () => {
    async function wholeList(): Promise<SitemapEntry[]> {
      return sitemapEntries(db(), { offset: 0, limit: 1_000_000 });
    }

    it('lists every source, department and category page, and every public record once', async () => {
      // The watch's two pages (/desaparecidos, /preservacion), the archive's own six, then the groups and the records.
      const records = await db().select({ id: alexandrias.id, cid: alexandrias.cid }).from(alexandrias).where(ne(alexandrias.status, 'blocked'));
      // The seed: the 1,065 datasets of the catalogue, without a file, and the 11 real files.
      expect(records).toHaveLength(1_065 + 11);
      // A group's page is listed once something is filed there; the seed has groups with nothing yet.
      const filed = async (column: typeof alexandrias.sourceId | typeof alexandrias.departmentId | typeof alexandrias.categoryId) =>
        (await db().selectDistinct({ id: column }).from(alexandrias).where(isNotNull(column))).length;
      const groups = (await filed(alexandrias.sourceId)) + (await filed(alexandrias.departmentId)) + (await filed(alexandrias.categoryId));
      expect(groups).toBeLessThan((await db().$count(sources)) + (await db().$count(departments)) + (await db().$count(categories)));
      const expected = 2 + 6 + groups + records.length;
      expect(await sitemapSize(db())).toBe(expected);
      const entries = await wholeList();
      expect(entries).toHaveLength(expected);
      const paths = entries.map((entry) => entry.path);
      expect(new Set(paths).size).toBe(paths.length);
      const listed = new Set(paths);
      for (const record of records) expect(listed.has(recordPath(record))).toBe(true);
      expect(paths.filter((path) => path.startsWith('/single/src/'))).toHaveLength((await recordsWithCid()).length);
      expect(paths.filter((path) => /^\/registro\/\d+$/.test(path))).toHaveLength(1_065);
      expect(paths).toEqual(expect.arrayContaining(['/desaparecidos', '/preservacion']));
      // Nothing has disappeared and no audit has run in a fresh archive: no date, rather than 1970's.
      expect(entries.filter((entry) => entry.path === '/desaparecidos' || entry.path === '/preservacion').map((entry) => entry.lastmod)).toEqual([null, null]);
      // The archive's own pages: those that count the records dated by the newest, those built ahead undated.
      const [newest] = await db().select({ at: max(alexandrias.updatedAt) }).from(alexandrias);
      const own = entries.slice(2, 8);
      expect(own.map((entry) => entry.path)).toEqual(['/dashboard', '/group/src', '/group/dep', '/group/cat', '/docs', '/general/faq']);
      expect(own.map((entry) => entry.lastmod)).toEqual([newest!.at, newest!.at, newest!.at, newest!.at, null, null]);
      for (const entity of ['src', 'dep', 'cat']) {
        expect(paths.some((path) => path.startsWith(`/collection/${entity}/`))).toBe(true);
      }
      // Every other page has a real date.
      const undated = new Set(['/desaparecidos', '/preservacion', '/docs', '/general/faq']);
      const dated = entries.filter((entry) => !undated.has(entry.path));
      expect(dated.every((entry) => entry.lastmod instanceof Date && !Number.isNaN(entry.lastmod.getTime()))).toBe(true);
    });

    it('cuts the same list into windows across its parts', async () => {
      const whole = await wholeList();
      const windows: SitemapEntry[] = [];
      for (let offset = 0; offset < whole.length; offset += 37) {
        windows.push(...(await sitemapEntries(db(), { offset, limit: 37 })));
      }
      expect(windows).toEqual(whole);
      expect(await sitemapEntries(db(), { offset: whole.length, limit: 10 })).toEqual([]);
    });

    it('lists a category\'s page once a record is filed under it, not while it is empty', async () => {
      const [empty] = await db().insert(categories).values({ title: 'Categoría aún vacía', description: 'Nada archivado todavía.' }).returning();
      // A record of the largest category, so that its page stays listed when the record leaves.
      const [largest] = await db().select({ id: alexandrias.categoryId, records: count() }).from(alexandrias).groupBy(alexandrias.categoryId).orderBy(desc(count())).limit(1);
      expect(largest!.records).toBeGreaterThan(1);
      const [record] = await db().select().from(alexandrias).where(eq(alexandrias.categoryId, largest!.id!)).limit(1);
      try {
        const path = `/collection/cat/${empty!.id}`;
        const before = await sitemapSize(db());
        expect((await wholeList()).map((entry) => entry.path)).not.toContain(path);
        await db().update(alexandrias).set({ categoryId: empty!.id }).where(eq(alexandrias.id, record!.id));
        // The record left a category that keeps others: one more page in all.
        expect(await sitemapSize(db())).toBe(before + 1);
        expect((await wholeList()).map((entry) => entry.path)).toContain(path);
      } finally {
        await db().update(alexandrias).set({ categoryId: record!.categoryId, updatedAt: record!.updatedAt }).where(eq(alexandrias.id, record!.id));
        await db().delete(categories).where(eq(categories.id, empty!.id));
      }
    });

    it('dates a collection page by its newest record', async () => {
      const record = await sisalrilPdf();
      await db().update(alexandrias).set({ updatedAt: new Date('2030-01-01T00:00:00Z') }).where(eq(alexandrias.id, record.id));
      try {
        const entries = await wholeList();
        const page = entries.find((entry) => entry.path === `/collection/dep/${record.department!.id}`);
        expect(page?.lastmod?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
      } finally {
        await db().update(alexandrias).set({ updatedAt: record.updatedAt }).where(eq(alexandrias.id, record.id));
      }
    });

    it('leaves out a record a moderator blocked, with a file or without', async () => {
      const archived = await sisalrilPdf();
      const [catalogued] = await db().select().from(alexandrias).where(isNull(alexandrias.cid)).limit(1);
      const before = await sitemapSize(db());
      const blocked = [archived, catalogued!];
      await db().update(alexandrias).set({ status: 'blocked' }).where(inArray(alexandrias.id, blocked.map((record) => record.id)));
      try {
        expect(await sitemapSize(db())).toBe(before - 2);
        const paths = (await wholeList()).map((entry) => entry.path);
        for (const record of blocked) expect(paths).not.toContain(recordPath(record));
      } finally {
        for (const record of blocked) {
          await db().update(alexandrias).set({ status: record.status, updatedAt: record.updatedAt }).where(eq(alexandrias.id, record.id));
        }
      }
    });

    it('is one file while it fits, and an index of files once it does not', async () => {
      const total = await sitemapSize(db());
      const single = await renderSitemap(db(), ORIGIN);
      expect(single).toContain('<urlset');
      expect(single.match(/<url>/g)).toHaveLength(total);

      const perFile = 100;
      const index = await renderSitemap(db(), ORIGIN, perFile);
      const files = Math.ceil(total / perFile);
      expect(index).toContain('<sitemapindex');
      expect(index.match(/<sitemap>/g)).toHaveLength(files);
      expect(index).toContain(`<loc>${ORIGIN}/sitemap-${files}.xml</loc>`);
      let listed = 0;
      for (let n = 1; n <= files; n++) {
        const body = await renderSitemapFile(db(), ORIGIN, String(n), perFile);
        listed += body?.match(/<url>/g)?.length ?? 0;
      }
      expect(listed).toBe(total);
      for (const missing of [String(files + 1), '0', '01', 'abc', '1.5', undefined]) {
        expect(await renderSitemapFile(db(), ORIGIN, missing, perFile)).toBeNull();
      }
    });
  });
});
