import { eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPath } from '../../src/lib/paths.ts';
import { alexandrias, categories, departments, sources } from '../../src/lib/server/db/schema.ts';
import { getGroupItem, listRecords, recordsByCid } from '../../src/lib/server/queries/index.ts';
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
    const [record] = await recordsByCid(db(), file!.cid!);
    return record!;
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
        dateModified: record.updatedAt.toISOString(),
      });
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

  describe('the sitemap', () => {
    async function wholeList(): Promise<SitemapEntry[]> {
      return sitemapEntries(db(), { offset: 0, limit: 1_000_000 });
    }

    it('lists every source, department and category page, and every archived record once', async () => {
      // The watch's two pages (/desaparecidos, /preservacion), then the groups and the records.
      const expected =
        2 + (await db().$count(sources)) + (await db().$count(departments)) + (await db().$count(categories)) + (await recordsWithCid()).length;
      expect(await sitemapSize(db())).toBe(expected);
      const entries = await wholeList();
      expect(entries).toHaveLength(expected);
      const paths = entries.map((entry) => entry.path);
      expect(new Set(paths).size).toBe(paths.length);
      const records = await recordsWithCid();
      expect(records).toHaveLength(11);
      for (const record of records) {
        expect(paths.filter((path) => path === recordPath({ cid: record.cid!, id: record.id }))).toHaveLength(1);
      }
      expect(paths).toEqual(expect.arrayContaining(['/desaparecidos', '/preservacion']));
      for (const entity of ['src', 'dep', 'cat']) {
        expect(paths.some((path) => path.startsWith(`/collection/${entity}/`))).toBe(true);
      }
      expect(entries.every((entry) => entry.lastmod instanceof Date && !Number.isNaN(entry.lastmod.getTime()))).toBe(true);
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

    it('dates a collection page by its newest record', async () => {
      const record = await sisalrilPdf();
      await db().update(alexandrias).set({ updatedAt: new Date('2030-01-01T00:00:00Z') }).where(eq(alexandrias.id, record.id));
      try {
        const entries = await wholeList();
        const page = entries.find((entry) => entry.path === `/collection/dep/${record.department!.id}`);
        expect(page?.lastmod.toISOString()).toBe('2030-01-01T00:00:00.000Z');
      } finally {
        await db().update(alexandrias).set({ updatedAt: record.updatedAt }).where(eq(alexandrias.id, record.id));
      }
    });

    it('leaves out a record a moderator blocked', async () => {
      const record = await sisalrilPdf();
      const before = await sitemapSize(db());
      await db().update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, record.id));
      try {
        expect(await sitemapSize(db())).toBe(before - 1);
        const paths = (await wholeList()).map((entry) => entry.path);
        expect(paths).not.toContain(recordPath({ cid: record.cid!, id: record.id }));
      } finally {
        await db().update(alexandrias).set({ status: record.status, updatedAt: record.updatedAt }).where(eq(alexandrias.id, record.id));
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
