import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aletheias, alexandrias, categories, departments, imports, pins, sources, statusHistory } from '../../src/lib/server/db/schema.ts';
import { seedArchive } from '../../src/lib/server/seed/index.ts';
import { createSeededDatabase, testEngines } from '../helpers/database.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';

const catalog = JSON.parse(
  await fs.readFile(path.join(FIXTURES_DIR, 'catalog/datos-gob-do-catalogo-2026-09-24.json'), 'utf8'),
) as { conjuntos: Array<{ slug: string; org: string; grupos: string[]; formatos: string[] }> };

/** Every row of every table, in a stable order: the whole state the seed leaves. */
async function snapshot(db: Awaited<ReturnType<typeof createSeededDatabase>>['db']) {
  const all = async (table: string) =>
    ((await db.execute(sql.raw(`select * from ${table} order by id`))) as unknown as { rows: unknown[] }).rows;
  const tables = ['alexandrias', 'departments', 'sources', 'categories', 'imports', 'pins', 'status_history', 'aletheias'];
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

  it('loads every dataset of the catalogue and the real files', async () => {
    const { db } = seeded;
    const harvested = await db.select().from(alexandrias).where(sql`${alexandrias.originKey} like 'datos.gob.do:%'`);
    expect(harvested).toHaveLength(catalog.conjuntos.length);
    expect(harvested.every((record) => record.status === 'under_review' && record.cid === null)).toBe(true);
    const slugs = new Set(harvested.map((record) => record.sourceUrl?.replace('https://datos.gob.do/dataset/', '')));
    expect(slugs.size).toBe(1065);

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
    const rows = await seeded.db
      .select({ slug: alexandrias.originKey, department: departments.name, category: categories.title })
      .from(alexandrias)
      .leftJoin(departments, eq(alexandrias.departmentId, departments.id))
      .leftJoin(categories, eq(alexandrias.categoryId, categories.id))
      .where(sql`${alexandrias.originKey} like 'datos.gob.do:%'`);
    const bySlug = new Map(rows.map((row) => [row.slug, row]));
    for (const dataset of catalog.conjuntos) {
      const row = bySlug.get(`datos.gob.do:${dataset.slug}`);
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
  });

  it('records the harvest as an import, and the files with their pins', async () => {
    const { db } = seeded;
    const [harvest] = await db.select().from(imports).where(eq(imports.type, 'harvest'));
    expect(harvest).toMatchObject({ documents: 1065, status: 'done' });
    const [portal] = await db.select().from(sources).where(eq(sources.id, harvest?.sourceId ?? -1));
    expect(portal?.url).toBe('https://datos.gob.do');
    const archived = await db.select({ cid: alexandrias.cid }).from(alexandrias).where(isNotNull(alexandrias.cid));
    const pinned = await db.select().from(pins);
    expect(new Set(pinned.map((pin) => pin.cid))).toEqual(new Set(archived.map((record) => record.cid)));
    expect(pinned.every((pin) => pin.status === 'pinned' && pin.provider === 'local')).toBe(true);
    expect(await db.$count(statusHistory)).toBe(seeded.report.records);
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

  it('changes nothing when run a second time', async () => {
    const before = await snapshot(seeded.db);
    await seedArchive({ db: seeded.db, store: seeded.store, fixturesDir: FIXTURES_DIR });
    expect(await snapshot(seeded.db)).toEqual(before);
  });
});
