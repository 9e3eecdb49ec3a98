/**
 * What the public reads of the watch (issue #19), on both engines, over the real seeded catalogue:
 * /desaparecidos' list (newest disappearance first, filters by institution and category, only
 * public institutions named, blocked records left out), the dashboard's count, the record page's
 * `goneFromOriginSince`, and the Atom feeds, parsed with a real XML parser: entries for a new
 * version and a disappearance, newest first, absolute links on the configured origin, and one
 * institution's feed. Then the records their catalogue withdrew, listed beside those whose
 * address is gone: by the later of their dates, filtered by reason, counted, fed and dated.
 */
import { and, eq, isNull, notInArray } from 'drizzle-orm';
import { xml2js, type Element } from 'xml-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alexandrias, departments, harvestedRecords, imports } from '../../src/lib/server/db/schema.ts';
import { archiveChangesFeed, departmentChangesFeed } from '../../src/lib/server/feeds/index.ts';
import { countDisappeared, listDisappeared } from '../../src/lib/server/queries/disappeared.ts';
import { getRecord, loadDashboard } from '../../src/lib/server/queries/index.ts';
import { loadPreservation } from '../../src/lib/server/queries/preservation.ts';
import { sitemapEntries } from '../../src/lib/server/queries/sitemap.ts';
import { createSeededDatabase, createTestDatabase, testEngines } from '../helpers/database.ts';
import { addSecondVersion, markGone, recordsWithFiles, setGoneSince, setWithdrawn, watchRecords, type SeededRecord } from '../helpers/watched-records.ts';

const ORIGIN = 'https://archivo.example.org';

/** The feed's own `<updated>`, the first in the document (each entry's follows). */
function feedUpdated(xml: string): Date {
  return new Date(/<updated>([^<]+)<\/updated>/.exec(xml)![1]!);
}

