/**
 * `npm run harvest -- <url> [--kind ckan|dcat|datajson] [--source-name "..."] [--language es] [--country DOM]`: harvests one
 * public catalogue now. It registers the harvest source (and our `source` for it) if new, queues a
 * run in the database (`queueHarvestRun`: the job queue's `harvest` job), and prints the run's
 * progress and then its captures' until they end (or `--timeout` minutes pass), in Spanish. Exits
 * with 1 when the run failed, 2 on a usage error or a source that is never run (the seed's snapshot).
 *
 * It works through the database, whatever else is running:
 * - with `DATABASE_URL`, on that PostgreSQL, beside any number of servers;
 * - on the embedded database while `npm start` serves it: it connects to the socket the server's
 *   database process serves (`db/embedded-address.ts`), where sessions take turns between
 *   transactions (`db/pglite-socket.ts`);
 * - on the embedded database with nothing running: it opens the folder itself.
 * With no server up on the database, it runs a worker of the queue itself (the same handlers as the
 * server's, without the schedule), so the run happens anyway. With servers up, they do the work:
 * the files a capture keeps go to the block store of whoever captures them, and this process's
 * settings (a bucket, a folder) need not be theirs, so its captures would land where no server
 * reads them. `--worker` makes it work beside them, for an operator who gives it their settings;
 * the queue never runs a job twice. It is polite to the portal: `ARCHIVE_CAPTURE_HOST_CONCURRENCY`
 * requests at once per host, and `--host-delay` ms (1 s) between two of them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, desc, eq, like } from 'drizzle-orm';
import { startBackgroundWork } from '../src/lib/server/background.ts';
import { openArchiveForCommand, parseCommandArgs, reportLostDatabase, withHostDelay } from '../src/lib/server/commands.ts';
import { readConfigOrExit } from '../src/lib/server/config.ts';
import { imports, jobs, type HarvestCounts } from '../src/lib/server/db/schema.ts';
import { countryIri, languageName, placeName } from '../src/lib/server/dcat/vocabularies.ts';
import { cleanLanguage } from '../src/lib/server/harvest/catalogs/values.ts';
import { CATALOG_KINDS, type CatalogKind } from '../src/lib/server/harvest/catalogs/index.ts';
import { documentsRead, emptyCounts, queueHarvestRun, registerHarvestSource, registrationRules, RUN_ERROR_KEY } from '../src/lib/server/harvest/index.ts';
import { CATALOGUE_CREDENTIALS_MESSAGE, updateHarvestSource } from '../src/lib/server/harvest/manage.ts';
import { HttpError, ValidationError } from '../src/lib/server/http/errors.ts';
import { liveInstanceCount, liveWorkerCount } from '../src/lib/server/instances/index.ts';

const USAGE =
  'Uso: npm run harvest -- <url del catálogo> [--kind ckan|dcat|datajson] [--source-name "Nombre"] [--language es] [--country DOM] [--timeout minutos] [--host-delay ms] [--worker]';
const HELP = `${USAGE}

Registra el catálogo como fuente de cosecha si es nueva, pone una cosecha en la cola de trabajos y
muestra su avance y el de sus capturas, funcione o no un servidor (npm start) a la vez.
  --kind          ckan (la API de acciones, package_search), dcat (DCAT-AP en JSON-LD, Turtle o RDF/XML)
                  o datajson (DCAT-US 1.1); sin él se adivina por la URL.
  --source-name   el nombre de la fuente nueva (por omisión, el del servidor).
  --language      el idioma de los datos (un código como es) de los conjuntos que no declaran el suyo.
  --country       el país que cubren (un código ISO de tres letras como DOM) los conjuntos que no
                  declaran su cobertura geográfica. Ambos quedan en los ajustes de la fuente.
  --timeout       minutos de espera antes de dejar el resto en la cola (60).
  --host-delay    milisegundos entre dos peticiones a un mismo servidor (ARCHIVE_CAPTURE_HOST_DELAY_MS).
  --worker        trabajar también desde esta orden aunque haya servidores en marcha sobre la base
                  (por omisión, ellos cosechan y capturan, cada uno con su almacén de bloques): dele
                  entonces la misma configuración de almacén que a ellos (ARCHIVE_BLOCKSTORE, ARCHIVE_S3_*).
Devuelve 0 si la cosecha termina (aunque falle alguna captura: lo dice al final), 1 si falla, se interrumpe o se agota el tiempo, 2 si la orden no es válida.`;

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

const { values, positionals } = parseCommandArgs(
  {
    kind: { type: 'string' },
    'source-name': { type: 'string' },
    language: { type: 'string' },
    country: { type: 'string' },
    timeout: { type: 'string', default: '60' },
    'host-delay': { type: 'string' },
    worker: { type: 'boolean', default: false },
  },
  usage,
  HELP,
);
const url = positionals[0];
if (!url || positionals.length > 1) usage('Indique una sola URL de catálogo.');
if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) usage(`«${url}» no es una URL http(s).`);
// The page's and the REST API's refusal (`manage.ts`).
if (new URL(url).username || new URL(url).password) usage(CATALOGUE_CREDENTIALS_MESSAGE);
const kind = (values.kind ?? guessKind(url)) as CatalogKind;
if (!Object.hasOwn(CATALOG_KINDS, kind)) usage(`Tipo de catálogo desconocido: «${values.kind}».`);
const defaultLanguage = values.language === undefined ? undefined : cleanLanguage(values.language);
if (defaultLanguage === null) usage(`Idioma desconocido: «${values.language}». Use un código como «es».`);
const defaultCountry = values.country === undefined ? undefined : countryIri(values.country);
if (defaultCountry === null) usage(`País desconocido: «${values.country}». Use un código ISO de tres letras como «DOM».`);
const timeoutMinutes = Number(values.timeout);
if (!(timeoutMinutes > 0)) usage('--timeout debe ser un número de minutos mayor que cero.');

const config = withHostDelay(readConfigOrExit(), values['host-delay'], usage);
const archive = await openArchiveForCommand(config, 'la cosecha');
const { db } = archive;
const stop = new AbortController();
/** Who does the work, as decided below once the servers up are counted: unknown until then. */
let worker: 'unknown' | 'alone' | 'servers' | 'helping' = 'unknown';
/** What an interruption leaves to whom, by who was doing the work. */
const FINISHED_BY = {
  unknown: 'un servidor con el trabajador las terminará',
  alone: 'las terminará un servidor (npm start) o esta misma orden repetida',
  servers: 'los servidores en marcha las terminarán',
  helping: 'los servidores en marcha las terminarán',
} as const;
process.once('SIGINT', () => {
  console.log(`\nInterrumpido: la cosecha y sus capturas siguen en la cola; ${FINISHED_BY[worker]}.`);
  stop.abort();
});

