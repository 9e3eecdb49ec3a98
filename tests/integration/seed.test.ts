import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aletheias, alexandrias, categories, departments, harvestedRecords, harvestSources, imports, jobs, pins, sources, statusHistory } from '../../src/lib/server/db/schema.ts';
import { normalizeFormats } from '../../src/lib/domain/formats.ts';
import { needsSeed, seedArchive } from '../../src/lib/server/seed/index.ts';
import { runHarvest } from '../../src/lib/server/harvest/run.ts';
import { readSeedCatalog } from '../../src/lib/server/seed/catalog.ts';
import { SEED_FILES } from '../../src/lib/server/seed/files.ts';
import { exportPages, registerPortalExport } from '../../src/lib/server/seed/portal-harvest.ts';
import { createStagingArea, databaseFileGuard } from '../../src/lib/server/storage/index.ts';
import { createSeededDatabase, createTestDatabase, createTestStore, MIGRATIONS_DIR, reapplyMigrationsFrom, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';

const catalog = JSON.parse(
  await fs.readFile(path.join(FIXTURES_DIR, 'catalog/datos-gob-do-catalogo-2026-09-24.json'), 'utf8'),
) as { fuente: string; conjuntos: Array<{ slug: string; titulo: string; org: string; grupos: string[]; formatos: string[] }> };

/** Every row of every table, in a stable order: the whole state the seed leaves. */
async function snapshot(db: Awaited<ReturnType<typeof createSeededDatabase>>['db']) {
  const all = async (table: string) =>
    ((await db.execute(sql.raw(`select * from ${table} order by 1`))) as unknown as { rows: unknown[] }).rows;
  const tables = ['alexandrias', 'departments', 'sources', 'categories', 'imports', 'pins', 'status_history', 'aletheias', 'harvest_sources', 'harvested_records', 'jobs'];
  const rows = Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await all(table)])));
  // Identity sequences too: an INSERT that conflicts still spends a value, which is a change.
  const sequences = ((await db.execute(
    sql.raw(`select sequencename, last_value from pg_sequences where schemaname = 'public' order by sequencename`),
  )) as unknown as { rows: unknown[] }).rows;
  return { rows, sequences };
}