/** The `<entry>` elements of an Atom document, as { id, title, link, updated }. */
function atomEntries(xml: string) {
  const document = xml2js(xml) as Element;
  const feed = document.elements?.find((element) => element.name === 'feed');
  if (!feed) throw new Error('not an Atom feed');
  // Titles are `type="html"`: their text is HTML, entities and all.
  const text = (element: Element | undefined) =>
    String(element?.elements?.[0]?.text ?? element?.elements?.[0]?.cdata ?? '').replace(/&(lt|gt|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', amp: '&' })[name]!);
  const child = (element: Element, name: string) => element.elements?.find((item) => item.name === name);
  return {
    namespace: feed.attributes?.xmlns,
    id: text(child(feed, 'id')),
    title: text(child(feed, 'title')),
    self: feed.elements?.find((item) => item.name === 'link' && item.attributes?.rel === 'self')?.attributes?.href,
    author: text(child(child(feed, 'author') ?? {}, 'name')),
    entries: (feed.elements ?? [])
      .filter((element) => element.name === 'entry')
      .map((entry) => ({
        id: text(child(entry, 'id')),
        title: text(child(entry, 'title')),
        link: String(entry.elements?.find((item) => item.name === 'link' && !item.attributes?.rel)?.attributes?.href ?? ''),
        summary: text(child(entry, 'summary')),
        updated: new Date(text(child(entry, 'updated'))),
      })),
  };
}

describe.each(testEngines())('disappeared documents and change feeds on %s', (engine) => {
  let archive: Awaited<ReturnType<typeof createSeededDatabase>>;
  let records: SeededRecord[];
  /** Gone, in this order of disappearance: `older`, then `newer` (most recent). */
  let older: SeededRecord;
  let newer: SeededRecord;
  let blocked: SeededRecord;
  let changed: SeededRecord;

  beforeAll(async () => {
    archive = await createSeededDatabase(engine);
    records = await recordsWithFiles(archive.db);
    // Two gone records of different institutions and categories, one blocked, one with a new version.
    const withDepartment = records.filter((record) => record.departmentId !== null && record.categoryId !== null);
    older = withDepartment[0]!;
    newer = withDepartment.find((record) => record.departmentId !== older.departmentId && record.categoryId !== older.categoryId)!;
    blocked = records.find((record) => record !== older && record !== newer)!;
    changed = records.find((record) => ![older, newer, blocked].includes(record))!;
    expect(newer).toBeDefined();
    await watchRecords(archive.db, [older, newer, blocked, changed]);
    for (const record of [older, newer, blocked]) await markGone(archive.db, record);
    await setGoneSince(archive.db, older, new Date('2026-03-01T12:00:00Z'));
    await setGoneSince(archive.db, newer, new Date('2026-05-01T12:00:00Z'));
    await archive.db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, blocked.id));
    await addSecondVersion(archive.db, changed, older.cid, 1234);
  });
  afterAll(() => archive?.destroy());

  it('lists the documents whose source disappeared, newest first, blocked ones left out', async () => {
    const page = await listDisappeared(archive.db);
    expect(page.items.map((item) => item.id)).toEqual([newer.id, older.id]);
    expect(page.total).toBe(2);
    expect(page.items[0]).toMatchObject({
      title: newer.title,
      cid: newer.cid,
      goneSince: new Date('2026-05-01T12:00:00Z'),
      url: `http://127.0.0.1:9/portal/files/${newer.id}.csv`,
      department: { id: newer.departmentId },
      category: { id: newer.categoryId },
    });
    expect(await countDisappeared(archive.db)).toBe(2);
    expect((await loadDashboard(archive.db)).disappeared).toBe(2);
  });

  it('filters by institution and by category, and offers only the choices that have documents', async () => {
    expect((await listDisappeared(archive.db, { departmentId: older.departmentId! })).items.map((item) => item.id)).toEqual([older.id]);
    expect((await listDisappeared(archive.db, { categoryId: newer.categoryId! })).items.map((item) => item.id)).toEqual([newer.id]);
    expect((await listDisappeared(archive.db, { departmentId: older.departmentId!, categoryId: newer.categoryId! })).total).toBe(0);
    const { choices } = await listDisappeared(archive.db);
    expect(choices.departments.map((choice) => [choice.id, choice.count]).sort()).toEqual([[older.departmentId, 1], [newer.departmentId, 1]].sort());
    expect(choices.categories.map((choice) => choice.id).sort()).toEqual([older.categoryId, newer.categoryId].sort());
    // Each filter's counts are under the others: an institution's categories, a category's institutions.
    const ofOlder = (await listDisappeared(archive.db, { departmentId: older.departmentId! })).choices;
    expect(ofOlder.categories.map((choice) => [choice.id, choice.count])).toEqual([[older.categoryId, 1]]);
    expect(ofOlder.departments.map((choice) => choice.id).sort()).toEqual([older.departmentId, newer.departmentId].sort());
    expect(ofOlder.reasons).toEqual({ origen: 1, catalogo: 0 });
    // Chosen together though they share nothing, both stay choices (counted 0), so the form shows what was asked.
    const neither = (await listDisappeared(archive.db, { departmentId: older.departmentId!, categoryId: newer.categoryId! })).choices;
    expect(neither.departments.find((choice) => choice.id === older.departmentId)).toMatchObject({ count: 0 });
    expect(neither.categories.find((choice) => choice.id === newer.categoryId)).toMatchObject({ count: 0 });
    expect(neither.reasons).toEqual({ origen: 0, catalogo: 0 });
  });

  it('names only institutions the public sees, and cannot be filtered on one it does not', async () => {
    await archive.db.update(departments).set({ reviewStatus: 'under_review' }).where(eq(departments.id, older.departmentId!));
    try {
      const page = await listDisappeared(archive.db);
      expect(page.items.find((item) => item.id === older.id)?.department).toBeNull();
      expect(page.choices.departments.map((choice) => choice.id)).not.toContain(older.departmentId);
      expect((await listDisappeared(archive.db, { departmentId: older.departmentId! })).total).toBe(0);
      expect(await departmentChangesFeed(archive.db, ORIGIN, older.departmentId!)).toBeNull();
    } finally {
      await archive.db.update(departments).set({ reviewStatus: 'on_line' }).where(eq(departments.id, older.departmentId!));
    }
  });

  it('tells the record page since when its source disappeared', async () => {
    expect((await getRecord(archive.db, newer.id))?.goneFromOriginSince).toEqual(new Date('2026-05-01T12:00:00Z'));
    expect((await getRecord(archive.db, changed.id))?.goneFromOriginSince).toBeNull();
  });

  it('publishes new versions and disappearances as Atom, newest first, with absolute links on the public origin', async () => {
    const feed = atomEntries(await archiveChangesFeed(archive.db, ORIGIN));
    expect(feed.namespace).toBe('http://www.w3.org/2005/Atom');
    expect(feed.self).toBe(`${ORIGIN}/feeds/cambios.atom`);
    expect(feed.title).toBe('Cambios en Archivo Abierto');
    const titles = feed.entries.map((entry) => entry.title);
    // The new version was recorded now, after both disappearances (2026-05 and 2026-03).
    expect(titles).toEqual([`Nueva versión (v2): ${changed.title}`, `Desaparecido en origen: ${newer.title}`, `Desaparecido en origen: ${older.title}`]);
    const times = feed.entries.map((entry) => entry.updated.getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(feed.entries[1]!.link).toBe(`${ORIGIN}/single/src/${newer.cid}?assetId=${newer.id}`);
    // The new version's file, downloadable by its CID.
    expect(feed.entries[0]!.summary).toContain(`CID ${older.cid}), descargable en ${ORIGIN}/ipfs/${older.cid}.`);
    // Ids never change (RFC 4287): on the record's id, not on its page, whose CID a newer version changes.
    expect(feed.entries.map((entry) => entry.id)).toEqual([
      `${ORIGIN}/registro/${changed.id}#v2`,
      `${ORIGIN}/registro/${newer.id}#desaparecido-2026-05-01T12:00:00.000Z`,
      expect.stringMatching(new RegExp(`^${ORIGIN}/registro/${older.id}#desaparecido-2026-03-`)),
    ]);
    // Atom requires an author of every entry: the archive's, on the feed.
    expect(feed.author).toBe('Archivo Abierto');
    expect(feed.entries.every((entry) => entry.link.startsWith(`${ORIGIN}/`))).toBe(true);
  });

  it('dates a feed with nothing in it by when what it covers began, not by 1970', async () => {
    const [quiet] = await archive.db
      .select({ id: departments.id, createdAt: departments.createdAt })
      .from(departments)
      .where(and(eq(departments.reviewStatus, 'on_line'), notInArray(departments.id, [older.departmentId!, newer.departmentId!, changed.departmentId!])))
      .limit(1);
    const xml = (await departmentChangesFeed(archive.db, ORIGIN, quiet!.id))!;
    expect(atomEntries(xml).entries).toEqual([]);
    expect(feedUpdated(xml)).toEqual(quiet!.createdAt);
    // The archive's own feed with nothing in it is dated by the archive's first import.
    const empty = await createTestDatabase(engine);
    try {
      const [first] = await empty.db.insert(imports).values({ type: 'harvest', status: 'done' }).returning({ createdAt: imports.createdAt });
      const archiveXml = await archiveChangesFeed(empty.db, ORIGIN);
      expect(atomEntries(archiveXml).entries).toEqual([]);
      expect(feedUpdated(archiveXml)).toEqual(first!.createdAt);
    } finally {
      await empty.destroy();
    }
  });

  it("gives each public institution a feed of its own records' changes", async () => {
    const feed = atomEntries((await departmentChangesFeed(archive.db, ORIGIN, newer.departmentId!))!);
    expect(feed.self).toBe(`${ORIGIN}/feeds/instituciones/${newer.departmentId}.atom`);
    expect(feed.entries.map((entry) => entry.title)).toContain(`Desaparecido en origen: ${newer.title}`);
    expect(feed.entries.map((entry) => entry.title)).not.toContain(`Desaparecido en origen: ${older.title}`);
    expect(await departmentChangesFeed(archive.db, ORIGIN, 2_000_000)).toBeNull();
  });
});

describe.each(testEngines())('documents withdrawn from their catalogue, on /desaparecidos and in the feeds, on %s', (engine) => {
  let archive: Awaited<ReturnType<typeof createSeededDatabase>>;
  /** Gone at its address on 1 March. */
  let gone: SeededRecord;
  /** Withdrawn on 1 April; its address still answers. */
  let withdrawn: SeededRecord;
  /** Gone on 1 February, then withdrawn on 1 May: listed once, by the later date. */
  let both: SeededRecord;
  /** Withdrawn, but blocked by a moderator. */
  let blocked: SeededRecord;
  /** Withdrawn and gone, but never captured: the archive holds no copy to offer. */
  let uncaptured: { id: number; title: string };

  beforeAll(async () => {
    archive = await createSeededDatabase(engine);
    const records = (await recordsWithFiles(archive.db)).filter((record) => record.departmentId !== null && record.categoryId !== null);
    [gone, withdrawn, both, blocked] = records as [SeededRecord, SeededRecord, SeededRecord, SeededRecord];
    await watchRecords(archive.db, [gone, withdrawn, both, blocked]);
    for (const record of [gone, both]) await markGone(archive.db, record);
    await setGoneSince(archive.db, gone, new Date('2026-03-01T12:00:00Z'));
    await setGoneSince(archive.db, both, new Date('2026-02-01T12:00:00Z'));
    await setWithdrawn(archive.db, withdrawn, new Date('2026-04-01T12:00:00Z'));
    await setWithdrawn(archive.db, both, new Date('2026-05-01T12:00:00Z'));
    await setWithdrawn(archive.db, blocked, new Date('2026-06-01T12:00:00Z'));
    await archive.db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, blocked.id));
    // A seeded record without a file (harvested from the seed's export), withdrawn and gone on 1 July.
    const [bare] = await archive.db
      .select({ id: alexandrias.id, title: alexandrias.title })
      .from(alexandrias)
      .innerJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
      .where(isNull(alexandrias.cid))
      .limit(1);
    uncaptured = bare!;
    const july = new Date('2026-07-01T12:00:00Z');
    await archive.db.update(harvestedRecords).set({ withdrawnAt: july, goneSince: july }).where(eq(harvestedRecords.alexandriaId, uncaptured.id));
  });
  afterAll(() => archive?.destroy());

  it('lists them beside the gone ones, newest first by the later of their dates, each with what happened', async () => {
    const page = await listDisappeared(archive.db);
    expect(page.items.map((item) => item.id)).toEqual([both.id, withdrawn.id, gone.id]);
    expect(page.items.map((item) => [item.withdrawnAt, item.goneSince])).toEqual([
      [new Date('2026-05-01T12:00:00Z'), new Date('2026-02-01T12:00:00Z')],
      [new Date('2026-04-01T12:00:00Z'), null],
      [null, new Date('2026-03-01T12:00:00Z')],
    ]);
    expect(page.total).toBe(3);
    expect(page.choices.reasons).toEqual({ origen: 2, catalogo: 2 });
  });

  it('filters by reason, with the other filters', async () => {
    const byReason = async (reason: 'origen' | 'catalogo', filters = {}) => (await listDisappeared(archive.db, { ...filters, reason })).items.map((item) => item.id);
    expect(await byReason('catalogo')).toEqual([both.id, withdrawn.id]);
    // Each reason by its own date: gone on 1 March before gone on 1 February.
    expect(await byReason('origen')).toEqual([gone.id, both.id]);
    expect(await byReason('catalogo', { departmentId: withdrawn.departmentId! })).toEqual(
      [both, withdrawn].filter((record) => record.departmentId === withdrawn.departmentId).map((record) => record.id),
    );
  });

  it('counts both on the dashboard, and only the gone addresses on the preservation record', async () => {
    expect((await loadDashboard(archive.db)).disappeared).toBe(3);
    expect(await countDisappeared(archive.db, 'catalogo')).toBe(2);
    expect((await loadPreservation(archive.db)).disappeared).toBe(2);
  });

  it('leaves out a record the archive holds no copy of, in the list, the counts and the feed', async () => {
    expect((await listDisappeared(archive.db)).items.map((item) => item.id)).not.toContain(uncaptured.id);
    expect((await listDisappeared(archive.db)).choices.reasons).toEqual({ origen: 2, catalogo: 2 });
    expect(await countDisappeared(archive.db)).toBe(3);
    const titles = atomEntries(await archiveChangesFeed(archive.db, ORIGIN)).entries.map((entry) => entry.title);
    expect(titles.some((title) => title.endsWith(uncaptured.title))).toBe(false);
  });

  it('feeds each withdrawal with its catalogue and date, under an id of its own', async () => {
    const feed = atomEntries(await archiveChangesFeed(archive.db, ORIGIN));
    const entry = feed.entries.find((item) => item.title === `Retirado del catálogo: ${withdrawn.title}`);
    expect(entry).toBeDefined();
    expect(entry!.id).toBe(`${ORIGIN}/registro/${withdrawn.id}#retirado-2026-04-01T12:00:00.000Z`);
    expect(entry!.summary).toBe(`«${withdrawn.title}» dejó de figurar en el catálogo «Portal de prueba» el 01/04/2026. El archivo conserva el registro y su copia.`);
    expect(entry!.updated).toEqual(new Date('2026-04-01T12:00:00Z'));
    // Both of a record that left its catalogue after its address went; none for a blocked record.
    expect(feed.entries.map((item) => item.title)).toEqual([
      `Retirado del catálogo: ${both.title}`,
      `Retirado del catálogo: ${withdrawn.title}`,
      `Desaparecido en origen: ${gone.title}`,
      `Desaparecido en origen: ${both.title}`,
    ]);
  });

  it('dates /desaparecidos in the sitemap by the latest disappearance or withdrawal it lists', async () => {
    const entries = await sitemapEntries(archive.db, { offset: 0, limit: 2 });
    // Not by the blocked record's withdrawal (1 June), nor the uncaptured one's (1 July): neither is listed.
    expect(entries.find((entry) => entry.path === '/desaparecidos')?.lastmod).toEqual(new Date('2026-05-01T12:00:00Z'));
  });
});