// A catalogue new to the archive at an address it will never fetch, or the archive's own, is refused, as on the page.
const { harvestSource, created } = await registerHarvestSource(db, { url, kind, name: values['source-name'], rules: registrationRules(config) }).catch(
  async (error: unknown) => {
    if (!(error instanceof ValidationError)) throw error;
    await archive.close();
    return usage(error.message);
  },
);
console.log(
  created
    ? `Fuente de cosecha registrada: «${harvestSource.name}» (${CATALOG_KINDS[harvestSource.kind].label}).`
    : `Fuente de cosecha ya registrada: «${harvestSource.name}» (${CATALOG_KINDS[harvestSource.kind].label}).`,
);
// A registered source keeps its name: another one given here is not taken silently for applied.
const askedName = values['source-name']?.trim();
if (!created && askedName && askedName !== harvestSource.name) {
  console.log(`El nombre «${askedName}» no se aplica a una fuente ya registrada: cámbielo en /moderacion/cosechas o con PATCH /v2/ops/harvest-sources/${harvestSource.id}.`);
}
// Nor is another kind: the kind of a registered catalogue is part of what it is.
if (!created && values.kind !== undefined && values.kind !== harvestSource.kind) {
  console.log(
    `--kind ${values.kind} no se aplica: esa dirección ya está registrada como ${CATALOG_KINDS[harvestSource.kind].label}, y se cosecha así. ` +
      'Otro tipo de catálogo es otra fuente: regístrelo con su propia dirección.',
  );
}
// Into the source's settings, as the page saves them, before the run is queued: it reads them
// when it begins. (Not for the seed's copy of a catalogue, which the queue refuses just below.)
if ((defaultLanguage !== undefined || defaultCountry !== undefined) && harvestSource.snapshotOn === null) {
  await updateHarvestSource(db, harvestSource.id, { defaultLanguage: values.language, defaultCountry: values.country }, registrationRules(config));
  const said = [defaultLanguage && `idioma ${languageName(defaultLanguage)}`, defaultCountry && `país ${placeName(defaultCountry).name}`].filter(Boolean).join(', ');
  // Said as a change only when it is one: the same values again leave the source as it was.
  const changed = (defaultLanguage !== undefined && defaultLanguage !== harvestSource.defaultLanguage) || (defaultCountry !== undefined && defaultCountry !== harvestSource.defaultCountry);
  console.log(`${!created && changed ? 'Ajustes de la fuente cambiados. ' : ''}Los conjuntos que no declaran los suyos tendrán: ${said}.`);
}
const queued = await queueHarvestRun(db, harvestSource.id, 'npm run harvest').catch(async (error: unknown) => {
  // A refusal meant for people (the seed's snapshot is never run again): its message, not a stack.
  if (!(error instanceof HttpError)) throw error;
  console.error(error.message);
  await archive.close();
  process.exit(2);
});
console.log(queued.created ? `Cosecha en cola (trabajo ${queued.job.id}).` : `Ya había una cosecha de esta fuente en cola o en curso (trabajo ${queued.job.id}): se sigue esa.`);

