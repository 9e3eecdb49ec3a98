/**
 * The seed: the real catalogue of datos.gob.do and the real files of the fixtures folder, loaded
 * into an empty archive (`npm run db:seed`, or automatically on the first start).
 *
 * It is idempotent: every row has a natural key (a URL, a name, a title, an `origin_key`), and rows
 * already present are left alone and not even offered to INSERT (which would still spend identity
 * values), so running it again changes nothing: no row, no timestamp, no sequence.
 * Files are added to the content store first (adding is idempotent too), then every database
 * write happens in one transaction, so a failed seed leaves nothing half-done behind.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { ASSET_TYPES } from '../../domain/constants.ts';
import { formatFromFileName } from '../../domain/formats.ts';
import type { Db } from '../db/index.ts';
import {
  alexandrias,
  categories,
  departments,
  imports,
  sources,
  statusHistory,
  type NewAlexandria,
} from '../db/schema.ts';
import { localPinning, pinCid } from '../pinning/index.ts';
import { seedSheetPreviews } from '../spreadsheets/index.ts';
import type { ContentStore } from '../storage/index.ts';
import { SEED_CATEGORIES } from './categories.ts';
import { PORTAL, readSeedCatalog, type SeedCatalog } from './catalog.ts';
import { SEED_FILES, type SeedFile } from './files.ts';

export interface SeedOptions {
  db: Db;
  store: ContentStore;
  fixturesDir: string;
}

export interface SeedReport {
  records: number;
  archivedFiles: number;
  departments: number;
  sources: number;
  categories: number;
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

interface StoredFile extends SeedFile {
  cid: string;
  size: number;
  sha256: string;
}

/** True when the archive has no records yet: the first start seeds then. */
export async function isArchiveEmpty(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: alexandrias.id }).from(alexandrias).limit(1);
  return row === undefined;
}

/** Loads the real catalogue and files; safe to run on an archive that already has them. */
export async function seedArchive({ db, store, fixturesDir }: SeedOptions): Promise<SeedReport> {
  if (!fs.existsSync(path.join(fixturesDir, 'catalog'))) {
    throw new Error(
      `No encuentro los datos reales para la carga inicial en ${fixturesDir}. ` +
        'Indique su carpeta con ARCHIVE_FIXTURES_DIR (por defecto ../shared/fixtures).',
    );
  }
  const catalog = await readSeedCatalog(fixturesDir);
  const stored: StoredFile[] = [];
  for (const file of SEED_FILES) {
    const filePath = path.join(fixturesDir, 'files', file.path);
    const { cid, size } = await store.add(fs.createReadStream(filePath));
    const sha256 = createHash('sha256').update(await fs.promises.readFile(filePath)).digest('hex');
    stored.push({ ...file, cid, size, sha256 });
  }

  await db.transaction(async (tx) => {
    await seedCategories(tx);
    await seedDepartments(tx, catalog, stored);
    await seedPortalHarvest(tx, catalog);
    await seedArchivedFiles(tx, store, stored);
  });
  // Outside the transaction: a spreadsheet that cannot be read loses its previews, not the seed.
  await seedSheetPreviews(db, store);

  const count = async (table: typeof alexandrias | typeof departments | typeof sources | typeof categories) =>
    (await db.select({ n: sql<number>`count(*)::int` }).from(table))[0]?.n ?? 0;
  return {
    records: await count(alexandrias),
    archivedFiles: stored.length,
    departments: await count(departments),
    sources: await count(sources),
    categories: await count(categories),
  };
}

async function seedCategories(tx: Tx): Promise<void> {
  const present = new Set((await tx.select({ title: categories.title }).from(categories)).map((row) => row.title));
  const missing = SEED_CATEGORIES.filter((category) => !present.has(category.title));
  if (missing.length) await tx.insert(categories).values(missing.map((category) => ({ ...category, enabled: true })));
}

async function seedDepartments(tx: Tx, catalog: SeedCatalog, files: StoredFile[]): Promise<void> {
  // Where the catalogue lacks an issuer's website, the files we archive tell us where it publishes.
  const websiteByAcronym = new Map(files.map((file) => [file.issuerAcronym, file.issuerWebsite]));
  const present = new Set((await tx.select({ name: departments.name }).from(departments)).map((row) => row.name));
  const rows = catalog.departments
    .filter((department) => !present.has(department.name))
    .map((department) => ({
      ...department,
      website: department.website ?? (department.acronym ? websiteByAcronym.get(department.acronym) ?? null : null),
    }));
  for (let i = 0; i < rows.length; i += 200) {
    await tx.insert(departments).values(rows.slice(i, i + 200));
  }
}

function idsBy<K extends string>(rows: Array<{ id: number; key: K | null }>): Map<K, number> {
  const map = new Map<K, number>();
  for (const row of rows) if (row.key !== null && !map.has(row.key)) map.set(row.key, row.id);
  return map;
}

/** Finds the source with this URL (sources are de-duplicated by URL), or creates it. */
async function upsertSource(tx: Tx, values: { name: string; url: string; description: string }): Promise<number> {
  const [existing] = await tx.select({ id: sources.id }).from(sources).where(eq(sources.url, values.url));
  if (existing) return existing.id;
  const [created] = await tx.insert(sources).values(values).returning({ id: sources.id });
  if (!created) throw new Error(`source ${values.url} was not saved`);
  return created.id;
}

