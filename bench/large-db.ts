/**
 * A large archive for the benchmark: the real seed plus synthetic records up to `BENCH_RECORDS`
 * (100,000 by default), in a PGlite data folder the built server can open as `ARCHIVE_DATA_DIR`.
 *
 * The synthetic records imitate the real catalogue rather than spread evenly: each one copies a
 * random seeded dataset's department, category and format most of the time, so large publishers
 * stay large (a department collection runs to thousands of records, the portal source to tens of
 * thousands), and it is a periodic re-release of that dataset ("… , marzo 2021"). Most are
 * `under_review` without a file; about one in eight is `on_line` with a real CID, computed by
 * `cidOf` over a small distinct byte string, and a few share a CID as duplicate contributions do.
 * Dates spread over ten years, newer more often. A fixed random seed makes every build identical.
 *
 * With `BENCH_KEEP_DATA` set the folder is kept in the temporary directory and reused by the next
 * run while the migrations and this generator are unchanged.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { AssetStatus, AssetType } from '../src/lib/domain/constants.ts';
import type { ArchiveConfig } from '../src/lib/server/config.ts';
import { migrateDatabase, openDatabase, type Db } from '../src/lib/server/db/index.ts';
import { alexandrias, imports } from '../src/lib/server/db/schema.ts';
import { PORTAL } from '../src/lib/server/seed/catalog.ts';
import { seedArchive } from '../src/lib/server/seed/index.ts';
import { cidOf, createContentStore, createStagingArea, databaseFileGuard } from '../src/lib/server/storage/index.ts';
import { since } from './stats.ts';

const MARKER = 'bench-data.json';
const BATCH = 5000;

/** What the benchmark requests, found in the database once it is built. */
export interface BenchTargets {
  /** The department with the most records. */
  department: { id: number; name: string; records: number };
  category: { id: number; name: string; records: number };
  /** A source other than the portal (the portal's collection is the largest of all). */
  source: { id: number; name: string; records: number };
  portal: { id: number; records: number };
  /** A real seeded file, on_line with its true CID and a local pin. */
  seededRecord: { id: number; cid: string; title: string; type: AssetType };
  /** A synthetic on_line record. */
  syntheticRecord: { id: number; cid: string; title: string; type: AssetType };
  /** The contributor with the most records. */
  wallet: { address: string; records: number };
}

export interface LargeDatabase {
  /** The folder to pass as `ARCHIVE_DATA_DIR` (holds `pgdata/` and `blocks/`). */
  dataDir: string;
  records: number;
  /** False when a kept folder was reused. */
  built: boolean;
  buildSeconds: number;
  targets: BenchTargets;
  /** Removes the folder, unless it is being kept. */
  remove(): Promise<void>;
}

/**
 * What runs after loading. PGlite has no autovacuum, and the archive runs no maintenance of its
 * own, so `none` is what a running archive has: no planner statistics, and no visibility map, which
 * rules out index-only scans (every count reads the table). `analyze` and `vacuum` show the gain.
 */
export type Maintenance = 'none' | 'analyze' | 'vacuum';

export interface LargeDatabaseOptions {
  config: ArchiveConfig;
  records: number;
  keep: boolean;
  maintenance: Maintenance;
  log?: (line: string) => void;
}

/** Builds (or reuses) the large archive; the database is closed again when this returns. */
export async function prepareLargeDatabase({ config, records, keep, maintenance, log = console.log }: LargeDatabaseOptions): Promise<LargeDatabase> {
  const fingerprint = await fingerprintOf(config.migrationsDir, `${records}:${maintenance}`);
  const dataDir = keep
    ? path.join(os.tmpdir(), `archivo-bench-data-${records}-${maintenance}`)
    : await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-bench-data-'));
  const remove = () => (keep ? Promise.resolve() : fs.rm(dataDir, { recursive: true, force: true }));
  // Interrupted (Ctrl-C ends the process without running `finally`), the folder still goes.
  if (!keep) process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));

  try {
    const marker = await readMarker(dataDir);
    const reuse = keep && marker?.fingerprint === fingerprint;
    if (keep && !reuse) await fs.rm(dataDir, { recursive: true, force: true });
    const started = performance.now();
    const handle = await openDatabase({ dataDir: path.join(dataDir, 'pgdata') });
    try {
      if (!reuse) {
        log(`Construyendo la base grande (${records.toLocaleString('es')} registros) en ${dataDir} ...`);
        await migrateDatabase(handle, config.migrationsDir);
        const store = createContentStore({ dir: path.join(dataDir, 'blocks') });
        const staging = createStagingArea({ storeDir: path.join(dataDir, 'blocks'), dir: path.join(dataDir, 'staging'), guard: databaseFileGuard(handle.db) });
        await seedArchive({ db: handle.db, store, staging, fixturesDir: config.fixturesDir });
        log(`  carga inicial real: ${since(started)}`);
        await addSyntheticRecords(handle.db, records, log);
        if (maintenance !== 'none') {
          const maintaining = performance.now();
          await handle.db.execute(maintenance === 'vacuum' ? sql`vacuum analyze` : sql`analyze`);
          log(`  ${maintenance === 'vacuum' ? 'vacuum analyze' : 'analyze'}: ${since(maintaining)}`);
        }
      } else {
        log(`Reutilizando la base grande en ${dataDir} (BENCH_KEEP_DATA).`);
      }
      const targets = await findTargets(handle.db);
      const [count] = await handle.db.select({ n: sql<number>`count(*)::int` }).from(alexandrias);
      const buildSeconds = (performance.now() - started) / 1000;
      if (!reuse) await fs.writeFile(path.join(dataDir, MARKER), JSON.stringify({ fingerprint, records: count?.n }));
      return { dataDir, records: count?.n ?? 0, built: !reuse, buildSeconds, targets, remove };
    } finally {
      await handle.close();
    }
  } catch (error) {
    await remove();
    throw error;
  }
}

