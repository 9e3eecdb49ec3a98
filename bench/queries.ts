/**
 * Query-level figures, without HTTP or rendering: first on the real seeded catalogue alone (the
 * foundation's figures: seed, dashboard, lists, search, CID lookup, hashing), then the reads the
 * catalogue pages make on the large archive, so a slow page can be told apart from a slow query.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ArchiveConfig } from '../src/lib/server/config.ts';
import { migrateDatabase, openDatabase } from '../src/lib/server/db/index.ts';
import {
  archiveTotals,
  contributorRanking,
  countRecordsByFormat,
  getGroupItem,
  largestGroups,
  listRecords,
  loadCollection,
  loadDashboard,
  loadGroup,
  loadRecord,
  searchArchive,
  searchRecords,
} from '../src/lib/server/queries/index.ts';
import { seedArchive } from '../src/lib/server/seed/index.ts';
import { cidOf, createContentStore, createStagingArea, databaseFileGuard } from '../src/lib/server/storage/index.ts';
import type { BenchTargets } from './large-db.ts';
import { measure, ms, table, type Timing } from './stats.ts';

export interface QueryFigure extends Timing {
  label: string;
  /** Anything worth printing beside the timing. */
  note?: string;
}

function print(title: string, figures: QueryFigure[]): void {
  console.log(`\n${title}`);
  console.log(
    table([
      ['consulta', 'mediana ms', 'p95 ms', 'n', ''],
      ...figures.map((f) => [f.label, ms(f.median), ms(f.p95), String(f.runs), f.note ?? '']),
    ]),
  );
}

function single(label: string, milliseconds: number, note?: string): QueryFigure {
  return { label, runs: 1, median: milliseconds, p95: milliseconds, ...(note ? { note } : {}) };
}

/** The foundation's figures, on a fresh database holding only the real seed. */
export async function benchSeededQueries(config: ArchiveConfig, runs = 50): Promise<QueryFigure[]> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-bench-'));
  const figures: QueryFigure[] = [];
  try {
    const handle = await openDatabase({ dataDir: path.join(work, 'pgdata') });
    try {
      await migrateDatabase(handle, config.migrationsDir);
      const store = createContentStore({ dir: path.join(work, 'blocks') });
      const staging = createStagingArea({ storeDir: path.join(work, 'blocks'), dir: path.join(work, 'staging'), guard: databaseFileGuard(handle.db) });
      let started = performance.now();
      const report = await seedArchive({ db: handle.db, store, staging, fixturesDir: config.fixturesDir });
      figures.push(single('seed (primera vez)', performance.now() - started, `${report.records} registros`));
      started = performance.now();
      await seedArchive({ db: handle.db, store, staging, fixturesDir: config.fixturesDir });
      figures.push(single('seed (otra vez, no cambia nada)', performance.now() - started));

      const { db } = handle;
      figures.push({ label: 'loadDashboard', ...(await measure(() => loadDashboard(db), { runs })) });
      figures.push({ label: 'listRecords (fuente, página 1)', ...(await measure(() => listRecords(db, { entity: 'src', id: 1 }, 1), { runs })) });
      figures.push({ label: 'searchRecords "salario minimo"', ...(await measure(() => searchRecords(db, 'salario minimo'), { runs })) });
      figures.push({ label: 'searchRecords con errata "estadistcas"', ...(await measure(() => searchRecords(db, 'estadistcas'), { runs })) });
      const [first] = await db.query.alexandrias.findMany({ where: (a, { isNotNull }) => isNotNull(a.cid), limit: 1 });
      if (first?.cid) {
        const cid = first.cid;
        figures.push({ label: 'loadRecord (página del registro, por CID)', ...(await measure(() => loadRecord(db, cid, first.id), { runs })) });
      }
    } finally {
      await handle.close();
    }

    const sixteenMiB = new Uint8Array(16 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24);
    const started = performance.now();
    await cidOf(sixteenMiB);
    const elapsed = performance.now() - started;
    figures.push(single('cidOf 16 MiB', elapsed, `${(16 / (elapsed / 1000)).toFixed(0)} MiB/s`));
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
  print('Consultas sobre el catálogo real (1.076 registros)', figures);
  return figures;
}

