/**
 * A harvest end to end (issue #18), on both engines, against the local portal on 127.0.0.1
 * (tests/helpers/portal: the real datos.gob.do CKAN sample, its resources real fixture files):
 * `runHarvest` turns the catalogue into records, departments and categories; the queue's capture
 * jobs fetch every file into the store with the CID `cidOf` gives its bytes; a second run changes
 * nothing; an edited title is updated with history; a removed dataset is withdrawn, never deleted;
 * a declared checksum that lies and a 404 are reported on their own capture only; a private
 * address is refused unless allowed; CKAN, DCAT and data.json give the same records.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, count, desc, eq, inArray, isNull, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/lib/server/db/index.ts';
import {
  alexandrias,
  captures,
  categories,
  departments,
  harvestedRecords,
  harvestSources,
  imports,
  jobs,
  pins,
  statusHistory,
} from '../../src/lib/server/db/schema.ts';
import {
  CAPTURE_JOB,
  captureHandler,
  catalogPageFetcher,
  registerHarvestSource,
  runHarvest,
  RUN_ERROR_KEY,
  WRITE_SLICE,
  type CaptureContext,
} from '../../src/lib/server/harvest/index.ts';
import type { CatalogKind } from '../../src/lib/server/harvest/catalogs/index.ts';
import { enqueue, PermanentJobError } from '../../src/lib/server/jobs/index.ts';
import { listRecords, recordDetails, withOriginFacts } from '../../src/lib/server/queries/records.ts';
import { searchArchive } from '../../src/lib/server/queries/search.ts';
import { cidOf, createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { formatCount } from '../../src/lib/text.ts';
import { drainJobs } from '../helpers/jobs.ts';
import { createTestDatabase, createTestStore, testEngines, type TestDatabase } from '../helpers/database.ts';
import { generatedPackages, startLocalPortal, type CkanPackage, type LocalPortal } from '../helpers/portal/index.ts';

/** Everything a test harvest needs: the database, a store with its staging area, the portal. */
interface Harness {
  database: TestDatabase;
  db: Db;
  portal: LocalPortal;
  capture: CaptureContext;
  destroy(): Promise<void>;
}

async function harness(engine: Parameters<typeof createTestDatabase>[0]): Promise<Harness> {
  const database = await createTestDatabase(engine);
  const blocks = await createTestStore();
  const stagingDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'archivo-staging-'));
  const portal = await startLocalPortal();
  return {
    database,
    db: database.db,
    portal,
    capture: {
      store: blocks.store,
      staging: createStagingArea({ storeDir: blocks.dir, dir: stagingDir, guard: databaseFileGuard(database.db) }),
      allowPrivate: true,
      maxBytes: 50_000_000,
      fetchOptions: { totalTimeoutMs: 15_000, idleTimeoutMs: 5_000, headersTimeoutMs: 5_000 },
    },
    async destroy() {
      await portal.close();
      await database.destroy();
      await blocks.destroy();
      await fsp.rm(stagingDir, { recursive: true, force: true });
    },
  };
}

/** The pages of the local portal, through the archive's own safe fetcher (127.0.0.1 allowed). */
const fetchPage = catalogPageFetcher({ allowPrivate: true });

/** Runs the capture jobs until none is queued or running (at most `timeoutMs`). */
async function runCaptures(h: Harness, timeoutMs = 20_000): Promise<void> {
  expect(await drainJobs(h.db, { [CAPTURE_JOB]: captureHandler(h.capture) }, { kinds: [CAPTURE_JOB], timeoutMs })).toEqual([]);
}

/** The sample's publishers the first test's archive already knows, under its own names. */
const KNOWN_AS: Record<string, string> = {
  'Consejo Nacional para la Reglamentación y Fomento de la Industria Lechera (CONALECHE)': 'Consejo para el Fomento de la Industria Lechera',
  'Ayuntamiento Municipal de Baní': 'Ayuntamiento Municipal de Bani',
};

/** Every (dataset, distribution) of the portal's catalogue right now. */
const distributionsOf = (packages: CkanPackage[]) => packages.flatMap((pkg) => pkg.resources.map((resource) => ({ pkg, resource })));

async function recordsOf(db: Db, harvestSourceId: number) {
  return db
    .select({ harvested: harvestedRecords, record: alexandrias })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(eq(harvestedRecords.harvestSourceId, harvestSourceId))
    .orderBy(harvestedRecords.datasetIdentifier, harvestedRecords.distributionKey);
}

