/**
 * The seed: the real catalogue of datos.gob.do and the real files of the fixtures folder, loaded
 * into an empty archive (`npm run db:seed`, or automatically on the first start).
 *
 * It is idempotent: every row has a natural key (a URL, a name, a title, an `origin_key`, a
 * harvested record's identity), and rows already present are left alone and not even offered to
 * INSERT (which would still spend identity values), so running it again changes nothing: no row,
 * no timestamp, no sequence.
 *
 * Three steps, each all-or-nothing, in an order that lets a seed cut short finish on the next start
 * (`needsSeed`): the categories, the publishers and the export's paused harvest source, in one
 * transaction; the catalogue, harvested from the export through the harvest runner like any
 * catalogue (`portal-harvest.ts`), page by page, found again by identity when re-run; last, the
 * real files (added to the content store first, then written in one transaction).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { ASSET_TYPES } from '../../domain/constants.ts';
import { formatFromFileName } from '../../domain/formats.ts';
import { ofInstitution, withArticle } from '../../domain/institution-names.ts';
import type { Db } from '../db/index.ts';
import {
  alexandrias,
  categories,
  departments,
  imports,
  pins,
  sources,
  statusHistory,
  type NewAlexandria,
} from '../db/schema.ts';
import { localPinning, pinCids } from '../pinning/index.ts';
import { seedSheetPreviews } from '../spreadsheets/index.ts';
import type { ContentStore, StagingArea } from '../storage/index.ts';
import { SEED_CATEGORIES } from './categories.ts';
import { PORTAL, readSeedCatalog, type SeedCatalog } from './catalog.ts';
import { SEED_FILES, type SeedFile } from './files.ts';
import { harvestPortalExport, registerPortalExport } from './portal-harvest.ts';

export interface SeedOptions {
  db: Db;
  store: ContentStore;
  /** Where the sheets extracted from the spreadsheet files wait to be committed with their rows. */
  staging: StagingArea;
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

/** The Import the seed writes last: once it exists, the seed has run to the end. */
const FILES_IMPORT = 'bulk:fixtures/files';

/**
 * True until a seed has run to the end: on a new archive, and after a seed that was cut short
 * (its last step, the files' Import, missing). A start then seeds, and the seed finishes what is left.
 */
export async function needsSeed(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: imports.id }).from(imports).where(eq(imports.originKey, FILES_IMPORT)).limit(1);
  return row === undefined;
}

/** Loads the real catalogue and files; safe to run on an archive that already has them. */
export async function seedArchive({ db, store, staging, fixturesDir }: SeedOptions): Promise<SeedReport> {
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

  const exportSource = await db.transaction(async (tx) => {
    await seedCategories(tx);
    await seedDepartments(tx, catalog, stored);
    const portalId = await upsertSource(tx, { name: PORTAL.name, url: PORTAL.url, description: PORTAL.description });
    return registerPortalExport(tx, catalog, portalId);
  });
  await harvestPortalExport(db, catalog, exportSource);
  await db.transaction((tx) => seedArchivedFiles(tx, store, stored));
  // Outside the transaction: a spreadsheet that cannot be read loses its previews, not the seed.
  await seedSheetPreviews(db, { store, staging });

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

/** The real files: archived with their true CIDs, pinned locally, online. */
async function seedArchivedFiles(tx: Tx, store: ContentStore, files: StoredFile[]): Promise<void> {
  const batch = await upsertImport(tx, {
    type: 'bulk',
    originKey: FILES_IMPORT,
    documents: files.length,
    status: 'done',
  });
  // Pinned once: a pin already recorded is not written again (an upsert would spend identities).
  const local = localPinning(store);
  const pinned = new Set(
    (await tx.select({ cid: pins.cid }).from(pins).where(and(eq(pins.provider, local.name), inArray(pins.cid, files.map((file) => file.cid))))).map((row) => row.cid),
  );
  await pinCids(tx, local, files.filter((file) => !pinned.has(file.cid)).map((file) => file.cid));
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
      // Short enough to tell the sources apart on the home page's tabs: «Sitio web de la ONE».
      name: `Sitio web ${ofInstitution(issuerName, file.issuerAcronym)}`,
      url: file.issuerWebsite,
      description: `Publicaciones que ${withArticle(issuerName)} difunde directamente en su propio sitio web.`,
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
        `Copia del archivo publicado por ${withArticle(issuerName)}, tomada del repositorio público ${file.copiedFrom}. ` +
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