// Not itself: this process marks itself a worker only once it starts one, below.
const workers = await liveWorkerCount(db);
const work = workers === 0 || values.worker ? startBackgroundWork(archive, { schedule: false }) : null;
worker = work === null ? 'servers' : workers === 0 ? 'alone' : 'helping';
if (!work) {
  console.log(
    `Hay ${workers} servidor(es) con el trabajador en marcha sobre esta base: ellos cosechan y capturan, con su almacén de bloques. ` +
      'Si están ocupados y quiere ayudarles, repita con --worker y la configuración de almacén de los servidores.',
  );
  // The pause between two requests to a site is each worker's own setting: the servers keep theirs.
  if (values['host-delay'] !== undefined) {
    console.log('--host-delay solo vale para el trabajador de esta orden: los servidores capturan con su propia pausa (ARCHIVE_CAPTURE_HOST_DELAY_MS).');
  }
} else if (!values.worker && (await liveInstanceCount(db)) > 1) {
  // Servers up without the worker (ARCHIVE_WORKER=false): the work is this command's, and its
  // files go where its configuration says, which must be the servers' block store.
  console.log('Ningún servidor en marcha sobre esta base tiene el trabajador: esta orden cosecha y captura, en el almacén de bloques de su configuración (el mismo que el de los servidores).');
}
const deadline = Date.now() + timeoutMinutes * 60_000;
let exitCode = 0;

/**
 * How long a run left to the servers may wait, untaken, before the command says why that may be:
 * 30 s, or half of `--timeout` when that is shorter, so that the reason comes before the command gives up.
 */
const UNCLAIMED_HINT_MS = Math.min(30_000, (timeoutMinutes * 60_000) / 2);

const RUN_STATUS: Record<string, string> = { in_progress: 'en curso', done: 'terminada', failed: 'fallida' };

const describeCounts = (counts: HarvestCounts) =>
  `${counts.new} nuevo(s), ${counts.updated} actualizado(s), ${counts.unchanged} sin cambios, ` +
  `${counts.withdrawn} retirado(s) del catálogo, ${counts.failed} con error.`;