describe.each(testEngines())('harvest runner and capture jobs on %s', (engine) => {
  let h: Harness;
  let harvestSourceId: number;
  let sourceId: number;
  let mappedCategory: number;
  let defaultCategory: number;
  let total: number;

  beforeAll(async () => {
    h = await harness(engine);
    const [mapped, fallback] = await h.db
      .insert(categories)
      .values([{ title: 'Administración pública (prueba)' }, { title: 'Sin clasificar (prueba)' }])
      .returning({ id: categories.id });
    mappedCategory = mapped!.id;
    defaultCategory = fallback!.id;
    // Two publishers the archive knows already, spelled otherwise: found again by acronym, and by
    // the seed's folded name (no accent), never created twice.
    await h.db.insert(departments).values([
      { name: 'Consejo para el Fomento de la Industria Lechera', acronym: 'CONALECHE' },
      { name: 'Ayuntamiento Municipal de Bani' },
    ]);
    // The sample's "Gestión Pública" group, by its CKAN id.
    const { harvestSource } = await registerHarvestSource(h.db, {
      url: h.portal.urls.ckan,
      kind: 'ckan',
      name: 'Portal local',
      defaultCategoryId: defaultCategory,
      themeMap: { '130ee27c-a0f5-42b5-9134-56bf5617be14': mappedCategory },
    });
    harvestSourceId = harvestSource.id;
    sourceId = harvestSource.sourceId;
    total = distributionsOf(h.portal.packages).length;
  });
  afterAll(() => h?.destroy());

  it('turns every distribution into a record, with its department and category as mapped, and queues its capture', async () => {
    const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
    expect(report).toMatchObject({ status: 'done', errors: [], capturesQueued: total });
    expect(report.counts).toEqual({ new: total, updated: 0, unchanged: 0, withdrawn: 0, failed: 0 });
    const [run] = await h.db.select().from(imports).where(eq(imports.id, report.importId));
    expect(run).toMatchObject({ type: 'harvest', status: 'done', documents: total, sourceId, harvestSourceId, harvestCounts: report.counts });

    const rows = await recordsOf(h.db, harvestSourceId);
    expect(rows).toHaveLength(total);
    const departmentNames = new Map((await h.db.select().from(departments)).map((row) => [row.id, row]));
    for (const { pkg, resource } of distributionsOf(h.portal.packages)) {
      const row = rows.find((entry) => entry.harvested.datasetIdentifier === pkg.id && entry.harvested.distributionKey === resource.id);
      expect(row, `${pkg.title} / ${resource.id}`).toBeDefined();
      const { record } = row!;
      expect(record.title.startsWith(pkg.title)).toBe(true);
      expect(record).toMatchObject({ status: 'under_review', cid: null, sourceId, importId: report.importId, originalUrl: new URL(resource.url).href });
      // Named after its URL before its bytes come in (findable by the name of its file).
      expect(record.fileName).toBe(decodeURIComponent(new URL(resource.url).pathname.split('/').at(-1)!));
      expect(record.categoryId).toBe(pkg.groups.some((group) => group.title === 'Gestión Pública') ? mappedCategory : defaultCategory);
      // What a researcher cites comes from the catalogue: the original's dates, licence, keywords.
      expect(record.issued?.toISOString().slice(0, 19)).toBe(pkg.metadata_created.slice(0, 19));
      expect(record.modified?.toISOString().slice(0, 19)).toBe(pkg.metadata_modified.slice(0, 19));
      expect({ title: record.licenseTitle, url: record.licenseUrl }).toEqual({ title: pkg.license_title, url: pkg.license_url });
      expect(record.keywords).toEqual(pkg.tags.map((tag) => tag.name));
      const department = departmentNames.get(record.departmentId!);
      expect(department?.name).toBe(KNOWN_AS[pkg.organization!.title] ?? pkg.organization!.title);
      expect(department?.reviewStatus).toBe('on_line');
    }
    // Each waits for its document, from the address the catalogue gives.
    const reasons = await h.db
      .selectDistinct({ reason: statusHistory.reason })
      .from(statusHistory)
      .where(inArray(statusHistory.alexandriaId, rows.map((row) => row.record.id)));
    expect(reasons.map((row) => row.reason)).toEqual(['Cosechado del catálogo «Portal local»; queda en revisión hasta que se capture su documento desde la dirección que da el catálogo.']);
    // One department per publisher, found again for its second dataset.
    expect(departmentNames.size).toBe(new Set(h.portal.packages.map((pkg) => pkg.organization!.title)).size);
    // A dataset with several files gets them told apart by their names or formats.
    const titles = rows.filter((row) => row.harvested.datasetIdentifier === h.portal.packages[1]!.id).map((row) => row.record.title);
    expect(new Set(titles).size).toBe(3);

    const queued = await h.db.select().from(jobs).where(eq(jobs.kind, CAPTURE_JOB));
    expect(queued).toHaveLength(total);
    expect(new Set(queued.map((job) => job.host))).toEqual(new Set([new URL(h.portal.origin).host]));
  });

  it('queues no second capture of a record while its first still waits, when the catalogue is harvested again', async () => {
    const again = await runHarvest(h.db, harvestSourceId, { fetchPage });
    expect(again).toMatchObject({ status: 'done', capturesQueued: 0 });
    expect(again.counts).toMatchObject({ new: 0, unchanged: total });
    const queued = await h.db.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, CAPTURE_JOB));
    expect(queued).toHaveLength(total);
  });

  it('names a record still waiting for its file after the address the catalogue now gives', async () => {
    const pkg = h.portal.packages.at(-1)!;
    const resource = pkg.resources[0]!;
    const oldUrl = resource.url;
    const nameOf = (url: string) => decodeURIComponent(new URL(url).pathname.split('/').at(-1)!);
    const recordOf = async () => (await recordsOf(h.db, harvestSourceId)).find((row) => row.harvested.datasetIdentifier === pkg.id && row.harvested.distributionKey === resource.id)!.record;
    resource.url = new URL('renombrado-en-el-portal.csv', oldUrl).href;
    try {
      expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 1, withdrawn: 0 });
      expect(await recordOf()).toMatchObject({ cid: null, fileName: 'renombrado-en-el-portal.csv', originalUrl: resource.url });
    } finally {
      // Put back as the tests after this one expect it, even when an expectation failed.
      resource.url = oldUrl;
      expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 1, withdrawn: 0 });
    }
    expect(await recordOf()).toMatchObject({ cid: null, fileName: nameOf(oldUrl) });
  });

  it('captures every file with exactly the CID of its bytes, online, with a capture record', async () => {
    await runCaptures(h);
    const failed = await h.db.select().from(jobs).where(eq(jobs.status, 'failed'));
    expect(failed.map((job) => job.lastError)).toEqual([]);
    const rows = await recordsOf(h.db, harvestSourceId);
    for (const { pkg, resource } of distributionsOf(h.portal.packages)) {
      const file = h.portal.files.get(resource.id)!;
      const { cid } = await cidOf(fs.createReadStream(file.path));
      const { record } = rows.find((entry) => entry.harvested.datasetIdentifier === pkg.id && entry.harvested.distributionKey === resource.id)!;
      expect(record, resource.id).toMatchObject({ cid, status: 'on_line', fileSha256: file.sha256, fileSize: file.size });
      expect(record.fileName).toBe(decodeURIComponent(new URL(resource.url).pathname.split('/').at(-1)!));
      const [capture, ...more] = await h.db.select().from(captures).where(eq(captures.alexandriaId, record.id));
      expect(more).toEqual([]);
      expect(capture).toMatchObject({
        // The readers hand URLs on percent-encoded (spaces and all), as they are requested.
        requestedUrl: new URL(resource.url).href,
        status: 200,
        cid,
        sha256: file.sha256,
        size: file.size,
        contentLength: file.size,
        errorReason: null,
        mismatch: null,
      });
      expect(capture!.finalUrl).toBe(new URL(resource.url).href);
      expect(await h.capture.store.has(cid)).toBe(true);
      // The note names the catalogue; the capture is told from its row.
      expect(record.provenanceNote).toBe(`Metadatos cosechados del catálogo «Portal local» (${new URL(h.portal.urls.ckan).href}).`);
      // A captured spreadsheet's sheets are queued for their previews with the file.
      const previewJobs = await h.db.select().from(jobs).where(eq(jobs.dedupeKey, `sheet-previews:${record.id}:${cid}`));
      expect(previewJobs, `${resource.id} (${record.type})`).toHaveLength(record.type === 'xlsx' || record.type === 'ods' ? 1 : 0);
    }
    const pinned = await h.db.select().from(pins).where(eq(pins.provider, 'local'));
    expect(pinned.every((pin) => pin.status === 'pinned')).toBe(true);
    expect(new Set(pinned.map((pin) => pin.cid))).toEqual(new Set(rows.map((row) => row.record.cid)));
  });

  it('changes nothing on a second run: everything unchanged, no new record, no new capture', async () => {
    const [before] = await h.db.select({ n: count() }).from(alexandrias);
    const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
    expect(report).toMatchObject({ status: 'done', capturesQueued: 0 });
    expect(report.counts).toEqual({ new: 0, updated: 0, unchanged: total, withdrawn: 0, failed: 0 });
    const [after] = await h.db.select({ n: count() }).from(alexandrias);
    expect(after!.n).toBe(before!.n);
    const [captured] = await h.db.select({ n: count() }).from(captures);
    expect(captured!.n).toBe(total);
    // On the timeline it imported nothing ("0 documentos importados"), though it read them all.
    const [run] = await h.db.select({ documents: imports.documents }).from(imports).where(eq(imports.id, report.importId));
    expect(run!.documents).toBe(0);
  });

  it('updates an edited title and keeps the change in the record history', async () => {
    const pkg = h.portal.packages[1]!;
    const old = pkg.title;
    pkg.title = 'Nóminas del personal (título corregido)';
    const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
    expect(report.counts).toEqual({ new: 0, updated: pkg.resources.length, unchanged: total - pkg.resources.length, withdrawn: 0, failed: 0 });
    const [run] = await h.db.select({ documents: imports.documents }).from(imports).where(eq(imports.id, report.importId));
    expect(run!.documents, 'the records it changed are what it imported').toBe(pkg.resources.length);
    const rows = (await recordsOf(h.db, harvestSourceId)).filter((row) => row.harvested.datasetIdentifier === pkg.id);
    for (const { record } of rows) {
      expect(record.title.startsWith(pkg.title)).toBe(true);
      // Still the captured file, still online.
      expect(record.status).toBe('on_line');
      const history = await h.db.select().from(statusHistory).where(and(eq(statusHistory.alexandriaId, record.id), like(statusHistory.reason, 'Actualizado desde el catálogo%')));
      expect(history).toHaveLength(1);
      expect(history[0]!.reason).toContain(`«${old}`);
      expect(history[0]!.reason).toContain(`«${pkg.title}`);
    }
  });

  it('tells a new modification date from a new publication date in the history', async () => {
    const pkg = h.portal.packages[1]! as Record<string, unknown> & { resources: unknown[] };
    const old = pkg.metadata_modified;
    pkg.metadata_modified = '2030-01-02T03:04:05.000000';
    try {
      const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
      expect(report.counts.updated).toBe(pkg.resources.length);
      const [row] = (await recordsOf(h.db, harvestSourceId)).filter((one) => one.harvested.datasetIdentifier === pkg.id);
      const [line] = await h.db.select({ reason: statusHistory.reason }).from(statusHistory).where(eq(statusHistory.alexandriaId, row!.record.id)).orderBy(desc(statusHistory.id)).limit(1);
      expect(line!.reason).toBe('Actualizado desde el catálogo: fecha de modificación cambiada');
    } finally {
      pkg.metadata_modified = old;
    }
    expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts.updated).toBe(pkg.resources.length);
  });

  it("moves records to the category a changed mapping and the institution a changed publisher give, except those a moderator moved by hand", async () => {
    const [other] = await h.db.insert(categories).values({ title: 'Reclasificados (prueba)' }).returning({ id: categories.id });
    const rowsOf = async () => recordsOf(h.db, harvestSourceId);
    const defaulted = (await rowsOf()).filter((row) => row.record.categoryId === defaultCategory);
    expect(defaulted.length).toBeGreaterThan(1);
    // A moderator put one of them elsewhere by hand; the harvest must leave that one alone.
    const [byHand, ...followers] = defaulted;
    await h.db.update(alexandrias).set({ categoryId: mappedCategory }).where(eq(alexandrias.id, byHand!.record.id));
    // The moderator now sends what has no mapped theme to another category, and a publisher renames itself.
    await h.db.update(harvestSources).set({ defaultCategoryId: other!.id }).where(eq(harvestSources.id, harvestSourceId));
    const pkg = h.portal.packages[0]!;
    const original = pkg.organization!;
    pkg.organization = { ...original, id: 'renombrada', name: 'renombrada', title: 'Dirección Renombrada de Pruebas' };
    try {
      const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
      expect(report.status).toBe('done');
      const after = new Map((await rowsOf()).map((row) => [row.record.id, row.record]));
      for (const { record } of followers) expect(after.get(record.id)!.categoryId, record.title).toBe(other!.id);
      expect(after.get(byHand!.record.id)!.categoryId).toBe(mappedCategory);
      const [renamed] = await h.db.select({ id: departments.id }).from(departments).where(eq(departments.name, 'Dirección Renombrada de Pruebas'));
      const ofPackage = (await rowsOf()).filter((row) => row.harvested.datasetIdentifier === pkg.id);
      expect(ofPackage.length).toBeGreaterThan(0);
      for (const { record } of ofPackage) expect(record.departmentId).toBe(renamed!.id);
      // Told in each record's history, and counted as updated.
      const [line] = await h.db.select({ reason: statusHistory.reason }).from(statusHistory).where(and(eq(statusHistory.alexandriaId, followers[0]!.record.id), like(statusHistory.reason, '%categoría cambiada%')));
      expect(line?.reason).toMatch(/^Actualizado desde el catálogo: .*categoría cambiada/);
      expect(report.counts.updated).toBeGreaterThanOrEqual(followers.length);
    } finally {
      // As the other tests found them.
      pkg.organization = original;
      await h.db.update(harvestSources).set({ defaultCategoryId: defaultCategory }).where(eq(harvestSources.id, harvestSourceId));
      await runHarvest(h.db, harvestSourceId, { fetchPage });
      await h.db.update(alexandrias).set({ categoryId: defaultCategory }).where(eq(alexandrias.id, byHand!.record.id));
    }
    const restored = await rowsOf();
    expect(restored.filter((row) => row.record.categoryId === defaultCategory).length).toBe(defaulted.length);
  });

  it('marks the records of a dataset that left the catalogue withdrawn, never deletes them, and takes them back when it returns', async () => {
    const removed = h.portal.packages.splice(2, 1)[0]!;
    // One of its files as if never captured: what the archive keeps of it is said differently.
    const before = (await recordsOf(h.db, harvestSourceId)).filter((row) => row.harvested.datasetIdentifier === removed.id);
    const uncaptured = before.at(-1)!.record;
    await h.db.update(alexandrias).set({ cid: null }).where(eq(alexandrias.id, uncaptured.id));
    const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
    // Its page changed then (the sitemap, schema.org and DCAT say when): its date of change is the withdrawal's.
    const [whenWithdrawn] = await h.db
      .select({ updatedAt: alexandrias.updatedAt, withdrawnAt: harvestedRecords.withdrawnAt })
      .from(alexandrias)
      .innerJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
      .where(eq(alexandrias.id, uncaptured.id));
    expect(whenWithdrawn!.withdrawnAt).toBeInstanceOf(Date);
    expect(whenWithdrawn!.updatedAt).toEqual(whenWithdrawn!.withdrawnAt);
    // Its file put back, and nothing else (an update through drizzle would move its date to now).
    await h.db.update(alexandrias).set({ cid: uncaptured.cid, updatedAt: whenWithdrawn!.updatedAt }).where(eq(alexandrias.id, uncaptured.id));
    expect(report.counts.withdrawn).toBe(removed.resources.length);
    const rows = (await recordsOf(h.db, harvestSourceId)).filter((row) => row.harvested.datasetIdentifier === removed.id);
    expect(rows).toHaveLength(removed.resources.length);
    for (const { harvested, record } of rows) {
      expect(harvested.withdrawnAt).toBeInstanceOf(Date);
      expect(record.cid).not.toBeNull();
      const lines = await h.db.select({ reason: statusHistory.reason }).from(statusHistory).where(eq(statusHistory.alexandriaId, record.id));
      expect(lines.filter((line) => line.reason?.startsWith('Retirado del catálogo')).map((line) => line.reason)).toEqual([
        record.id === uncaptured.id
          ? 'Retirado del catálogo: la fuente ya no lo lista. El archivo conserva el registro, pero no llegó a capturar su documento.'
          : 'Retirado del catálogo: la fuente ya no lo lista. El archivo conserva el registro y su copia.',
      ]);
    }
    // The record page says so, with its capture, and keeps serving the copy.
    const [detail] = await withOriginFacts(h.db, await recordDetails(h.db, eq(alexandrias.id, rows[0]!.record.id)));
    expect(detail!.withdrawnFromCatalogAt).toEqual(rows[0]!.harvested.withdrawnAt);
    expect(detail!.capture).toMatchObject({ status: 200, cid: rows[0]!.record.cid, mismatch: null, errorReason: null });
    // Lists and search mark it, with the date, where a status alone would pass it off as current.
    const withdrawn = rows[0]!;
    const listed = await listRecords(h.db, { entity: 'src', id: withdrawn.record.sourceId! }, 1, undefined, { q: withdrawn.record.title.slice(0, 40) });
    const row = listed.items.find((item) => item.id === withdrawn.record.id);
    expect(row?.withdrawnFromCatalogAt).toEqual(withdrawn.harvested.withdrawnAt);
    expect(row?.goneFromOriginSince).toBeNull();
    const found = await searchArchive(h.db, withdrawn.record.title, { filters: { sourceId: withdrawn.record.sourceId! } });
    expect(found.items.find((item) => item.id === withdrawn.record.id)?.withdrawnFromCatalogAt).toEqual(withdrawn.harvested.withdrawnAt);
    const stillListed = (await recordsOf(h.db, harvestSourceId)).find((other) => other.harvested.withdrawnAt === null)!;
    const [current] = (await listRecords(h.db, { entity: 'src', id: stillListed.record.sourceId! }, 1, undefined, { q: stillListed.record.title.slice(0, 40) })).items.filter(
      (item) => item.id === stillListed.record.id,
    );
    expect(current).toMatchObject({ withdrawnFromCatalogAt: null, goneFromOriginSince: null });
    const others = await h.db.select({ n: count() }).from(harvestedRecords).where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt)));
    expect(others[0]!.n).toBe(total - removed.resources.length);

    const withdrawnAt = new Map(rows.map((row) => [row.record.id, row.harvested.withdrawnAt!]));
    h.portal.packages.splice(2, 0, removed);
    const back = await runHarvest(h.db, harvestSourceId, { fetchPage });
    // Listed again is a change of its records, counted as one.
    expect(back.counts).toMatchObject({ new: 0, withdrawn: 0, updated: removed.resources.length, unchanged: total - removed.resources.length });
    const again = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.datasetIdentifier, removed.id));
    expect(again.every((row) => row.withdrawnAt === null)).toBe(true);
    // Its history tells the return too, not only the withdrawal.
    for (const row of again) {
      const lines = await h.db.select({ reason: statusHistory.reason }).from(statusHistory).where(eq(statusHistory.alexandriaId, row.alexandriaId));
      expect(lines.map((line) => line.reason).filter((reason) => reason?.startsWith('De vuelta en el catálogo'))).toHaveLength(1);
    }
    // It changed when it came back: its date of change is the return's (the run's, on its row of harvest).
    const returned = await h.db
      .select({ id: alexandrias.id, updatedAt: alexandrias.updatedAt, seenAt: harvestedRecords.updatedAt })
      .from(alexandrias)
      .innerJoin(harvestedRecords, eq(harvestedRecords.alexandriaId, alexandrias.id))
      .where(inArray(alexandrias.id, [...withdrawnAt.keys()]));
    expect(returned).toHaveLength(removed.resources.length);
    for (const record of returned) {
      expect(record.updatedAt.getTime()).toBeGreaterThan(withdrawnAt.get(record.id)!.getTime());
      expect(record.updatedAt).toEqual(record.seenAt);
    }
  });

  it('says a run its worker stopped while a page was on its way was interrupted, not that the page failed', async () => {
    h.portal.slow.catalogueMs = 2_000;
    const stop = new AbortController();
    try {
      setTimeout(() => stop.abort(new Error('El servidor se detiene.')), 200);
      const report = await runHarvest(h.db, harvestSourceId, { fetchPage: catalogPageFetcher({ allowPrivate: true, signal: stop.signal }), signal: stop.signal });
      expect(report.status).toBe('failed');
      expect(report.errors.at(-1)).toEqual({ key: RUN_ERROR_KEY, message: 'Cosecha interrumpida: el servidor se detiene. La cola de trabajos la empieza de nuevo.' });
      expect(report.counts.withdrawn).toBe(0);
    } finally {
      h.portal.slow.catalogueMs = 0;
    }
  });

  it('withdraws nothing on the word of a catalogue that lists nothing, or that changed while it was read', async () => {
    const listed = async () =>
      (await h.db.select({ n: count() }).from(harvestedRecords).where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt))))[0]!.n;
    const before = await listed();
    // The portal's index down: package_search answers success with no package at all.
    const all = h.portal.packages.splice(0);
    try {
      const empty = await runHarvest(h.db, harvestSourceId, { fetchPage });
      expect(empty.status).toBe('failed');
      expect(empty.counts.withdrawn).toBe(0);
      expect(empty.errors.at(-1)!.message).toMatch(/^El catálogo no lista ningún conjunto de datos/);
      expect(await listed()).toBe(before);
    } finally {
      h.portal.packages.push(...all);
    }
    // A dataset deleted at the portal after the first page was read: CKAN's count drops, and the
    // datasets after it move back a place, one of them onto the page already read.
    const removedMidway = h.portal.packages[0]!;
    let pagesAsked = 0;
    const deletingMidway: typeof fetchPage = async (url) => {
      const page = await fetchPage(url);
      if (++pagesAsked === 1) h.portal.packages.splice(0, 1);
      return page;
    };
    try {
      const moved = await runHarvest(h.db, harvestSourceId, { fetchPage: deletingMidway, pageSize: 2 });
      expect(moved.status).toBe('done');
      expect(moved.counts.withdrawn).toBe(0);
      expect(moved.errors.map((error) => error.message)).toContainEqual(expect.stringMatching(/^El catálogo cambió mientras se leía \(de \d+ a \d+ conjuntos\)/));
      expect(await listed()).toBe(before);
    } finally {
      h.portal.packages.unshift(removedMidway);
    }
    // Read whole again, the catalogue gives a picture to act on: nothing is missing.
    expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ withdrawn: 0, unchanged: total });
  });

  it('reads a dataset a later page lists again once, counts it as no failure, and then withdraws nothing: the pages moved', async () => {
    const listed = async () =>
      (await h.db.select({ n: count() }).from(harvestedRecords).where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt))))[0]!.n;
    const before = await listed();
    // The catalogue harvested by the tests before (this one's withdrawals need records to hold back).
    expect(before).toBeGreaterThan(0);
    // The second page answers with the first page's last dataset in front, as a portal whose pages
    // moved by one does (its total unchanged), and the catalogue's last dataset is the one missed.
    const last = h.portal.packages.at(-1)!;
    let firstPage: string[] = [];
    const shifted: typeof fetchPage = async (url) => {
      const page = await fetchPage(url);
      const body = JSON.parse(page.body) as { result: { results: Array<{ id: string }> } };
      const start = Number(new URL(url).searchParams.get('start'));
      if (start === 0) firstPage = body.result.results.map((pkg) => pkg.id);
      else if (start === 2) body.result.results = [h.portal.packages.find((pkg) => pkg.id === firstPage.at(-1))!, ...body.result.results].filter((pkg) => pkg.id !== last.id);
      else body.result.results = body.result.results.filter((pkg) => pkg.id !== last.id);
      return { ...page, body: JSON.stringify(body) };
    };
    const run = await runHarvest(h.db, harvestSourceId, { fetchPage: shifted, pageSize: 2 });
    expect(run.status).toBe('done');
    expect(run.counts).toMatchObject({ failed: 0, withdrawn: 0 });
    expect(run.errors).toEqual([
      {
        key: RUN_ERROR_KEY,
        message: `El catálogo volvió a listar en una página posterior 1 conjunto (${firstPage.at(-1)}): sus páginas se movieron mientras se leían, así que esta cosecha no da por retirado ningún conjunto; la próxima lo comprobará.`,
      },
    ]);
    // The dataset the moved pages hid is still listed, not withdrawn.
    expect(await listed()).toBe(before);
  });

  it('keeps the name of a captured file when the catalogue moves it: the capture of the new one renames it', async () => {
    const pkg = h.portal.packages.at(-1)!;
    const resource = pkg.resources[0]!;
    const oldUrl = resource.url;
    const recordOf = async () => (await recordsOf(h.db, harvestSourceId)).find((row) => row.harvested.datasetIdentifier === pkg.id && row.harvested.distributionKey === resource.id)!.record;
    const captured = await recordOf();
    expect(captured.cid).not.toBeNull();
    resource.url = new URL('nombre-nuevo-en-el-portal.csv', oldUrl).href;
    try {
      expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 1, withdrawn: 0 });
      expect(await recordOf()).toMatchObject({ cid: captured.cid, fileName: captured.fileName, originalUrl: resource.url });
    } finally {
      resource.url = oldUrl;
      expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 1, withdrawn: 0 });
    }
  });

  it('tells a file the catalogue moved in the history, makes it the record\'s address and checks it at once', async () => {
    const pkg = h.portal.packages[0]!;
    const resource = pkg.resources[0]!;
    const oldUrl = resource.url;
    resource.url = `${oldUrl}?version=2`;
    try {
      const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
      expect(report.counts).toMatchObject({ updated: 1, unchanged: total - 1, withdrawn: 0 });
      const [row] = (await recordsOf(h.db, harvestSourceId)).filter((one) => one.harvested.distributionUrl?.endsWith('?version=2'));
      expect(row!.record.originalUrl).toBe(row!.harvested.distributionUrl);
      // Captured before: due for a check now, as `npm run recheck` would make it.
      expect(row!.harvested.nextCheckAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
      const lines = await h.db.select({ reason: statusHistory.reason }).from(statusHistory).where(eq(statusHistory.alexandriaId, row!.record.id));
      expect(lines.map((line) => line.reason)).toContainEqual(`Actualizado desde el catálogo: dirección de descarga ${row!.harvested.distributionUrl!.replace('?version=2', '')} → ${row!.harvested.distributionUrl}`);
    } finally {
      resource.url = oldUrl;
    }
    expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 1, withdrawn: 0 });
  });

  it('keeps a resource the catalogue now offers as an API as the record\'s API, and asks it for no file', async () => {
    const resource = h.portal.packages[0]!.resources[0]! as Record<string, unknown>;
    const [before] = (await recordsOf(h.db, harvestSourceId)).filter((one) => one.harvested.distributionKey === resource.id);
    // As the reader wrote it (percent-encoded), which may differ from the catalogue's spelling.
    const url = before!.harvested.distributionUrl!;
    // Still without its file, as if never captured: a run queues a capture for such a record, unless it is a service.
    await h.db.update(alexandrias).set({ cid: null }).where(eq(alexandrias.id, before!.record.id));
    const jobsBefore = (await h.db.select({ n: count() }).from(jobs).where(eq(jobs.kind, CAPTURE_JOB)))[0]!.n;
    const format = resource.format;
    resource.format = 'API';
    try {
      const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
      expect(report.counts).toMatchObject({ updated: 1, unchanged: total - 1, withdrawn: 0 });
      const [after] = await recordsOf(h.db, harvestSourceId).then((rows) => rows.filter((one) => one.record.id === before!.record.id));
      expect(after!.record).toMatchObject({ apiEndpoint: url, cid: null, originalUrl: url });
      // No address to capture or to watch: the next runs and the watch ask the service for nothing.
      expect(after!.harvested.distributionUrl).toBeNull();
      expect((await h.db.select({ n: count() }).from(jobs).where(eq(jobs.kind, CAPTURE_JOB)))[0]!.n).toBe(jobsBefore);
      const lines = await h.db.select({ reason: statusHistory.reason }).from(statusHistory).where(eq(statusHistory.alexandriaId, before!.record.id));
      // Its title too: siblings named alike are told apart by their format, now «API».
      expect(lines.map((line) => line.reason)).toContainEqual(expect.stringMatching(new RegExp(`^Actualizado desde el catálogo: .*servicio \\(API\\) ninguno → ${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; dirección de descarga .* → ninguna$`)));
    } finally {
      resource.format = format;
      await h.db.update(alexandrias).set({ cid: before!.record.cid }).where(eq(alexandrias.id, before!.record.id));
    }
    expect((await runHarvest(h.db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 1, withdrawn: 0 });
    const [restored] = await recordsOf(h.db, harvestSourceId).then((rows) => rows.filter((one) => one.record.id === before!.record.id));
    expect({ apiEndpoint: restored!.record.apiEndpoint, distributionUrl: restored!.harvested.distributionUrl }).toEqual({ apiEndpoint: null, distributionUrl: url });
  });

  it('reports a declared checksum that does not match, and fails a 404 capture alone with its reason', async () => {
    const askedBefore = h.portal.requests.length;
    const template = h.portal.packages[1]!;
    const source = template.resources[0]!;
    const file = h.portal.files.get(source.id)!;
    h.portal.files.set('r-mismatch', file);
    h.portal.packages.push({
      ...template,
      id: 'conjunto-nuevo',
      name: 'conjunto-nuevo',
      title: 'Conjunto nuevo',
      resources: [
        { ...source, id: 'r-mismatch', name: 'Declarado mal', url: `${h.portal.origin}/files/r-mismatch/nomina.xls`, hash: `sha256:${'0'.repeat(64)}`, size: file.size + 1 },
        { ...source, id: 'r-404', name: 'Perdido', url: `${h.portal.origin}/files/r-404/perdido.xls`, hash: '', size: null },
        // The portal's home page where a CSV was declared.
        { ...source, id: 'r-html', name: 'Página', format: 'CSV', url: `${h.portal.origin}/html/datos.csv`, hash: '', size: null },
      ],
    });
    const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
    expect(report.counts).toMatchObject({ new: 3, failed: 0 });
    expect(report.capturesQueued).toBe(3);
    // A moderator blocked one record before its file came: the capture keeps the file, not the record online.
    const [blockedRow] = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.distributionKey, 'r-mismatch'));
    await h.db.update(alexandrias).set({ status: 'blocked' }).where(eq(alexandrias.id, blockedRow!.alexandriaId));
    await runCaptures(h);
    const [blocked] = await h.db.select().from(alexandrias).where(eq(alexandrias.id, blockedRow!.alexandriaId));
    expect(blocked).toMatchObject({ status: 'blocked', fileSha256: file.sha256 });

    const [mismatch] = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.distributionKey, 'r-mismatch'));
    const [kept] = await h.db.select().from(captures).where(eq(captures.alexandriaId, mismatch!.alexandriaId));
    expect(kept).toMatchObject({ status: 200, sha256: file.sha256, declaredChecksum: `sha256:${'0'.repeat(64)}`, declaredSize: file.size + 1 });
    expect(kept!.mismatch).toContain(`SHA-256 ${'0'.repeat(64)}`);
    expect(kept!.mismatch).toContain(`${formatCount(file.size + 1)} bytes y el archivo tiene ${formatCount(file.size)}`);

    // HTML where a CSV was declared (the hostile case): the capture fails with its reason,
    // on record with the server's answer, and keeps no bytes; the record waits without a file.
    const htmlReason = 'el catálogo declara CSV y el servidor respondió una página web (text/html)';
    const [page] = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.distributionKey, 'r-html'));
    const [pageCapture] = await h.db.select().from(captures).where(eq(captures.alexandriaId, page!.alexandriaId));
    expect(pageCapture).toMatchObject({ status: 200, cid: null, sha256: null, errorReason: htmlReason });
    expect(pageCapture!.contentType).toMatch(/^text\/html/);
    const [pageRecord] = await h.db.select().from(alexandrias).where(eq(alexandrias.id, page!.alexandriaId));
    expect(pageRecord).toMatchObject({ type: 'csv', cid: null, status: 'under_review' });
    const [pageJob] = await h.db.select().from(jobs).where(eq(jobs.dedupeKey, `capture:${report.importId}:${page!.alexandriaId}`));
    expect(pageJob).toMatchObject({ status: 'failed', attempts: 1, lastError: htmlReason });

    const [lost] = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.distributionKey, 'r-404'));
    const [lostCapture] = await h.db.select().from(captures).where(eq(captures.alexandriaId, lost!.alexandriaId));
    expect(lostCapture).toMatchObject({ status: 404, cid: null, errorReason: 'el servidor respondió HTTP 404' });
    const [lostRecord] = await h.db.select().from(alexandrias).where(eq(alexandrias.id, lost!.alexandriaId));
    expect(lostRecord).toMatchObject({ cid: null, status: 'under_review' });
    const [lostDetail, mismatchDetail] = await Promise.all(
      [lost!.alexandriaId, mismatch!.alexandriaId].map(async (id) => (await withOriginFacts(h.db, await recordDetails(h.db, eq(alexandrias.id, id), { forModerators: true })))[0]!),
    );
    expect(lostDetail!.capture).toMatchObject({ cid: null, status: 404, errorReason: 'el servidor respondió HTTP 404' });
    expect(mismatchDetail!.capture!.mismatch).toContain(`SHA-256 ${'0'.repeat(64)}`);
    const [job] = await h.db.select().from(jobs).where(eq(jobs.dedupeKey, `capture:${report.importId}:${lost!.alexandriaId}`));
    // Failed at its first attempt: a 404 is not retried.
    expect(job).toMatchObject({ status: 'failed', attempts: 1, lastError: 'el servidor respondió HTTP 404' });
    const [run] = await h.db.select().from(imports).where(eq(imports.id, report.importId));
    expect(run!.errors).toEqual(
      expect.arrayContaining([
        { key: `${h.portal.origin}/files/r-404/perdido.xls`, record: lost!.alexandriaId, message: 'captura: el servidor respondió HTTP 404' },
        { key: `${h.portal.origin}/html/datos.csv`, record: expect.any(Number), message: `captura: ${htmlReason}` },
      ]),
    );
    expect(run!.errors).toHaveLength(2);
    expect(run!.harvestCounts!.failed).toBe(2);

    // Refused before a byte joined the files captured beside it: none went back to the queue to be
    // asked again (a failure inside a group sends its other files back).
    const asked = h.portal.requests.slice(askedBefore).filter((path) => path.startsWith('/files/') || path.startsWith('/html/'));
    expect(asked.length).toBe(new Set(asked).size);
    // Nothing else was harmed: every other record kept its file, online.
    const others = (await recordsOf(h.db, harvestSourceId)).filter((row) => !['r-404', 'r-mismatch', 'r-html'].includes(row.harvested.distributionKey));
    expect(others.every((row) => row.record.status === 'on_line' && row.record.cid !== null)).toBe(true);
    h.portal.packages.pop();
  });

  it('refuses a private address unless allowed: for the catalogue, and for a capture', async () => {
    const refused = await runHarvest(h.db, harvestSourceId, { fetchPage: catalogPageFetcher({ allowPrivate: false }) });
    expect(refused.status).toBe('failed');
    expect(refused.errors).toHaveLength(1);
    // The address is the reason, not the robots.txt that could not be read there either.
    expect(refused.errors[0]!.message).toMatch(/^No se pudo leer la página 1 del catálogo \(.*\): dirección privada o reservada: 127\.0\.0\.1 \(bucle local\)\.$/);
    const [run] = await h.db.select().from(imports).where(eq(imports.id, refused.importId));
    expect(run).toMatchObject({ status: 'failed', errors: refused.errors });
    // A failed read withdraws nothing.
    const [withdrawn] = await h.db.select({ n: count() }).from(harvestedRecords).where(sql`${harvestedRecords.withdrawnAt} is not null`);
    expect(withdrawn!.n).toBe(0);

    const [lost] = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.distributionKey, 'r-404'));
    const { job } = await enqueue(h.db, {
      kind: CAPTURE_JOB,
      payload: { alexandriaId: lost!.alexandriaId, url: `${h.portal.origin}/files/${h.portal.packages[0]!.resources[0]!.id}/x.csv`, importId: refused.importId },
    });
    const handler = captureHandler({ ...h.capture, allowPrivate: false });
    const attempt = handler(job, { db: h.db, signal: new AbortController().signal });
    await expect(attempt).rejects.toBeInstanceOf(PermanentJobError);
    await expect(attempt).rejects.toThrow(/^dirección privada o reservada: 127\.0\.0\.1 \(bucle local\)$/);
    const rows = await h.db.select().from(captures).where(eq(captures.alexandriaId, lost!.alexandriaId)).orderBy(captures.id);
    expect(rows.at(-1)).toMatchObject({ status: null, cid: null });
    expect(rows.at(-1)!.errorReason).toMatch(/dirección privada/);
  });

  it("honours a site's robots.txt: a disallowed capture fails with the reason and fetches nothing but robots.txt", async () => {
    const served: string[] = [];
    const site = http.createServer((request, response) => {
      served.push(request.url ?? '');
      if (request.url === '/robots.txt') return void response.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\nDisallow: /privado/\n');
      response.writeHead(200, { 'Content-Type': 'text/csv' }).end('a,b\n1,2\n');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      const [lost] = await h.db.select().from(harvestedRecords).where(eq(harvestedRecords.distributionKey, 'r-404'));
      const [anyRun] = await h.db.select({ id: imports.id }).from(imports).where(eq(imports.harvestSourceId, harvestSourceId)).limit(1);
      const { job } = await enqueue(h.db, { kind: CAPTURE_JOB, payload: { alexandriaId: lost!.alexandriaId, url: `${siteOrigin}/privado/datos.csv`, importId: anyRun!.id } });
      const attempt = captureHandler(h.capture)(job, { db: h.db, signal: new AbortController().signal });
      await expect(attempt).rejects.toBeInstanceOf(PermanentJobError);
      await expect(attempt).rejects.toThrow(/robots\.txt del sitio no permite/);
      expect(served).toEqual(['/robots.txt']);
      const [record] = await h.db.select().from(alexandrias).where(eq(alexandrias.id, lost!.alexandriaId));
      expect(record!.cid).toBeNull();
    } finally {
      site.close();
    }
  });

  it('keeps the failures of captures that failed while the run went on, and writes a page the database refuses dataset by dataset', async () => {
    const template = h.portal.packages[1]!;
    const lost = { ...template.resources[0]!, id: 'r-perdido-en-curso', name: 'Perdido', url: `${h.portal.origin}/files/r-perdido-en-curso/x.csv`, hash: '', size: null };
    const broken = { ...template, id: 'conjunto-roto', name: 'conjunto-roto', title: 'Conjunto con un archivo perdido', resources: [lost] };
    const refused = { ...template, id: 'conjunto-rechazado', name: 'conjunto-rechazado', title: 'Conjunto rechazado por la base', resources: [{ ...lost, id: 'r-rechazado' }] };
    h.portal.packages.unshift(broken, refused);
    // The database refuses one record of the first page: the page's multi-row insert fails, and its
    // datasets are then written one by one, so that only that one fails.
    await h.db.execute(sql`create function rechazar() returns trigger language plpgsql as $$
      begin if new.title like 'Conjunto rechazado%' then raise exception 'registro rechazado por la prueba'; end if; return new; end $$`);
    await h.db.execute(sql`create trigger rechazar before insert on alexandrias for each row execute function rechazar()`);
    try {
      let pagesRead = 0;
      const report = await runHarvest(h.db, harvestSourceId, {
        pageSize: 3,
        fetchPage: async (url) => {
          // Before the second page, the captures the first queued run (and the lost file fails for good).
          if (pagesRead++ === 1) await runCaptures(h);
          return fetchPage(url);
        },
      });
      expect(pagesRead).toBeGreaterThan(2);
      expect(report.status).toBe('done');
      expect(report.errors).toEqual([{ key: 'conjunto-rechazado', message: expect.stringMatching(/rechazado por la prueba|Failed query/) }]);
      expect(report.counts).toMatchObject({ new: 1, failed: 1 });
      expect(await h.db.$count(harvestedRecords, eq(harvestedRecords.datasetIdentifier, 'conjunto-roto'))).toBe(1);
      expect(await h.db.$count(harvestedRecords, eq(harvestedRecords.datasetIdentifier, 'conjunto-rechazado'))).toBe(0);
      const [run] = await h.db.select().from(imports).where(eq(imports.id, report.importId));
      // The run's saves after the capture's failure kept it, and counted it with the refused dataset.
      expect(run!.errors).toContainEqual({ key: lost.url, record: expect.any(Number), message: 'captura: el servidor respondió HTTP 404' });
      expect(run!.errors).toHaveLength(2);
      expect(run!.documentsFailed).toBe(2);
      expect(run!.harvestCounts!.failed).toBe(2);
    } finally {
      await h.db.execute(sql`drop trigger rechazar on alexandrias`);
      await h.db.execute(sql`drop function rechazar()`);
      h.portal.packages.splice(0, 2);
    }
  });

  it('writes a page far larger than asked for a slice at a time, each in its own short transaction', async () => {
    // A catalogue that answers 600 datasets to a request for 100 (rows ignored): one page.
    const { packages } = generatedPackages(h.portal.origin, 600);
    const oversized: typeof fetchPage = async () => ({
      body: JSON.stringify({ success: true, result: { count: packages.length, results: packages } }),
      contentType: 'application/json',
    });
    const { harvestSource } = await registerHarvestSource(h.db, { url: 'http://127.0.0.1:9/api/3/action/package_search', kind: 'ckan', name: 'Portal que ignora rows' });
    let transactions = 0;
    const counted = new Proxy(h.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property === 'transaction') {
          return (...args: unknown[]) => {
            transactions += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Db;
    const first = await runHarvest(h.db, harvestSource.id, { fetchPage: oversized });
    expect(first.status).toBe('done');
    expect(first.counts.new).toBe(distributionsOf(packages).length);
    // Again, its publishers known by now: the run's opening, one transaction for every
    // WRITE_SLICE datasets of the page, and the run's close (withdrawing what it did not see).
    const again = await runHarvest(counted, harvestSource.id, { fetchPage: oversized });
    expect(again.counts).toMatchObject({ new: 0, unchanged: first.counts.new, failed: 0 });
    expect(Math.ceil(packages.length / WRITE_SLICE)).toBeGreaterThan(1);
    expect(transactions).toBe(1 + Math.ceil(packages.length / WRITE_SLICE) + 1);
  });

  it('runs one harvest of a source at a time, and closes a run whose process died', async () => {
    const [live] = await h.db
      .insert(imports)
      .values({ type: 'harvest', status: 'in_progress', sourceId, harvestSourceId, documents: 0 })
      .returning({ id: imports.id });
    await expect(runHarvest(h.db, harvestSourceId, { fetchPage })).rejects.toThrow(`Ya hay una cosecha en curso de esta fuente (importación ${live!.id})`);
    // The same run, silent for an hour: its process is gone. The next run closes it as failed.
    await h.db.update(imports).set({ updatedAt: sql`now() - interval '1 hour'` }).where(eq(imports.id, live!.id));
    const report = await runHarvest(h.db, harvestSourceId, { fetchPage });
    expect(report.status, JSON.stringify(report.errors)).toBe('done');
    const [closed] = await h.db.select().from(imports).where(eq(imports.id, live!.id));
    expect(closed).toMatchObject({ status: 'failed' });
    expect(closed!.errors.map((error) => error.message)).toContain('Cosecha interrumpida: su proceso terminó sin cerrarla.');
  });
});

describe.each(testEngines())('CKAN, DCAT (JSON-LD and RDF/XML) and data.json of one portal on %s', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(engine);
  });
  afterAll(() => h?.destroy());

  it('give the same records, departments and categories', async () => {
    const kinds: Array<[CatalogKind, string]> = [
      ['ckan', h.portal.urls.ckan],
      ['dcat', h.portal.urls.dcatJsonLd],
      ['datajson', h.portal.urls.dataJson],
      ['dcat', h.portal.urls.dcatRdfXml],
    ];
    const seen: unknown[] = [];
    let departmentsAfterFirst = -1;
    for (const [kind, url] of kinds) {
      const { harvestSource } = await registerHarvestSource(h.db, { url, kind });
      const report = await runHarvest(h.db, harvestSource.id, { fetchPage });
      expect(report, kind).toMatchObject({ status: 'done', errors: [] });
      const rows = await recordsOf(h.db, harvestSource.id);
      seen.push(
        rows.map(({ harvested, record }) => ({
          dataset: harvested.datasetIdentifier,
          distribution: harvested.distributionKey,
          title: record.title,
          description: record.description,
          type: record.type,
          sourceUrl: record.sourceUrl,
          originalUrl: record.originalUrl,
          departmentId: record.departmentId,
          categoryId: record.categoryId,
          sourceId: record.sourceId,
        })),
      );
      const [departmentCount] = await h.db.select({ n: count() }).from(departments);
      if (departmentsAfterFirst < 0) departmentsAfterFirst = departmentCount!.n;
      // The publishers are found again, not created a second time.
      expect(departmentCount!.n, kind).toBe(departmentsAfterFirst);
    }
    expect((seen[0] as unknown[]).length).toBe(distributionsOf(h.portal.packages).length);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
    expect(seen[3]).toEqual(seen[0]);
  });
});