async function fingerprintOf(migrationsDir: string, settings: string): Promise<string> {
  // This file's own text is part of it: any change to the generator rebuilds a kept folder.
  const hash = createHash('sha256').update(settings);
  hash.update(await fs.readFile(import.meta.filename));
  for (const name of (await fs.readdir(migrationsDir)).filter((name) => name.endsWith('.sql')).sort()) {
    hash.update(name).update(await fs.readFile(path.join(migrationsDir, name)));
  }
  return hash.digest('hex');
}

async function readMarker(dataDir: string): Promise<{ fingerprint: string } | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(dataDir, MARKER), 'utf8')) as { fingerprint: string };
  } catch {
    return null;
  }
}

/** mulberry32: a small seeded generator, so every run generates the same data (archive, CSV). */
export function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(random: () => number, choices: ReadonlyArray<readonly [T, number]>): T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let pick = random() * total;
  for (const [value, weight] of choices) {
    pick -= weight;
    if (pick < 0) return value;
  }
  return choices[choices.length - 1]![0];
}

const TYPES: ReadonlyArray<readonly [AssetType, number]> = [
  ['csv', 30], ['pdf', 28], ['xlsx', 20], ['xls', 7], ['ods', 5], ['other', 10],
];
const STATUSES: ReadonlyArray<readonly [AssetStatus, number]> = [
  ['under_review', 84], ['on_line', 12], ['broken', 2.5], ['blocked', 1.5],
];
const EXTENSIONS: Record<AssetType, { extension: string; mime: string }> = {
  csv: { extension: 'csv', mime: 'text/csv' },
  pdf: { extension: 'pdf', mime: 'application/pdf' },
  xlsx: { extension: 'xlsx', mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  xls: { extension: 'xls', mime: 'application/vnd.ms-excel' },
  ods: { extension: 'ods', mime: 'application/vnd.oasis.opendocument.spreadsheet' },
  other: { extension: 'json', mime: 'application/json' },
};
const MONTHS = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];
const FIRST_DATE = Date.UTC(2016, 0, 1);
const YEAR = 365.25 * 24 * 3600 * 1000;

interface Template {
  departmentId: number | null;
  categoryId: number | null;
  type: AssetType;
  title: string;
}

function slugOf(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
}

