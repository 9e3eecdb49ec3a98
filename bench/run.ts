/**
 * `npm run bench`: figures for the foundation's hot paths, on the real seeded catalogue. Compare
 * ratios within one run (the machine is shared and noisy), not absolute times between runs.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrateDatabase, openDatabase } from '../src/lib/server/db/index.ts';
import { readConfig } from '../src/lib/server/config.ts';
import { loadDashboard, listRecords, recordsByCid, searchRecords } from '../src/lib/server/queries/index.ts';
import { seedArchive } from '../src/lib/server/seed/index.ts';
import { cidOf, createContentStore } from '../src/lib/server/storage/index.ts';

const config = readConfig();
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-bench-'));

async function time<T>(label: string, runs: number, task: () => Promise<T>): Promise<void> {
  await task();
  const started = performance.now();
  for (let i = 0; i < runs; i += 1) await task();
  const each = (performance.now() - started) / runs;
  console.log(`${label.padEnd(44)} ${each.toFixed(2).padStart(10)} ms`);
}

try {
  const handle = await openDatabase({ dataDir: path.join(work, 'pgdata') });
  await migrateDatabase(handle, config.migrationsDir);
  const store = createContentStore({ dir: path.join(work, 'blocks') });
  let started = performance.now();
  const report = await seedArchive({ db: handle.db, store, fixturesDir: config.fixturesDir });
  console.log(`${'seed (first run, PGlite)'.padEnd(44)} ${(performance.now() - started).toFixed(2).padStart(10)} ms  (${report.records} registros)`);
  started = performance.now();
  await seedArchive({ db: handle.db, store, fixturesDir: config.fixturesDir });
  console.log(`${'seed (again, no-op)'.padEnd(44)} ${(performance.now() - started).toFixed(2).padStart(10)} ms`);

  await time('loadDashboard', 20, () => loadDashboard(handle.db));
  await time('listRecords (source page 1)', 20, () => listRecords(handle.db, { entity: 'src', id: 1 }, 1));
  await time('searchRecords "salario minimo"', 20, () => searchRecords(handle.db, 'salario minimo'));
  await time('searchRecords typo "estadistcas"', 20, () => searchRecords(handle.db, 'estadistcas'));
  const [first] = await handle.db.query.alexandrias.findMany({ where: (a, { isNotNull }) => isNotNull(a.cid), limit: 1 });
  if (first?.cid) await time('recordsByCid', 20, () => recordsByCid(handle.db, first.cid!));
  await handle.close();

  const sixteenMiB = new Uint8Array(16 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24);
  started = performance.now();
  await cidOf(sixteenMiB);
  const seconds = (performance.now() - started) / 1000;
  console.log(`${'cidOf 16 MiB'.padEnd(44)} ${(seconds * 1000).toFixed(2).padStart(10)} ms  (${(16 / seconds).toFixed(0)} MiB/s)`);
} finally {
  await fs.rm(work, { recursive: true, force: true });
}