describe.each(testEngines())('the seed on %s', (engine) => {
  let seeded: Awaited<ReturnType<typeof createSeededDatabase>>;
  beforeAll(async () => {
    seeded = await createSeededDatabase(engine);
  });
  afterAll(() => seeded?.destroy());

  /** The records the seed harvested from the export, by the dataset's slug (its identity there). */
  const harvestedBySlug = async () => {
    const rows = await seeded.db
      .select({ slug: harvestedRecords.datasetIdentifier, record: alexandrias, department: departments.name, category: categories.title })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .leftJoin(departments, eq(alexandrias.departmentId, departments.id))
      .leftJoin(categories, eq(alexandrias.categoryId, categories.id));
    return new Map(rows.map((row) => [row.slug, row]));
  };

  it('loads every dataset of the catalogue, through the harvest path, and the real files', async () => {
    const { db } = seeded;
    const bySlug = await harvestedBySlug();
    expect(bySlug.size).toBe(catalog.conjuntos.length);
    const harvested = [...bySlug.values()].map((row) => row.record);
    expect(harvested.every((record) => record.status === 'under_review' && record.cid === null)).toBe(true);
    for (const dataset of catalog.conjuntos) {
      const record = bySlug.get(dataset.slug)?.record;
      // One record per dataset, with its title, its page on the portal and every format it declares.
      expect(record?.title).toBe(dataset.titulo.trim());
      expect(record?.sourceUrl).toBe(`https://datos.gob.do/dataset/${encodeURIComponent(dataset.slug)}`);
      expect(record?.formats).toEqual(normalizeFormats(dataset.formatos));
      expect(record?.description).toContain(dataset.org);
    }

    const archived = await db.select().from(alexandrias).where(isNotNull(alexandrias.cid));
    const files = await fs.readdir(path.join(FIXTURES_DIR, 'files'), { recursive: true });
    expect(archived).toHaveLength(files.filter((name) => name.includes('.')).length);
    expect(archived.every((record) => record.status === 'on_line' && /^baf[ky]/.test(record.cid ?? ''))).toBe(true);
    expect(seeded.report.records).toBe(1065 + archived.length);
    // Each file is described with its format's media type.
    expect(new Set(archived.map((record) => `${record.fileExtension} ${record.type} ${record.mimeType}`))).toEqual(
      new Set([
        'csv csv text/csv',
        'pdf pdf application/pdf',
        'xls xls application/vnd.ms-excel',
        'xlsx xlsx application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'ods ods application/vnd.oasis.opendocument.spreadsheet',
      ]),
    );
  });

  it('links every dataset to its real issuer and, when it has one, its theme', async () => {
    const bySlug = await harvestedBySlug();
    for (const dataset of catalog.conjuntos) {
      const row = bySlug.get(dataset.slug);
      expect(row?.department).toBe(dataset.org);
      expect(row?.category).toBe(dataset.grupos[0] ?? null);
    }
  });

  it('has the 11 categories and every publisher, with acronyms and websites where known', async () => {
    const { db } = seeded;
    expect(await db.$count(categories)).toBe(11);
    const one = await db.select().from(departments).where(eq(departments.acronym, 'ONE'));
    expect(one).toHaveLength(1);
    expect(one[0]?.name).toBe('Oficina Nacional de Estadística (ONE)');
    const [sisalril] = await db.select().from(departments).where(eq(departments.acronym, 'SISALRIL'));
    expect(sisalril?.website).toBe('https://sisalril.gob.do');
    expect(sisalril?.desciption).toContain('Poder Ejecutivo');
    const publishers = new Set(catalog.conjuntos.map((dataset) => dataset.org));
    expect(await db.$count(departments)).toBeGreaterThanOrEqual(publishers.size);
    // One institution, one department: the lists spell names differently, but websites and
    // acronyms name one body each.
    const all = await db.select().from(departments);
    const repeated = (values: Array<string | null>) =>
      values.filter((value, index) => value !== null && values.indexOf(value) !== index);
    expect(repeated(all.map((department) => department.website))).toEqual([]);
    expect(repeated(all.map((department) => department.acronym))).toEqual([]);
    const vivienda = all.filter((department) => /Vivienda, Hábitat y Edificaciones/.test(department.name));
    expect(vivienda).toHaveLength(1);
    expect(vivienda[0]?.legalCategory).toBe('Ministerio');
    // Bodies the official list names in full and the portal more briefly are one institution each,
    // under the portal's name, with the official list's legal description.
    for (const [pattern, name] of [
      [/Proyectos Estratégicos/, 'Dirección General de Proyectos Estratégicos y Especiales (PROPEEP)'],
      [/Formación Diplomática/, 'Instituto de Educación Superior en Formación Diplomática y Consular (INESDYC)'],
      [/Jardín Botánico/, 'Jardín Botánico Nacional (JBN)'],
      [/Zoológico/, 'Parque Zoológico Nacional'],
      [/Atención a Emergencias y Seguridad/, 'Sistema Nacional de Atención a Emergencias y Seguridad 911'],
      [/Instituto de Auxilio/, 'Instituto de Auxilio y Viviendas (INAVI)'],
      [/Gabinete de (Coordinación de )?Política/, 'Gabinete de Políticas Sociales (GPS)'],
      [/Tecnificación/, 'Tecnificación Nacional de Riego'],
    ] as const) {
      const found = all.filter((department) => pattern.test(department.name));
      expect(found.map((department) => department.name), String(pattern)).toEqual([name]);
      expect(found[0]!.legalCategory, name).not.toBeNull();
    }
  });

  it('joins the empty twins a database seeded before kept beside eight institutions (migration 0033)', async () => {
    const { db } = seeded;
    // The pairs as the migration names them, each twin spelled as the official list spells it.
    const migration = await fs.readFile(path.join(MIGRATIONS_DIR, '0033_seed_institution_twins.sql'), 'utf8');
    const pairs = [...migration.matchAll(/^\s*\('((?:[^']|'')+)', '((?:[^']|'')+)'\),?$/gm)].map((match) => ({ twin: match[1]!, kept: match[2]! }));
    expect(pairs).toHaveLength(8);
    const official = new Map(
      Papa.parse<Record<string, string>>(await fs.readFile(path.join(FIXTURES_DIR, 'orgs/entidades-gubernamentales-do.csv'), 'utf8'), { header: true, skipEmptyLines: true }).data.map((row) => [row.nombre!.trim(), row]),
    );
    const names = new Set((await db.select({ name: departments.name }).from(departments)).map((row) => row.name));
    for (const { twin, kept } of pairs) {
      expect(official.has(twin), twin).toBe(true);
      expect(names.has(kept), kept).toBe(true);
      expect(names.has(twin), twin).toBe(false);
    }
    // What the seed before wrote: each twin with the official list's description, the institution kept without it.
    const twins = await db
      .insert(departments)
      .values(pairs.map(({ twin }) => ({ name: twin, legalCategory: official.get(twin)!.categoria!.trim(), sector: official.get(twin)!.sector?.trim() || null })))
      .returning({ id: departments.id, name: departments.name });
    const keptNames = pairs.map((pair) => pair.kept);
    const before = await db.select({ id: departments.id, legalCategory: departments.legalCategory, sector: departments.sector }).from(departments).where(inArray(departments.name, keptNames));
    await db.update(departments).set({ legalCategory: null, sector: null }).where(inArray(departments.name, keptNames));
    // One twin a contributor's record points at since: kept, as it is.
    const [busy] = twins;
    const [record] = await db.select({ id: alexandrias.id, departmentId: alexandrias.departmentId }).from(alexandrias).limit(1);
    await db.update(alexandrias).set({ departmentId: busy!.id }).where(eq(alexandrias.id, record!.id));
    try {
      await reapplyMigrationsFrom(seeded, '0033');
      const left = await db.select({ id: departments.id }).from(departments).where(inArray(departments.id, twins.map((twin) => twin.id)));
      expect(left.map((row) => row.id)).toEqual([busy!.id]);
      const kept = await db.select({ name: departments.name, legalCategory: departments.legalCategory }).from(departments).where(inArray(departments.name, keptNames));
      const described = kept.filter((row) => row.legalCategory !== null).map((row) => row.name).sort();
      expect(described).toEqual(pairs.filter((pair) => pair.twin !== busy!.name).map((pair) => pair.kept).sort());
    } finally {
      await db.update(alexandrias).set({ departmentId: record!.departmentId }).where(eq(alexandrias.id, record!.id));
      await db.delete(departments).where(eq(departments.id, busy!.id));
      for (const row of before) await db.update(departments).set({ legalCategory: row.legalCategory, sector: row.sector }).where(eq(departments.id, row.id));
    }
  });

  it('records the harvest as a run of a paused harvest source, and the files with their pins', async () => {
    const { db } = seeded;
    const [harvest] = await db.select().from(imports).where(eq(imports.type, 'harvest'));
    expect(harvest).toMatchObject({ documents: 1065, status: 'done', harvestCounts: { new: 1065, updated: 0, unchanged: 0, withdrawn: 0, failed: 0 } });
    const [portal] = await db.select().from(sources).where(eq(sources.id, harvest?.sourceId ?? -1));
    expect(portal?.url).toBe('https://datos.gob.do');
    const [exportSource] = await db.select().from(harvestSources).where(eq(harvestSources.id, harvest?.harvestSourceId ?? -1));
    // Never run by the schedule: it is the export's address, not the live portal's API.
    expect(exportSource).toMatchObject({ url: catalog.fuente, kind: 'ckan', paused: true, sourceId: portal?.id });
    // Nothing to capture: the export lists no file URLs.
    expect(await db.$count(jobs)).toBe(0);
    const archived = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(isNotNull(alexandrias.cid));
    const pinned = await db.select().from(pins);
    expect(new Set(pinned.map((pin) => pin.cid))).toEqual(new Set(archived.map((record) => record.cid)));
    expect(pinned.every((pin) => pin.status === 'pinned' && pin.provider === 'local')).toBe(true);
    expect(await db.$count(statusHistory)).toBe(seeded.report.records);
    // The catalogue's records say why they wait: no address to fetch a document from, not a capture to come.
    const catalogueReasons = await db
      .selectDistinct({ reason: statusHistory.reason })
      .from(statusHistory)
      .innerJoin(alexandrias, eq(alexandrias.id, statusHistory.alexandriaId))
      .where(isNull(alexandrias.cid));
    expect(catalogueReasons.map((row) => row.reason)).toEqual([
      `Cosechado del catálogo «${exportSource?.name}», que no da una dirección de descarga: queda en revisión como descripción, sin documento.`,
    ]);
  });

  it('says honestly that the seeded files have no proof screenshot', async () => {
    const archived = await seeded.db.select().from(alexandrias).where(isNotNull(alexandrias.cid));
    for (const record of archived) expect(record.provenanceNote).toMatch(/No existe captura de pantalla/);
    expect(await seeded.db.$count(aletheias)).toBe(0);
  });

  it('stores the files so that reading them back by CID gives identical bytes', async () => {
    const archived = await seeded.db.select().from(alexandrias).where(isNotNull(alexandrias.cid));
    for (const record of archived) {
      const original = await fs.readFile(path.join(FIXTURES_DIR, 'files', record.originKey!.replace('fixtures:', '')));
      const chunks: Uint8Array[] = [];
      for await (const chunk of seeded.store.cat(record.cid!)) chunks.push(chunk);
      expect(Buffer.compare(Buffer.concat(chunks), original)).toBe(0);
      expect(record.fileSize).toBe(original.length);
      expect(record.fileSha256).toBe(createHash('sha256').update(original).digest('hex'));
    }
  });

  it('is finished: a start does not seed again', async () => {
    expect(await needsSeed(seeded.db)).toBe(false);
  });

  it('changes nothing when run a second time', async () => {
    const before = await snapshot(seeded.db);
    await seedArchive({ db: seeded.db, store: seeded.store, staging: seeded.staging, fixturesDir: FIXTURES_DIR });
    expect(await snapshot(seeded.db)).toEqual(before);
  });
});