/**
 * The reads behind each catalogue page, on the large archive. The server must not be running:
 * PGlite lets one process own a data folder.
 */
export async function benchLargeQueries(config: ArchiveConfig, dataDir: string, targets: BenchTargets, runs = 50): Promise<QueryFigure[]> {
  const handle = await openDatabase({ dataDir: path.join(dataDir, 'pgdata') });
  const figures: QueryFigure[] = [];
  try {
    await migrateDatabase(handle, config.migrationsDir);
    const { db } = handle;
    const { department: dep, category: cat, portal } = targets;
    const depPages = Math.ceil(dep.records / 10);
    const portalPages = Math.ceil(portal.records / 10);
    const add = async (label: string, task: () => Promise<unknown>, note?: string) =>
      figures.push({ label, ...(await measure(task, { runs, warmups: 3, maxMs: 3000 })), ...(note ? { note } : {}) });

    // Each page's loader, as its frontmatter calls it, with the parts that weigh most beneath it.
    await add('loadDashboard (panel)', () => loadDashboard(db));
    await add('  largestGroups × 3 (pestañas)', () =>
      Promise.all([largestGroups(db, 'src'), largestGroups(db, 'dep'), largestGroups(db, 'cat')]));
    await add('  archiveTotals + countRecordsByFormat', () => Promise.all([archiveTotals(db), countRecordsByFormat(db)]));
    await add('  contributorRanking', () => contributorRanking(db));
    await add('loadGroup dep, página 1', () => loadGroup(db, 'dep', 1));
    await add(`loadCollection dep ${dep.id}, página 1`, () => loadCollection(db, 'dep', dep.id, 1), `${dep.records} registros`);
    if (depPages >= 50) await add(`loadCollection dep ${dep.id}, página 50`, () => loadCollection(db, 'dep', dep.id, 50));
    await add(`loadCollection cat ${cat.id}, página 1`, () => loadCollection(db, 'cat', cat.id, 1), `${cat.records} registros`);
    await add(`  getGroupItem cat ${cat.id} (cuentas por formato)`, () => getGroupItem(db, 'cat', cat.id));
    await add(`  listRecords cat ${cat.id}, página 1`, () => listRecords(db, { entity: 'cat', id: cat.id }, 1));
    await add(`loadCollection src ${portal.id} (portal), página 1`, () => loadCollection(db, 'src', portal.id, 1), `${portal.records} registros`);
    await add(`loadCollection src ${portal.id} (portal), última (${portalPages})`, () => loadCollection(db, 'src', portal.id, portalPages));
    await add('loadRecord (registro sembrado)', () => loadRecord(db, targets.seededRecord.cid, targets.seededRecord.id));
    // Record search (issue #7, target: median under 20 ms): the modal's and the API's first five.
    await add('searchRecords "salario minimo"', () => searchRecords(db, 'salario minimo'));
    await add('searchRecords "presupuestos" (raíz)', () => searchRecords(db, 'presupuestos'));
    await add('searchRecords "MINERD" (siglas)', () => searchRecords(db, 'MINERD'));
    await add('searchRecords "salud" (categoría grande)', () => searchRecords(db, 'salud'));
    await add('searchRecords con errata "estadistcas"', () => searchRecords(db, 'estadistcas'));
    await add('searchRecords "MINERD 2023" (palabra a palabra)', () => searchRecords(db, 'MINERD 2023'));
    await add('searchArchive "salud" con facetas (/buscar)', () => searchArchive(db, 'salud', { facets: true }));
    await add('searchArchive "salud 2024" con facetas (palabra a palabra)', () => searchArchive(db, 'salud 2024', { facets: true }));
  } finally {
    await handle.close();
  }
  print('Consultas sobre la base grande (en proceso, sin HTTP)', figures);
  return figures;
}
