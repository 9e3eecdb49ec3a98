/**
 * `npm run harvest -- <url> [--kind ckan|dcat|datajson] [--source-name "..."]`: harvests one
 * public catalogue now, in this process. Registers the harvest source (and our `source` for it)
 * if new, runs the harvest, and captures its files with a worker of the job queue until none of
 * this run's captures is left (or `--timeout` minutes pass), printing progress in Spanish. It is
 * polite to the portal: `DEFAULT_POLITENESS` requests at once per host, and `--host-delay` ms
 * (1 s) between two of them. Exits
 * with 1 when the run failed, 2 on a usage error.
 *
 * It opens the database as the other scripts do: `DATABASE_URL`, or the embedded PGlite folder.
 * PGlite has one owner at a time, so while `npm start` serves an embedded database this script
 * cannot open it and says so; queuing the run for the running server instead is a later step.
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, eq, like } from 'drizzle-orm';
import { openArchive, type Archive } from '../src/lib/server/archive.ts';
import { jobs } from '../src/lib/server/db/schema.ts';
import { CATALOG_KINDS, type CatalogKind } from '../src/lib/server/harvest/catalogs/index.ts';
import { CAPTURE_JOB, captureHandler, catalogPageFetcher, registerHarvestSource, runHarvest } from '../src/lib/server/harvest/index.ts';
import { DEFAULT_POLITENESS, runWorker } from '../src/lib/server/jobs/index.ts';

const USAGE = 'Uso: npm run harvest -- <url del catálogo> [--kind ckan|dcat|datajson] [--source-name "Nombre"] [--timeout minutos] [--host-delay ms]';

/** The kind a URL most likely is when `--kind` is not given: data.json and DCAT files by name, else CKAN. */
function guessKind(url: string): CatalogKind {
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith('data.json')) return 'datajson';
  if (/\.(jsonld|ttl|rdf)$/.test(path) || path.includes('catalog')) return 'dcat';
  return 'ckan';
}

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    kind: { type: 'string' },
    'source-name': { type: 'string' },
    timeout: { type: 'string', default: '60' },
    'host-delay': { type: 'string', default: String(DEFAULT_POLITENESS.perHostDelayMs) },
  },
});
const url = positionals[0];
if (!url || positionals.length > 1) usage('Indique una sola URL de catálogo.');
if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) usage(`«${url}» no es una URL http(s).`);
const kind = (values.kind ?? guessKind(url)) as CatalogKind;
if (!(kind in CATALOG_KINDS)) usage(`Tipo de catálogo desconocido: «${values.kind}».`);
const timeoutMinutes = Number(values.timeout);
if (!(timeoutMinutes > 0)) usage('--timeout debe ser un número de minutos mayor que cero.');
// The pause between two requests to one host (1 s by default): be polite to public portals.
const hostDelayMs = Number(values['host-delay']);
if (!(hostDelayMs >= 0)) usage('--host-delay debe ser un número de milisegundos.');

let archive: Archive;
try {
  archive = await openArchive();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes('está en uso')) {
    console.error(
      `${message}\nLa base de datos embebida (PGlite) admite un solo proceso: detenga \`npm start\` y vuelva a cosechar, ` +
        'o use un servidor PostgreSQL (DATABASE_URL). Cosechar junto a un servidor en marcha sobre PGlite llegará en un paso posterior.',
    );
  } else {
    console.error(`No se pudo abrir el archivo: ${message}`);
  }
  process.exit(1);
}

const { db, config } = archive;
const stop = new AbortController();
process.once('SIGINT', () => {
  console.log('\nInterrumpido: se detiene la cosecha; las capturas pendientes quedan en la cola.');
  stop.abort();
});

const { harvestSource, created } = await registerHarvestSource(db, { url, kind, name: values['source-name'] });
console.log(
  created
    ? `Fuente de cosecha registrada: «${harvestSource.name}» (${CATALOG_KINDS[harvestSource.kind].label}).`
    : `Fuente de cosecha ya registrada: «${harvestSource.name}» (${CATALOG_KINDS[harvestSource.kind].label}).`,
);

// The captures start while the catalogue is still being read.
const worker = runWorker({
  db,
  handlers: {
    [CAPTURE_JOB]: captureHandler({
      store: archive.store,
      staging: archive.staging,
      pinning: archive.pinning,
      allowPrivate: config.captureAllowPrivate,
      maxBytes: config.captureMaxBytes,
    }),
  },
  signal: stop.signal,
  concurrency: 4,
  perHostDelayMs: hostDelayMs,
});

let exitCode = 0;
try {
  console.log(`Leyendo el catálogo ${harvestSource.url}…`);
  const report = await runHarvest(db, harvestSource.id, {
    fetchPage: catalogPageFetcher({ allowPrivate: config.captureAllowPrivate, signal: stop.signal }),
    signal: stop.signal,
  });
  const { counts } = report;
  console.log(
    `Cosecha ${report.status === 'done' ? 'terminada' : 'fallida'} (importación ${report.importId}): ` +
      `${counts.new} nuevo(s), ${counts.updated} actualizado(s), ${counts.unchanged} sin cambios, ` +
      `${counts.withdrawn} retirado(s) del catálogo, ${counts.failed} con error.`,
  );
  for (const error of report.errors) console.log(`  · ${error.key}: ${error.message}`);
  if (report.status === 'failed') exitCode = 1;

  const ofThisRun = like(jobs.dedupeKey, `capture:${report.importId}:%`);
  const tally = async (status: 'queued' | 'running' | 'done' | 'failed') =>
    (await db.select({ n: count() }).from(jobs).where(and(ofThisRun, eq(jobs.status, status))))[0]!.n;
  const deadline = Date.now() + timeoutMinutes * 60_000;
  let last = '';
  for (;;) {
    const [queued, running, done, failed] = await Promise.all([tally('queued'), tally('running'), tally('done'), tally('failed')]);
    const line = `Capturas: ${done} hecha(s), ${failed} fallida(s), ${running} en curso, ${queued} en cola.`;
    if (line !== last) console.log(line);
    last = line;
    if (queued + running === 0 || stop.signal.aborted) break;
    if (Date.now() > deadline) {
      console.log(`Se agotó el tiempo (${timeoutMinutes} min): las capturas que faltan siguen en la cola.`);
      break;
    }
    await sleep(1000);
  }
} finally {
  stop.abort();
  await worker;
  await archive.close();
}
process.exit(exitCode);