/** A fake but well-formed wallet address, stable for `n`. */
function walletOf(n: number): string {
  return `0x${createHash('sha256').update(`bench wallet ${n}`).digest('hex').slice(0, 40)}`;
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** The rows of a raw query; PGlite and node-postgres results both carry them in `rows`. */
async function rowsOf<T>(db: Db | Tx, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

async function addSyntheticRecords(db: Db, target: number, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const random = randomFrom(20261121);
  const templates = await rowsOf<Template>(db, sql`
    select department_id as "departmentId", category_id as "categoryId", type, title from alexandrias order by id
  `);
  const missing = target - templates.length;
  if (missing <= 0) return;
  const departmentIds = (await rowsOf<{ id: number }>(db, sql`select id from departments order by id`)).map((row) => row.id);
  const categoryIds = (await rowsOf<{ id: number }>(db, sql`select id from categories order by id`)).map((row) => row.id);
  const sourceRows = await rowsOf<{ id: number; url: string }>(db, sql`select id, url from sources order by id`);
  const portalId = sourceRows.find((row) => row.url === PORTAL.url)?.id;
  const otherSourceIds = sourceRows.filter((row) => row.id !== portalId).map((row) => row.id);
  const now = Date.now();

  // A few dozen imports over the years: yearly harvests of the portal, bulk loads and uploads.
  const importRows: Array<typeof imports.$inferInsert> = [];
  for (let i = 0; i < 40; i += 1) {
    const kind = i % 4 === 0 ? 'harvest' : i % 4 === 1 ? 'single' : 'bulk';
    const updatedAt = new Date(FIRST_DATE + ((i + random()) / 40) * (now - FIRST_DATE));
    importRows.push({
      type: kind,
      originKey: `bench:import:${i}`,
      sourceId: kind === 'harvest' ? portalId : (otherSourceIds[i % Math.max(1, otherSourceIds.length)] ?? portalId),
      walletAddress: kind === 'harvest' ? null : walletOf(i % 30),
      status: i >= 38 ? 'in_progress' : 'done',
      createdAt: updatedAt,
      updatedAt,
    });
  }
  const importIds = (await db.insert(imports).values(importRows).returning({ id: imports.id, type: imports.type }));
  const harvestIds = importIds.filter((row) => row.type === 'harvest').map((row) => row.id);
  const otherImportIds = importIds.filter((row) => row.type !== 'harvest').map((row) => row.id);

  // Distinct small byte strings give distinct real CIDs; computed up front, in parallel batches.
  const statuses = Array.from({ length: missing }, () => weighted(random, STATUSES));
  const cids: Array<string | null> = new Array<string | null>(missing).fill(null);
  const withCid = statuses.flatMap((status, i) => (status === 'on_line' || status === 'blocked' ? [i] : []));
  const encoder = new TextEncoder();
  for (let i = 0; i < withCid.length; i += 500) {
    await Promise.all(
      withCid.slice(i, i + 500).map(async (index) => {
        cids[index] = (await cidOf(encoder.encode(`Archivo Abierto, registro de prueba ${index}\n`))).cid;
      }),
    );
  }
  // About 2% of archived files were contributed twice: the same CID on two records.
  for (let k = 1; k < withCid.length; k += 1) {
    if (random() < 0.02) cids[withCid[k]!] = cids[withCid[Math.floor(random() * k)]!] ?? null;
  }
  log(`  ${withCid.length.toLocaleString('es')} CID calculados: ${since(started)}`);

  const inserting = performance.now();
  await db.transaction(async (tx) => {
    // Maintaining the two GIN indexes row by row costs three times the insert itself: drop them
    // for the load and build them again at the end, from their own definitions.
    const ginIndexes = await rowsOf<{ indexname: string; indexdef: string }>(tx, sql`
      select indexname, indexdef from pg_indexes where tablename = 'alexandrias' and indexdef like '% USING gin %'
    `);
    for (const index of ginIndexes) await tx.execute(sql.raw(`drop index ${index.indexname}`));

    let batch: SyntheticRow[] = [];
    for (let i = 0; i < missing; i += 1) {
      const template = templates[Math.floor(random() * templates.length)]!;
      const departmentId = random() < 0.9 ? template.departmentId : departmentIds[Math.floor(random() * departmentIds.length)]!;
      const categoryId = random() < 0.85 ? template.categoryId : random() < 0.5 ? null : categoryIds[Math.floor(random() * categoryIds.length)]!;
      const type = random() < 0.7 ? template.type : weighted(random, TYPES);
      const fromPortal = random() < 0.8;
      const sourceId = fromPortal || otherSourceIds.length === 0 ? portalId : otherSourceIds[Math.floor(random() * otherSourceIds.length)]!;
      const updatedAt = new Date(FIRST_DATE + Math.pow(random(), 0.7) * (now - FIRST_DATE));
      const createdAt = new Date(Math.max(FIRST_DATE, updatedAt.getTime() - random() * 2 * YEAR));
      const when = updatedAt.getUTCFullYear();
      const title = `${template.title}, ${random() < 0.6 ? `${MONTHS[updatedAt.getUTCMonth()]} ${when}` : String(when)}`;
      const slug = `${slugOf(template.title)}-${i}`;
      const cid = cids[i] ?? null;
      const file = EXTENSIONS[type];
      const uploaded = !fromPortal && random() < 0.5;
      batch.push({
        origin_key: `bench:${i}`,
        cid,
        title,
        description: `Publicación periódica del conjunto «${template.title}», con los datos de ${when}. Registro sintético del banco de pruebas.`,
        type,
        formats: random() < 0.3 && type !== 'csv' ? [type, 'csv'] : [type],
        status: statuses[i]!,
        source_url: fromPortal ? PORTAL.datasetUrl(slug) : `https://example.gob.do/datos/${slug}`,
        original_url: cid ? `https://example.gob.do/datos/${slug}.${file.extension}` : null,
        file_name: cid ? `${slug}.${file.extension}` : null,
        file_extension: cid ? file.extension : null,
        file_size: cid ? Math.floor(1024 + Math.pow(random(), 3) * 50 * 1024 * 1024) : null,
        mime_type: cid ? file.mime : null,
        department_id: departmentId,
        category_id: categoryId,
        source_id: sourceId ?? null,
        import_id: (fromPortal ? harvestIds[Math.floor(random() * harvestIds.length)] : otherImportIds[Math.floor(random() * otherImportIds.length)]) ?? null,
        wallet_address: uploaded ? walletOf(Math.floor(Math.pow(random(), 2) * 30)) : null,
        provenance_note: 'Registro sintético creado por el banco de pruebas (npm run bench).',
        created_at: createdAt.toISOString(),
        updated_at: updatedAt.toISOString(),
      });
      if (batch.length === BATCH) {
        await insertRows(tx, batch);
        batch = [];
      }
    }
    if (batch.length) await insertRows(tx, batch);
    log(`  ${missing.toLocaleString('es')} registros sintéticos insertados: ${since(inserting)}`);

    const indexing = performance.now();
    await tx.execute(sql`set local maintenance_work_mem = '256MB'`);
    for (const index of ginIndexes) await tx.execute(sql.raw(index.indexdef));
    log(`  índices GIN reconstruidos: ${since(indexing)}`);
    await tx.execute(sql`
      update imports set documents = counts.n
      from (select import_id, count(*)::int as n from alexandrias group by import_id) as counts
      where imports.id = counts.import_id and imports.origin_key like 'bench:import:%'
    `);
  });
}

/** A record as `json_to_recordset` reads it: column names, JSON values. */
interface SyntheticRow {
  origin_key: string;
  cid: string | null;
  title: string;
  description: string;
  type: AssetType;
  formats: AssetType[];
  status: AssetStatus;
  source_url: string;
  original_url: string | null;
  file_name: string | null;
  file_extension: string | null;
  file_size: number | null;
  mime_type: string | null;
  department_id: number | null;
  category_id: number | null;
  source_id: number | null;
  import_id: number | null;
  wallet_address: string | null;
  provenance_note: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `origin_key text, cid text, title text, description text, type asset_type, formats asset_type[],
  status asset_status, source_url text, original_url text, file_name text, file_extension text, file_size bigint,
  mime_type text, department_id integer, category_id integer, source_id integer, import_id integer,
  wallet_address text, provenance_note text, created_at timestamptz, updated_at timestamptz`;
const NAMES = COLUMNS.split(',').map((column) => column.trim().split(' ')[0]).join(', ');

/** One statement and one JSON parameter per batch: far cheaper than thousands of bound parameters. */
async function insertRows(tx: Tx, rows: SyntheticRow[]): Promise<void> {
  await tx.execute(sql`
    insert into alexandrias (${sql.raw(NAMES)})
    select ${sql.raw(NAMES)} from json_to_recordset(${JSON.stringify(rows)}::json) as r(${sql.raw(COLUMNS)})
  `);
}

async function findTargets(db: Db): Promise<BenchTargets> {
  const one = async <T>(query: SQL): Promise<T> => {
    const [row] = await rowsOf<T>(db, query);
    if (!row) throw new Error('La base del banco de pruebas no tiene lo que se esperaba.');
    return row;
  };
  type Group = { id: number; name: string; records: number };
  type RecordHit = { id: number; cid: string; title: string; type: AssetType };
  const department = await one<Group>(sql`
    select d.id, d.name, count(*)::int as records from alexandrias a join departments d on d.id = a.department_id
    group by d.id order by records desc, d.id limit 1`);
  const category = await one<Group>(sql`
    select c.id, c.title as name, count(*)::int as records from alexandrias a join categories c on c.id = a.category_id
    group by c.id order by records desc, c.id limit 1`);
  const portal = await one<{ id: number; records: number }>(sql`
    select s.id, count(a.id)::int as records from sources s left join alexandrias a on a.source_id = s.id
    where s.url = ${PORTAL.url} group by s.id`);
  const source = await one<Group>(sql`
    select s.id, s.name, count(*)::int as records from alexandrias a join sources s on s.id = a.source_id
    where s.url <> ${PORTAL.url} group by s.id order by records desc, s.id limit 1`);
  // A seeded CSV when there is one: the record page's CSV search makes it the heaviest kind.
  const seededRecord = await one<RecordHit>(sql`
    select id, cid, title, type from alexandrias
    where origin_key like 'fixtures:%' and status = 'on_line' order by (type = 'csv') desc, id limit 1`);
  const syntheticRecord = await one<RecordHit>(sql`
    select id, cid, title, type from alexandrias
    where origin_key like 'bench:%' and status = 'on_line' and department_id = ${department.id}
    order by updated_at desc, id limit 1`);
  const wallet = await one<{ address: string; records: number }>(sql`
    select wallet_address as address, count(*)::int as records from alexandrias where wallet_address is not null
    group by wallet_address order by records desc, wallet_address limit 1`);
  return { department, category, source, portal, seededRecord, syntheticRecord, wallet };
}