describe.each(testEngines())('a seed cut short on %s', (engine) => {
  it('finishes on the next start: the rest of the catalogue, once, then the files', async () => {
    const database = await createTestDatabase(engine);
    const blocks = await createTestStore();
    try {
      const { db } = database;
      expect(await needsSeed(db)).toBe(true);
      // The first two pages of the export go in, then the process "dies" while reading the third.
      const seedCatalog = await readSeedCatalog(FIXTURES_DIR);
      const portalId = await db.transaction(async (tx) => {
        const [portal] = await tx.insert(sources).values({ name: 'Portal', url: 'https://datos.gob.do' }).returning({ id: sources.id });
        return registerPortalExport(tx, seedCatalog, portal!.id);
      });
      const pages = exportPages(seedCatalog);
      let served = 0;
      const cut = await runHarvest(db, portalId, {
        pageSize: 250,
        fetchPage: async (url) => {
          if (++served > 2) throw new Error('proceso terminado');
          return pages(url);
        },
      });
      expect(cut).toMatchObject({ status: 'failed', counts: { new: 500 } });
      expect(await needsSeed(db)).toBe(true);

      await seedArchive({ db, store: blocks.store, staging: createStagingArea({ storeDir: blocks.dir, dir: `${blocks.dir}-staging`, guard: databaseFileGuard(db) }), fixturesDir: FIXTURES_DIR });
      expect(await needsSeed(db)).toBe(false);
      const identities = await db.select({ slug: harvestedRecords.datasetIdentifier }).from(harvestedRecords);
      expect(identities).toHaveLength(catalog.conjuntos.length);
      expect(new Set(identities.map((row) => row.slug)).size).toBe(catalog.conjuntos.length);
      const runs = await db.select().from(imports).where(eq(imports.type, 'harvest')).orderBy(imports.id);
      // The cut run came before the seed made its categories: the records it wrote had none, and the
      // second run moves them into those their themes name (a mapping that changed), writing none twice.
      expect(runs.map((run) => [run.status, run.harvestCounts])).toEqual([
        ['failed', expect.objectContaining({ new: 500 })],
        ['done', expect.objectContaining({ new: 565, withdrawn: 0, failed: 0 })],
      ]);
      expect(runs[1]!.harvestCounts!.updated + runs[1]!.harvestCounts!.unchanged).toBe(500);
      // As in a seed never cut: all but the few datasets without a group have their category.
      expect(await db.$count(alexandrias, isNotNull(alexandrias.categoryId))).toBeGreaterThan(900);
      expect(await db.$count(alexandrias, isNotNull(alexandrias.cid))).toBe(SEED_FILES.length);
    } finally {
      await database.destroy();
      await blocks.destroy();
      await fs.rm(`${blocks.dir}-staging`, { recursive: true, force: true });
    }
  });
});