/** Finds or creates the import with `originKey`; returns its id and whether it already existed. */
async function upsertImport(tx: Tx, values: typeof imports.$inferInsert & { originKey: string }) {
  const [existing] = await tx.select({ id: imports.id }).from(imports).where(eq(imports.originKey, values.originKey));
  if (existing) return { id: existing.id, existed: true };
  const [created] = await tx.insert(imports).values(values).returning({ id: imports.id });
  if (!created) throw new Error(`import ${values.originKey} was not saved`);
  return { id: created.id, existed: false };
}

async function insertRecords(tx: Tx, rows: NewAlexandria[], reason: string): Promise<void> {
  for (let i = 0; i < rows.length; i += 250) {
    const inserted = await tx
      .insert(alexandrias)
      .values(rows.slice(i, i + 250))
      .onConflictDoNothing()
      .returning({ id: alexandrias.id, status: alexandrias.status });
    if (inserted.length === 0) continue;
    await tx
      .insert(statusHistory)
      .values(inserted.map((record) => ({ alexandriaId: record.id, toStatus: record.status, reason })));
  }
}

/** The portal's 1,065 datasets: metadata only, waiting for someone to archive their files. */
async function seedPortalHarvest(tx: Tx, catalog: SeedCatalog): Promise<void> {
  const portalId = await upsertSource(tx, { name: PORTAL.name, url: PORTAL.url, description: PORTAL.description });
  const harvest = await upsertImport(tx, {
    type: 'harvest',
    originKey: `harvest:datos.gob.do:${catalog.exportedOn}`,
    sourceId: portalId,
    documents: catalog.datasets.length,
    status: 'done',
  });
  if (harvest.existed) return;

  const departmentIds = idsBy(
    await tx.select({ id: departments.id, key: departments.name }).from(departments),
  );
  const categoryIds = idsBy(await tx.select({ id: categories.id, key: categories.title }).from(categories));
  const rows = catalog.datasets.map((dataset): NewAlexandria => {
    const formats = dataset.publishedFormats.length ? dataset.publishedFormats.join(', ') : 'sin formato indicado';
    return {
      originKey: `datos.gob.do:${dataset.slug}`,
      title: dataset.title,
      description:
        `Conjunto de datos publicado por ${dataset.org} en el Portal de Datos Abiertos (datos.gob.do). ` +
        `Formatos publicados: ${formats}.`,
      type: dataset.type,
      formats: dataset.formats,
      status: 'under_review',
      sourceUrl: PORTAL.datasetUrl(dataset.slug),
      departmentId: departmentIds.get(dataset.org) ?? null,
      categoryId: dataset.group ? categoryIds.get(dataset.group) ?? null : null,
      sourceId: portalId,
      importId: harvest.id,
      provenanceNote:
        `Metadatos del catálogo de datos.gob.do exportado el ${catalog.exportedOn}. ` +
        'El archivo todavía no se ha descargado ni archivado: no tiene CID.',
    };
  });
  await insertRecords(tx, rows, 'Metadatos cosechados del catálogo de datos.gob.do; archivo pendiente de archivar.');
}

/** The real files: archived with their true CIDs, pinned locally, online. */
async function seedArchivedFiles(tx: Tx, store: ContentStore, files: StoredFile[]): Promise<void> {
  const batch = await upsertImport(tx, {
    type: 'bulk',
    originKey: 'bulk:fixtures/files',
    documents: files.length,
    status: 'done',
  });
  const local = localPinning(store);
  for (const file of files) await pinCid(tx, local, file.cid);
  if (batch.existed) return;

  const departmentRows = await tx
    .select({ id: departments.id, acronym: departments.acronym, name: departments.name })
    .from(departments)
    .orderBy(departments.id);
  const categoryIds = idsBy(await tx.select({ id: categories.id, key: categories.title }).from(categories));

  const rows: NewAlexandria[] = [];
  for (const file of files) {
    const issuer = departmentRows.find((row) => row.acronym === file.issuerAcronym);
    const issuerName = issuer?.name ?? file.issuerAcronym;
    const sourceId = await upsertSource(tx, {
      name: `Sitio web de ${issuerName}`,
      url: file.issuerWebsite,
      description: `Publicaciones que ${issuerName} difunde directamente en su propio sitio web.`,
    });
    const fileName = path.basename(file.path);
    const type = formatFromFileName(fileName);
    const extension = path.extname(fileName).slice(1).toLowerCase();
    rows.push({
      originKey: `fixtures:${file.path}`,
      cid: file.cid,
      title: file.title,
      description: file.description,
      type,
      formats: [type],
      status: 'on_line',
      sourceUrl: file.issuerWebsite,
      fileName,
      fileExtension: extension,
      fileSize: file.size,
      fileSha256: file.sha256,
      mimeType: ASSET_TYPES[type].mediaType ?? 'application/octet-stream',
      departmentId: issuer?.id ?? null,
      categoryId: categoryIds.get(file.category) ?? null,
      sourceId,
      importId: batch.id,
      provenanceNote:
        `Copia del archivo publicado por ${issuerName}, tomada del repositorio público ${file.copiedFrom}. ` +
        'No existe captura de pantalla que pruebe su origen: este registro no tiene prueba adjunta.',
    });
  }
  await insertRecords(tx, rows, 'Archivo real incorporado en la carga inicial y comprobado por su CID.');
  // Archives seeded before checksums were kept get theirs now (the insert above skipped them).
  for (const row of rows) {
    await tx
      .update(alexandrias)
      .set({ fileSha256: row.fileSha256 })
      .where(and(eq(alexandrias.originKey, row.originKey!), isNull(alexandrias.fileSha256)));
  }
}