/** Follows the run: its Import's progress until the job ends. Returns the last Import, if any. */
async function followRun(): Promise<typeof imports.$inferSelect | undefined> {
  let last = '';
  const hintAt = Date.now() + UNCLAIMED_HINT_MS;
  let hinted = false;
  for (;;) {
    const [job] = await db.select().from(jobs).where(eq(jobs.id, queued.job.id));
    const [run] = await db.select().from(imports).where(eq(imports.jobId, queued.job.id)).orderBy(desc(imports.id)).limit(1);
    const line = run
      ? `Importación ${run.id}: ${RUN_STATUS[run.status]}, ${documentsRead(run.harvestCounts ?? emptyCounts())} documento(s) leído(s).`
      : `Cosecha ${job?.status === 'running' ? 'empezando' : 'en cola'}…`;
    if (line !== last) console.log(line);
    last = line;
    const ended = job && (job.status === 'done' || job.status === 'failed');
    if (ended && (!run || run.status !== 'in_progress')) {
      if (job.status === 'failed' && job.lastError) console.log(`El trabajo de la cosecha falló: ${job.lastError}`);
      return run;
    }
    if (stop.signal.aborted || Date.now() > deadline) return undefined;
    // Left to the servers, and none has taken it: perhaps none runs the worker.
    if (!work && !hinted && job?.status === 'queued' && Date.now() > hintAt) {
      hinted = true;
      console.log('Ningún servidor ha tomado la cosecha todavía: si ninguno tiene el trabajador (ARCHIVE_WORKER=false), interrumpa y repita con --worker.');
    }
    await sleep(500);
  }
}

try {
  const run = await followRun();
  if (!run || run.status === 'in_progress') {
    if (!stop.signal.aborted) console.log(`Se agotó el tiempo (${timeoutMinutes} min): la cosecha sigue en la cola.`);
    exitCode = 1;
  } else {
    const counts = run.harvestCounts ?? emptyCounts();
    console.log(`Cosecha ${run.status === 'done' ? 'terminada' : 'fallida'} (importación ${run.id}): ${describeCounts(counts)}`);
    for (const error of run.errors) console.log(`  · ${error.key === RUN_ERROR_KEY ? 'catálogo' : error.key}: ${error.message}`);
    if (run.status !== 'done') exitCode = 1;
    // A catalogue new to the archive that could not be read (a mistyped address): its source stays
    // registered and scheduled until someone removes it, which is done in a moment while it has no record.
    if (run.status === 'failed' && created) {
      console.log(
        `La fuente «${harvestSource.name}» queda registrada y se intentará de nuevo según su frecuencia. Si la dirección estaba mal, elimínela en ` +
          `/moderacion/cosechas?fuente=${harvestSource.id} o con DELETE /v2/ops/harvest-sources/${harvestSource.id}.`,
      );
    }

    const ofThisRun = like(jobs.dedupeKey, `capture:${run.id}:%`);
    const tally = async (status?: 'queued' | 'running' | 'failed') =>
      (await db.select({ n: count() }).from(jobs).where(and(ofThisRun, status ? eq(jobs.status, status) : undefined)))[0]!.n;
    // The run has ended: its captures are all queued. Done ones are what is left of them, counted
    // from this first look, as the server deletes done jobs after a few days (`jobs/prune.ts`).
    const queuedByRun = await tally();
    let last = '';
    for (;;) {
      const [waiting, running, failed] = await Promise.all([tally('queued'), tally('running'), tally('failed')]);
      const done = queuedByRun - waiting - running - failed;
      const line = `Capturas: ${done} hecha(s), ${failed} fallida(s), ${running} en curso, ${waiting} en cola.`;
      if (line !== last) console.log(line);
      last = line;
      if (waiting + running === 0 || stop.signal.aborted) {
        if (failed > 0) {
          console.log(`${failed} captura(s) fallaron; sus motivos, y el botón para reintentarlas, están en /moderacion/cosechas?fuente=${harvestSource.id}.`);
        }
        // Interrupted with captures left: not the harvest a script or a cron job may count as done.
        if (waiting + running > 0) exitCode = 1;
        break;
      }
      if (Date.now() > deadline) {
        console.log(`Se agotó el tiempo (${timeoutMinutes} min): las capturas que faltan siguen en la cola.`);
        exitCode = 1;
        break;
      }
      await sleep(500);
    }
  }
} catch (error) {
  if (!reportLostDatabase(error, 'La cosecha y sus capturas')) throw error;
  exitCode = 1;
} finally {
  stop.abort();
  await work?.stop();
  await archive.close();
}
process.exit(exitCode);
