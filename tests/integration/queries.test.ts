import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, categories, departments, harvestSources, imports, sources } from '../../src/lib/server/db/schema.ts';
import {
  archiveTotals,
  contributorRanking,
  countRecordsByFormat,
  countRecordsByGroup,
  countRecordsByStatus,
  getGroupItem,
  getRecord,
  largestGroups,
  largestGroupsOf,
  findGroups,
  latestImports,
  latestUploadsOf,
  listGroup,
  listRecords,
  loadRecord,
  searchGroups,
  searchRecords,
  storageStatus,
} from '../../src/lib/server/queries/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';

describe.each(testEngines())('the query layer on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  const db = () => seeded.db;
  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  it('counts records by dashboard format, xls and xlsx together', async () => {
    const formats = await countRecordsByFormat(db());
    expect(formats.map((row) => row.format)).toEqual(['pdf', 'csv', 'xlsx', 'ods', 'other']);
    const byType = await db()
      .select({ type: alexandrias.type, n: sql<number>`count(*)::int`, open: sql<number>`(count(*) filter (where status = 'under_review'))::int` })
      .from(alexandrias)
      .groupBy(alexandrias.type);
    const expected = (types: string[]) => byType.filter((row) => types.includes(row.type)).reduce((sum, row) => sum + row.n, 0);
    const row = (format: string) => formats.find((item) => item.format === format);
    expect(row('xlsx')?.total).toBe(expected(['xls', 'xlsx']));
    expect(row('csv')?.total).toBe(expected(['csv']));
    expect(formats.reduce((sum, item) => sum + item.total, 0)).toBe(seeded.report.records);
    expect(formats.reduce((sum, item) => sum + item.unprocessed, 0)).toBe(1065);
    // Files archived apart from catalogue entries (issue #20): only the records that have a CID.
    const archived = await db()
      .select({ type: alexandrias.type, n: sql<number>`count(*)::int` })
      .from(alexandrias)
      .where(isNotNull(alexandrias.cid))
      .groupBy(alexandrias.type);
    const archivedOf = (types: string[]) => archived.filter((item) => types.includes(item.type)).reduce((sum, item) => sum + item.n, 0);
    expect(row('csv')?.archived).toBe(archivedOf(['csv']));
    expect(row('xlsx')?.archived).toBe(archivedOf(['xls', 'xlsx']));
    expect(row('pdf')?.archived).toBe(archivedOf(['pdf']));
    expect(formats.reduce((sum, item) => sum + item.archived, 0)).toBe(11);
    expect(row('csv')!.archived).toBeLessThan(row('csv')!.total);
  });

  it('counts by status, and within one group', async () => {
    expect(await countRecordsByStatus(db())).toEqual({ under_review: 1065, on_line: 11, blocked: 0, broken: 0 });
    const [one] = await db().select().from(departments).where(eq(departments.acronym, 'ONE'));
    const inOne = await countRecordsByStatus(db(), { entity: 'dep', id: one!.id });
    // ONE publishes 10 datasets on the portal, and two of its files are archived here.
    expect(inOne).toEqual({ under_review: 10, on_line: 2, blocked: 0, broken: 0 });
  });

  it('ranks contributors by their published records, most first', async () => {
    expect(await contributorRanking(db())).toEqual([]);
    const wallet = '0xabc0000000000000000000000000000000000001';
    const other = '0xabc0000000000000000000000000000000000002';
    // Three published records and one still under review, which the ranking leaves out.
    const ids = (await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.status, 'on_line')).orderBy(alexandrias.id).limit(3)).map((r) => r.id);
    const [waiting] = await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.status, 'under_review')).limit(1);
    await db().update(alexandrias).set({ walletAddress: wallet }).where(sql`${alexandrias.id} in (${ids[0]}, ${ids[1]}, ${waiting!.id})`);
    await db().update(alexandrias).set({ walletAddress: other }).where(eq(alexandrias.id, ids[2]!));
    expect(await contributorRanking(db())).toEqual([
      { walletAddress: wallet, count: 2 },
      { walletAddress: other, count: 1 },
    ]);
    const uploads = await latestUploadsOf(db(), wallet.toUpperCase().replace('0X', '0x'));
    expect(uploads.map((record) => record.id).sort()).toEqual([ids[0], ids[1], waiting!.id].sort());
    await db().update(alexandrias).set({ walletAddress: null }).where(isNotNull(alexandrias.walletAddress));
  });

  it('counts records per source, department and category', async () => {
    const bySource = await countRecordsByGroup(db(), 'src');
    expect(bySource[0]).toMatchObject({ name: 'Portal de Datos Abiertos de la República Dominicana', count: 1065 });
    const byCategory = await countRecordsByGroup(db(), 'cat');
    const total = byCategory.reduce((sum, row) => sum + row.count, 0);
    const [{ n } = { n: 0 }] = await db().select({ n: sql<number>`count(*)::int` }).from(alexandrias).where(isNotNull(alexandrias.categoryId));
    expect(total).toBe(n);
    expect(byCategory[0]?.name).toBe('Gestión Pública');
  });

  it('lists the latest imports, newest first', async () => {
    const timeline = await latestImports(db());
    expect(timeline).toHaveLength(2);
    expect(timeline.map((item) => item.type).sort()).toEqual(['bulk', 'harvest']);
    const harvest = timeline.find((item) => item.type === 'harvest');
    expect(harvest).toMatchObject({ documents: 1065, status: 'done', source: { name: 'Portal de Datos Abiertos de la República Dominicana' } });
    expect(harvest?.sample).toBeNull();
    // A run names its catalogue: two catalogues of one site share the public source.
    expect(harvest?.catalogue).toMatch(/^Portal de Datos Abiertos de la República Dominicana \(exportación del \d{4}-\d{2}-\d{2}\)$/);
    expect(timeline.find((item) => item.type === 'bulk')?.catalogue).toBeNull();
    const bulk = timeline.find((item) => item.type === 'bulk');
    expect(bulk?.sample?.cid).toMatch(/^baf[ky]/);
    expect(bulk?.formats.reduce((sum, f) => sum + f.count, 0)).toBe(11);
    expect(harvest?.formats.reduce((sum, f) => sum + f.count, 0)).toBe(1065);
    // The link goes to the import's most recently updated archived record.
    const [newest] = await db()
      .select({ id: alexandrias.id })
      .from(alexandrias)
      .where(and(eq(alexandrias.importId, bulk!.id), isNotNull(alexandrias.cid)))
      .orderBy(desc(alexandrias.updatedAt), desc(alexandrias.id))
      .limit(1);
    expect(bulk?.sample?.id).toBe(newest!.id);

    // A scheduled run that found nothing to import stays off the timeline; one under way, or one that brought something, shows.
    const runs = await db()
      .insert(imports)
      .values([
        { type: 'harvest', status: 'done', documents: 0, documentsFailed: 0, sourceId: harvest!.source!.id },
        { type: 'harvest', status: 'in_progress', documents: 0, sourceId: harvest!.source!.id },
        { type: 'harvest', status: 'done', documents: 3, sourceId: harvest!.source!.id },
        // Withdrawals are news too.
        { type: 'harvest', status: 'done', documents: 0, harvestCounts: { new: 0, updated: 0, unchanged: 5, withdrawn: 2, failed: 0 }, sourceId: harvest!.source!.id },
      ])
      .returning({ id: imports.id });
    try {
      const shown = (await latestImports(db())).map((item) => item.id);
      expect(shown.slice(0, 3).sort()).toEqual([runs[1]!.id, runs[2]!.id, runs[3]!.id].sort());
      expect(shown).not.toContain(runs[0]!.id);
      expect(shown).toHaveLength(5);
      // A second catalogue of the same site (a mistyped address whose first run failed) is told apart.
      const [other] = await db().insert(harvestSources).values({ url: 'https://datos.gob.do/nada', kind: 'ckan', name: 'Dirección mal escrita', sourceId: harvest!.source!.id, paused: true }).returning({ id: harvestSources.id });
      const [failed] = await db().insert(imports).values({ type: 'harvest', status: 'failed', documents: 0, sourceId: harvest!.source!.id, harvestSourceId: other!.id }).returning({ id: imports.id });
      try {
        const [newest] = await latestImports(db());
        expect(newest).toMatchObject({ id: failed!.id, catalogue: 'Dirección mal escrita', source: { name: 'Portal de Datos Abiertos de la República Dominicana' } });
        // A withheld public source is named by neither its own name nor its catalogue's.
        await db().update(sources).set({ reviewStatus: 'refused' }).where(eq(sources.id, harvest!.source!.id));
        try {
          const [withheld] = await latestImports(db());
          expect(withheld).toMatchObject({ id: failed!.id, catalogue: null, source: null });
        } finally {
          await db().update(sources).set({ reviewStatus: 'on_line' }).where(eq(sources.id, harvest!.source!.id));
        }
      } finally {
        await db().delete(imports).where(eq(imports.id, failed!.id));
        await db().delete(harvestSources).where(eq(harvestSources.id, other!.id));
      }
    } finally {
      await db().delete(imports).where(inArray(imports.id, runs.map((run) => run.id)));
    }
  });

  it('pages a group by 10, most recently updated first', async () => {
    const first = await listGroup(db(), 'dep', 1);
    expect(first.items).toHaveLength(10);
    expect(first.total).toBe(await db().$count(departments));
    expect(first.pages).toBe(Math.ceil(first.total / 10));
    // Touch three departments, oldest first: they must lead the list, newest first.
    const touched = (await db().select({ id: departments.id }).from(departments).orderBy(departments.id).limit(3)).map((row) => row.id);
    for (const [index, id] of touched.entries()) {
      await db().update(departments).set({ updatedAt: new Date(Date.UTC(2030, 0, 1 + index)) }).where(eq(departments.id, id));
    }
    const touchedFirst = await listGroup(db(), 'dep', 1);
    expect(touchedFirst.items.slice(0, 3).map((item) => item.id)).toEqual([...touched].reverse());
    const second = await listGroup(db(), 'dep', 2);
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id);
    const beyond = await listGroup(db(), 'cat', 99);
    expect(beyond.items).toEqual([]);
    expect(beyond.total).toBe(11);
  });

  it('gives each group item its record counts by format', async () => {
    const [portal] = await db().select().from(sources).where(eq(sources.url, 'https://datos.gob.do'));
    const item = await getGroupItem(db(), 'src', portal!.id);
    expect(item?.records).toBe(1065);
    expect(Object.values(item!.byFormat).reduce((a, b) => a + b, 0)).toBe(1065);
    expect(await getGroupItem(db(), 'src', 999_999)).toBeNull();
    expect(await getGroupItem(db(), 'src', Number.NaN)).toBeNull();
    const largest = await largestGroups(db(), 'cat');
    expect(largest).toHaveLength(5);
    expect(largest[0]?.name).toBe('Gestión Pública');
    // The same ranking as counting group by group, ties broken by name.
    const counted = (await countRecordsByGroup(db(), 'cat')).slice(0, 5);
    expect(largest.map((item) => [item.name, item.records])).toEqual(counted.map((row) => [row.name, row.count]));
    const all = await largestGroupsOf(db(), ['src', 'dep', 'cat'], 3);
    expect(all.cat).toEqual(largest.slice(0, 3));
    expect(all.src[0]?.records).toBe(1065);
    expect(all.dep).toHaveLength(3);
    for (const item of all.dep) {
      expect(await getGroupItem(db(), 'dep', item.id)).toEqual(item);
    }
  });

  it('pages the records of a collection, with the department of each', async () => {
    const [health] = await db().select().from(categories).where(eq(categories.title, 'Salud'));
    const page = await listRecords(db(), { entity: 'cat', id: health!.id }, 1);
    const expectedTotal = await db().$count(alexandrias, eq(alexandrias.categoryId, health!.id));
    expect(page.total).toBe(expectedTotal);
    expect(page.items).toHaveLength(10);
    expect(page.items.every((record) => record.department !== null)).toBe(true);
    // Give three records of the category distinct, later dates: they come first, newest first.
    const chosen = (await db().select({ id: alexandrias.id }).from(alexandrias).where(eq(alexandrias.categoryId, health!.id)).orderBy(alexandrias.id).limit(3)).map((row) => row.id);
    for (const [index, id] of chosen.entries()) {
      await db().update(alexandrias).set({ updatedAt: new Date(Date.UTC(2030, 5, 1 + index)) }).where(eq(alexandrias.id, id));
    }
    const reordered = await listRecords(db(), { entity: 'cat', id: health!.id }, 1);
    expect(reordered.items.slice(0, 3).map((record) => record.id)).toEqual([...chosen].reverse());
    const last = await listRecords(db(), { entity: 'cat', id: health!.id }, page.pages);
    expect(last.items.length).toBe(expectedTotal - 10 * (page.pages - 1));

    // Every page, whichever end it is read from, is the right slice of the one full order.
    const everything = await db()
      .select({ id: alexandrias.id })
      .from(alexandrias)
      .where(eq(alexandrias.categoryId, health!.id))
      .orderBy(sql`updated_at desc, id desc`);
    const paged: number[] = [];
    for (let n = 1; n <= page.pages; n += 1) {
      paged.push(...(await listRecords(db(), { entity: 'cat', id: health!.id }, n, expectedTotal)).items.map((record) => record.id));
    }
    expect(paged).toEqual(everything.map((row) => row.id));
  });

  it('finds a record by its CID with everything its page shows', async () => {
    const [file] = await db().select().from(alexandrias).where(eq(alexandrias.fileName, 'sisalril-pespj-d1.pdf'));
    const only = await loadRecord(db(), file!.cid!, null);
    // The only record of its file: no other row in its table of files.
    expect(only?.siblings).toEqual([]);
    const found = only?.record;
    expect(found).toMatchObject({
      id: file!.id,
      type: 'pdf',
      status: 'on_line',
      department: { acronym: 'SISALRIL' },
      category: { title: 'Salud' },
      source: { url: 'https://sisalril.gob.do' },
      aletheias: [],
    });
    expect(await getRecord(db(), file!.id)).toEqual(found);

    // The same file contributed twice: assetId picks which record the page shows.
    const [twin] = await db()
      .insert(alexandrias)
      .values({ title: 'Otra copia del informe de la SISALRIL', type: 'pdf', status: 'under_review', cid: file!.cid })
      .returning({ id: alexandrias.id });
    expect((await loadRecord(db(), file!.cid!, twin!.id))?.record.id).toBe(twin!.id);
    expect((await loadRecord(db(), file!.cid!, file!.id))?.record.id).toBe(file!.id);
    // A link by the CID alone shows the published record, not the newer upload of the same bytes,
    // under review or blocked; with none published, the file's first record.
    expect((await loadRecord(db(), file!.cid!, null))?.record.id).toBe(file!.id);
    await db().update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, twin!.id));
    expect((await loadRecord(db(), file!.cid!, null))?.record.id).toBe(file!.id);
    await db().update(alexandrias).set({ status: 'under_review' }).where(inArray(alexandrias.id, [file!.id, twin!.id]));
    expect((await loadRecord(db(), file!.cid!, null))?.record.id).toBe(file!.id);
    // The published one even when it is the newer.
    await db().update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, file!.id));
    await db().update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, twin!.id));
    expect((await loadRecord(db(), file!.cid!, null))?.record.id).toBe(twin!.id);
    await db().update(alexandrias).set({ status: 'on_line' }).where(eq(alexandrias.id, file!.id));
    await db().update(alexandrias).set({ status: 'under_review' }).where(eq(alexandrias.id, twin!.id));
    const page = await loadRecord(db(), file!.cid!, file!.id);
    // A sibling is a row of the table of files: what that row shows, nothing read of its origin.
    expect(page?.siblings).toEqual([{ id: twin!.id, title: 'Otra copia del informe de la SISALRIL', fileName: null, fileSize: null, updatedAt: expect.any(Date), status: 'under_review' }]);
    expect(page?.record).toEqual(await getRecord(db(), file!.id));
    expect(page?.record).toMatchObject({ capture: null, withdrawnFromCatalogAt: null, goneFromOriginSince: null });
    expect(await loadRecord(db(), 'bafkreinotarealcid', null)).toBeNull();
    await db().delete(alexandrias).where(eq(alexandrias.id, twin!.id));
    const status = await storageStatus(db(), file!.cid!);
    expect(status.pins).toMatchObject([{ provider: 'local', status: 'pinned' }]);
    expect(status.deals).toEqual([]);
  });

  it('searches in Spanish, forgiving accents and typos', async () => {
    const byWords = await searchRecords(db(), 'estadistica aseguradoras');
    expect(byWords.length).toBeGreaterThan(0);
    const accentless = await searchRecords(db(), 'construccion licencias');
    expect(accentless[0]?.title).toMatch(/construcción/i);
    const typo = await searchRecords(db(), 'salrio minimo');
    expect(typo.some((record) => /salario m[ií]nimo/i.test(record.title))).toBe(true);
    expect(await searchRecords(db(), '   ')).toEqual([]);
    const issuers = await searchGroups(db(), 'dep', 'estadistica');
    expect(issuers.map((hit) => hit.name)).toContain('Oficina Nacional de Estadística (ONE)');
    const themes = await searchGroups(db(), 'cat', 'educacion');
    expect(themes[0]?.name).toBe('Educación');
    // Institutions with records first: the ministry, not an empty institute that names education better.
    const [empty] = await db().insert(departments).values({ name: 'Instituto de Educación' }).returning({ id: departments.id });
    try {
      const schools = await searchGroups(db(), 'dep', 'educacion', 30);
      const withRecords = await countRecordsByGroup(db(), 'dep', 1000);
      const counted = new Set(withRecords.filter((group) => group.count > 0).map((group) => group.id));
      const holding = schools.map((hit) => counted.has(hit.id));
      expect(schools.map((hit) => hit.id)).toContain(empty!.id);
      expect(holding).toContain(false);
      expect(holding).toEqual([...holding].sort((a, b) => Number(b) - Number(a)));
      expect(schools.filter((hit) => counted.has(hit.id)).map((hit) => hit.name)).toContain('Ministerio de Educación (MINERD)');
    } finally {
      await db().delete(departments).where(eq(departments.id, empty!.id));
    }
  });

  it('finds an institution by the words its name holds when the query adds others, the rarer word first', async () => {
    // «Dominicana» is in dozens of names, «Salud» in a few: the ministry of health, whose name
    // lacks «Dominicana», comes before the institutions that share only the country's name.
    const health = (await searchGroups(db(), 'dep', 'Salud Dominicana', 4)).map((hit) => hit.name);
    expect(health).toContain('Ministerio de Salud Pública y Asistencia Social (MISPAS)');
    expect(health[0]).toMatch(/Salud/);
    // A name holding every word comes before one holding fewer, however rare.
    // Among names that hold as many words, as rare, the one closest to the query as a whole.
    expect((await searchGroups(db(), 'dep', 'Ministerio Educacion', 4))[0]?.name).toBe('Ministerio de Educación (MINERD)');
    expect((await searchGroups(db(), 'dep', 'Policia Nacional', 4))[0]?.name).toBe('Policía Nacional (PN)');
    // A minus leaves out, the likeness of names included: no health institution for «-salud».
    const notHealth = await searchGroups(db(), 'dep', '-salud', 30);
    expect(notHealth.length).toBeGreaterThan(0);
    for (const hit of notHealth) expect(hit.name).not.toMatch(/salud/i);
    // A typo no name is like enough is corrected by the catalogue's vocabulary, as in record search.
    expect((await searchGroups(db(), 'dep', 'minsterio hacinda', 4)).map((hit) => hit.name)).toContain('Ministerio de Hacienda y Economía (MHE)');
    expect((await searchGroups(db(), 'dep', 'hacinda', 4)).map((hit) => hit.name)).toContain('Ministerio de Hacienda y Economía (MHE)');
    const bank = await searchGroups(db(), 'dep', 'Banco Central Dominicana', 5);
    expect(bank[0]?.name).toBe('Banco Central de la República Dominicana (BC)');
    expect(bank.map((hit) => hit.name)).toContain('Banco Agrícola de la República Dominicana (BAGRICOLA)');
  });

  it('answers bad input with nothing, never with a database error', async () => {
    for (const id of [Number.NaN, 1.5, 2 ** 31, -1, 0]) {
      expect((await listRecords(db(), { entity: 'dep', id }, 1)).items).toEqual([]);
      expect(await countRecordsByStatus(db(), { entity: 'cat', id })).toEqual({ under_review: 0, on_line: 0, blocked: 0, broken: 0 });
      expect(await getGroupItem(db(), 'src', id)).toBeNull();
      expect(await getRecord(db(), id)).toBeNull();
    }
    for (const page of [1e20, Number.MAX_SAFE_INTEGER, 2 ** 31, -5, Number.NaN]) {
      expect((await listGroup(db(), 'cat', page)).items.length).toBeLessThanOrEqual(10);
    }
    expect(await searchRecords(db(), 'salario\u0000minimo')).toBeInstanceOf(Array);
    expect(await searchGroups(db(), 'dep', '\u0000')).toEqual([]);
    expect(await countRecordsByGroup(db(), 'cat', 0)).toEqual([]);
  });

  it('ranks groups by size both ways, groups without records included', async () => {
    const smallest = await findGroups(db(), 'dep', {}, { limit: 3, start: 0, sort: { field: 'records', direction: 'asc' } });
    expect(smallest.map((item) => item.records)).toEqual([0, 0, 0]);
    const largest = await findGroups(db(), 'cat', {}, { limit: 3, start: 0, sort: { field: 'records', direction: 'desc' } });
    expect(largest[0]?.name).toBe('Gestión Pública');
    const named = await findGroups(db(), 'dep', { name: 'ministerio' }, { limit: 50, start: 0, sort: { field: 'records', direction: 'desc' } });
    const sizes = named.map((item) => item.records);
    expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
    expect(named.every((item) => /ministerio/i.test(item.name))).toBe(true);
  });

  it('sums up the archive', async () => {
    expect(await archiveTotals(db())).toEqual({
      records: seeded.report.records,
      archived: 11,
      online: 11,
      sources: seeded.report.sources,
      departments: seeded.report.departments,
      categories: 11,
    });
  });
});
