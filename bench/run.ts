/**
 * `npm run bench`: the archive's figures, in order:
 *
 * 1. queries on the real seeded catalogue (seed, dashboard, lists, search, CID lookup, hashing);
 * 2. a large archive, the real seed plus synthetic records up to 100,000 (`large-db.ts`), and the
 *    catalogue pages' queries on it, in process;
 * 3. the built server on that archive: median and p95 per page and API route (issues 3 and 4);
 * 4. page weight in Chromium, for every page a visitor can open: JavaScript on opening and after
 *    scrolling, and CSS, an anonymous visitor downloads, against budgets;
 * 5. a large upload through the built server on a fresh archive (`upload.ts`): throughput beside
 *    this machine's raw SHA-256 speed, measured in the same run, and the server's peak RSS;
 * 6. a harvest of a generated CKAN catalogue on 127.0.0.1 into a fresh archive (`harvest.ts`):
 *    datasets per second, captures per second beside the local file server's own rate, and the
 *    peak RSS of the process that harvests and captures.
 *
 * It ends with a summary table and writes every figure to `bench/results/latest.json`.
 * Compare ratios within one run: the machine is shared and noisy, absolute times drift.
 *
 * Settings (environment): BENCH_RECORDS (100000; 1000000 with `--large`), BENCH_RUNS (200 requests per route),
 * BENCH_WARMUP (20), BENCH_ROUTE_SECONDS (10: a slower route stops early with fewer runs, at
 * least 20), BENCH_CONCURRENCY (8), BENCH_PARTS (queries,large,http,weight,csv,upload,harvest), BENCH_CSV_ROWS (300000),
 * BENCH_KEEP_DATA (keep and reuse the large archive in the temporary folder), BENCH_BUILD=1
 * (rebuild even when dist/ exists), BENCH_DB_MAINTENANCE (none: as a running archive on PGlite,
 * which never vacuums; `analyze` or `vacuum` to see what maintenance would gain), CHROMIUM_PATH,
 * BENCH_UPLOAD_BYTES (1000000000: the uploaded document's size), BENCH_UPLOAD_VERIFY (1: check the
 * answer's CID against `cidOf` of the same stream, one more pass before the upload; 0 skips it),
 * BENCH_UPLOAD_DATABASE_URL (unset: a fresh PGlite; or a disposable PostgreSQL database, to see the
 * server's memory without the embedded database), BENCH_HARVEST_DATASETS (10000) and BENCH_HARVEST_FILES
 * (2000: the generated catalogue's size), BENCH_HARVEST_SECONDS (600: the most the captures may take),
 * BENCH_HARVEST_DATABASE_URL (unset: a fresh embedded PGlite in its own process, as `npm start`
 * serves it; or a disposable PostgreSQL database with no tables yet, checked before any part runs,
 * and not the one BENCH_UPLOAD_DATABASE_URL names, which the upload part migrates and seeds).
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readConfigOrExit } from '../src/lib/server/config.ts';
import { benchHttp, printHttp, type HttpFigures } from './http.ts';
import { prepareLargeDatabase, type Maintenance } from './large-db.ts';
import { benchLargeQueries, benchSeededQueries, type QueryFigure } from './queries.ts';
import { benchRoutes } from './routes.ts';
import { benchCsvSearch, type CsvSearchFigures } from './csv-search.ts';
import { CHROMIUM_ARGS } from '../tests/helpers/chromium.ts';
import { ensureBuild, startServer } from './server.ts';
import { kb, ms, since, table } from './stats.ts';
import { benchUpload, uploadSummary, type UploadFigures } from './upload.ts';
import { assertEmptyDatabase, benchHarvest, harvestSummary, type HarvestFigures } from './harvest.ts';
import { benchWeight, budgetText, visitorPages, type WeightFigure } from './weight.ts';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);

function numberFrom(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

const settings = {
  // `npm run bench -- --large`: a million records (issue #10); BENCH_RECORDS sets any other size.
  records: numberFrom('BENCH_RECORDS', process.argv.includes('--large') ? 1_000_000 : 100_000),
  runs: numberFrom('BENCH_RUNS', 200),
  warmups: numberFrom('BENCH_WARMUP', 20),
  concurrency: numberFrom('BENCH_CONCURRENCY', 8),
  maxSecondsPerRoute: numberFrom('BENCH_ROUTE_SECONDS', 10),
  keep: Boolean(process.env.BENCH_KEEP_DATA),
  rebuild: process.env.BENCH_BUILD === '1',
  maintenance: (['analyze', 'vacuum'].includes(process.env.BENCH_DB_MAINTENANCE ?? '') ? process.env.BENCH_DB_MAINTENANCE : 'none') as Maintenance,
  uploadBytes: numberFrom('BENCH_UPLOAD_BYTES', 1_000_000_000),
  verifyUpload: process.env.BENCH_UPLOAD_VERIFY !== '0',
  uploadDatabaseUrl: process.env.BENCH_UPLOAD_DATABASE_URL || undefined,
  harvestDatasets: numberFrom('BENCH_HARVEST_DATASETS', 10_000),
  harvestFiles: numberFrom('BENCH_HARVEST_FILES', 2_000),
  harvestSeconds: numberFrom('BENCH_HARVEST_SECONDS', 600),
  harvestDatabaseUrl: process.env.BENCH_HARVEST_DATABASE_URL || undefined,
  parts: new Set((process.env.BENCH_PARTS ?? 'queries,large,http,weight,csv,upload,harvest').split(',').map((part) => part.trim())),
};

interface Results {
  startedAt: string;
  machine: { cpus: number; cpuModel: string; node: string };
  settings: Omit<typeof settings, 'parts'> & { parts: string[] };
  seededQueries?: QueryFigure[];
  largeDatabase?: { records: number; built: boolean; buildSeconds: number; maintenance: Maintenance; targets: unknown };
  largeQueries?: QueryFigure[];
  build?: { built: boolean; stale: boolean };
  http?: HttpFigures;
  weight?: WeightFigure[];
  csvSearch?: CsvSearchFigures;
  upload?: UploadFigures;
  harvest?: HarvestFigures;
  totalSeconds?: number;
}

const started = performance.now();
const results: Results = {
  startedAt: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '', node: process.version },
  // A database URL may carry a password: the results keep its host only.
  settings: {
    ...settings,
    uploadDatabaseUrl: settings.uploadDatabaseUrl && new URL(settings.uploadDatabaseUrl).host,
    harvestDatabaseUrl: settings.harvestDatabaseUrl && new URL(settings.harvestDatabaseUrl).host,
    parts: [...settings.parts],
  },
};
const config = readConfigOrExit();
// Before any part: a filled database would fail the harvest part only at the end of the run.
if (settings.parts.has('harvest') && settings.harvestDatabaseUrl) {
  await assertEmptyDatabase(settings.harvestDatabaseUrl).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (settings.parts.has('queries')) results.seededQueries = await benchSeededQueries(config);

if (['large', 'http', 'weight', 'csv'].some((part) => settings.parts.has(part))) {
  console.log('');
  const large = await prepareLargeDatabase({ config, records: settings.records, keep: settings.keep, maintenance: settings.maintenance });
  results.largeDatabase = { records: large.records, built: large.built, buildSeconds: large.buildSeconds, maintenance: settings.maintenance, targets: large.targets };
  const upkeep =
    settings.maintenance === 'none'
      ? 'sin mantenimiento tras la carga, como un archivo en marcha sobre PGlite'
      : `con ${settings.maintenance} tras la carga, que un archivo en marcha no hace`;
  console.log(`Base grande lista: ${large.records.toLocaleString('es')} registros en ${large.buildSeconds.toFixed(1)} s (${upkeep}).`);
  try {
    if (settings.parts.has('large')) results.largeQueries = await benchLargeQueries(config, large.dataDir, large.targets);

    if (settings.parts.has('http') || settings.parts.has('weight') || settings.parts.has('csv')) {
      results.build = await ensureBuild(root, settings.rebuild);
      if (results.build.stale) {
        console.log('\naviso: src/ cambió después de la última compilación; las cifras son de dist/ (BENCH_BUILD=1 recompila).');
      }
      const routes = benchRoutes(large.targets);
      const server = await startServer(root, large.dataDir);
      console.log(`\nServidor compilado en ${server.origin} (pid ${server.pid}) sobre la base grande.`);
      try {
        if (settings.parts.has('http')) {
          results.http = await benchHttp(server.origin, routes, settings);
          printHttp(results.http);
        }
        if (settings.parts.has('weight')) {
          if (existsSync(chromiumPath)) results.weight = await benchWeight(server.origin, visitorPages(routes, large.targets), chromiumPath);
          else console.log(`\naviso: no hay Chromium en ${chromiumPath} (apt-get install chromium, o CHROMIUM_PATH): sin peso de página.`);
        }
        if (settings.parts.has('csv') && existsSync(chromiumPath)) {
          // The CSV mini-search on a generated 50 MB, 300,000-row file (issue #7: first rows < 2 s, queries < 150 ms).
          results.csvSearch = await benchCsvSearch({ baseUrl: server.origin, chromiumPath, args: CHROMIUM_ARGS, rows: numberFrom('BENCH_CSV_ROWS', 300_000) });
          printCsvSearch(results.csvSearch);
        }
      } catch (error) {
        console.error(`\nÚltimas líneas del servidor:\n${server.output()}`);
        throw error;
      } finally {
        await server.stop();
      }
    }
  } finally {
    await large.remove();
  }
}

if (settings.parts.has('upload')) {
  results.build ??= await ensureBuild(root, settings.rebuild);
  if (results.build.stale) {
    console.log('\naviso: src/ cambió después de la última compilación; la subida mide dist/ (BENCH_BUILD=1 recompila).');
  }
  results.upload = await benchUpload({
    config,
    root,
    bytes: settings.uploadBytes,
    verify: settings.verifyUpload,
    databaseUrl: settings.uploadDatabaseUrl,
  });
}

if (settings.parts.has('harvest')) {
  // Runs the archive's code from src/, as the server's worker would: no build needed.
  results.harvest = await benchHarvest({
    config,
    root,
    datasets: settings.harvestDatasets,
    files: settings.harvestFiles,
    databaseUrl: settings.harvestDatabaseUrl,
    maxCaptureSeconds: settings.harvestSeconds,
  });
}

results.totalSeconds = (performance.now() - started) / 1000;
printSummary(results);
// A smoke run (npm test) writes elsewhere, so it never replaces the figures of a real run.
const out = path.resolve(root, process.env.BENCH_OUT ?? 'bench/results/latest.json');
await fs.mkdir(path.dirname(out), { recursive: true });
await fs.writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nCifras completas en ${path.relative(root, out)}; duración total ${since(started)}.`);

function printSummary(results: Results): void {
  printRoutesSummary(results);
  if (results.upload) {
    console.log(`\nSubida (${os.cpus().length} núcleos; servidor y cliente en la misma máquina)`);
    console.log(uploadSummary(results.upload));
  }
  if (results.harvest) {
    const { harvest } = results;
    console.log(
      `\nCosecha (${harvest.datasets.toLocaleString('es')} conjuntos, ${harvest.files.toLocaleString('es')} archivos; ${harvest.engine}; ${os.cpus().length} núcleos)`,
    );
    console.log(harvestSummary(harvest));
  }
}

/** One line per route: server time and page weight against the issues' targets. */
function printRoutesSummary({ http, weight, largeDatabase }: Results): void {
  if (!http && !weight) return;
  const keys = [...new Set([...(http?.routes ?? []).map((r) => r.key), ...(weight ?? []).map((w) => w.key)])];
  const rows = keys.map((key) => {
    const route = http?.routes.find((r) => r.key === key);
    const page = weight?.find((w) => w.key === key);
    const label = route?.label ?? page?.label ?? key;
    const missing = route?.outcome === 'not-built' || page?.missing;
    const verdicts: string[] = [];
    if (route?.over) verdicts.push('OVER tiempo');
    if (page?.over) verdicts.push('OVER JS');
    // An unexpected status, or a per-user page that sends an anonymous visitor to sign in.
    if (page?.note && !page.missing && (!page.weighed || page.finalPath)) verdicts.push(page.note);
    if (route?.outcome === 'error') verdicts.push(route.note ?? 'error');
    const verdict = missing ? '404 (not built yet)' : verdicts.length ? verdicts.join(', ') : 'ok';
    const measured = route?.timing && !missing;
    const weighed = page?.weighed ? page : undefined;
    return [
      label,
      measured ? ms(route.timing!.median) : '',
      measured ? ms(route.timing!.p95) : '',
      route?.medianBudgetMs ? `< ${route.medianBudgetMs}` : '',
      weighed ? kb(weighed.open.jsGzipBytes) : '',
      weighed ? kb(weighed.jsGzipBytes) : '',
      budgetText(page?.jsBudget ?? null),
      weighed ? kb(weighed.cssGzipBytes) : '',
      verdict,
    ];
  });
  const records = largeDatabase ? `${largeDatabase.records.toLocaleString('es')} registros` : '';
  console.log(`\nResumen (${records}; ${os.cpus().length} núcleos; compare proporciones dentro de una misma ejecución)`);
  console.log(table([['ruta', 'mediana ms', 'p95 ms', 'obj. ms', 'JS KB gz al abrir', 'JS KB gz total', 'obj. JS', 'CSS KB gz', 'estado'], ...rows]));
  const [one, many, collections] = http?.load ?? [];
  if (one && many) {
    console.log(
      `Carga mixta: ${one.requestsPerSecond.toFixed(0)} req/s de una en una, ${many.requestsPerSecond.toFixed(0)} req/s con ${many.concurrency} a la vez ` +
        `(mediana ${ms(one.timing.median)} → ${ms(many.timing.median)} ms).`,
    );
  }
  if (collections) {
    console.log(
      `Páginas de colección con ${collections.concurrency} a la vez: ${collections.requestsPerSecond.toFixed(0)} req/s ` +
        `(mediana ${ms(collections.timing.median)} ms, p95 ${ms(collections.timing.p95)} ms).`,
    );
  }
}

/** The CSV mini-search figures against their targets. */
function printCsvSearch(figures: CsvSearchFigures): void {
  console.log(`\nBúsqueda en CSV en Chromium: ${figures.rows.toLocaleString('es')} filas, ${kb(figures.bytes)}`);
  console.log(
    table([
      ['medida', 'valor', 'objetivo'],
      ['primeras filas visibles', ms(figures.firstRowsMs), '< 2000 ms'],
      ['archivo completo leído', ms(figures.loadedMs), ''],
      ['consulta (mediana / p95)', `${ms(figures.queries.median)} / ${ms(figures.queries.p95)}`, '< 150 ms'],
    ]),
  );
}
