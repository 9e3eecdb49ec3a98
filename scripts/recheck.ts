/**
 * `npm run recheck [-- <record id | URL> ...]`: checks captured URLs now instead of waiting for
 * their turn (issue #19), for operators and tests. With no argument, every watched record; a URL
 * names the records captured from it. The checks go through the database and the job queue like
 * `npm run harvest` (and beside a running `npm start`, on PGlite too), with the same politeness,
 * and the command runs a worker itself so they happen whether or not a server is up. It prints
 * what each check found: unchanged, a new version, a failure, a disappearance. Exits with 1 when
 * a check could not be made, 2 on a usage error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { and, desc, eq, inArray, like, or, sql } from 'drizzle-orm';
import { startBackgroundWork } from '../src/lib/server/background.ts';
import { openArchiveForCommand, parseCommandArgs, reportLostDatabase, withHostDelay } from '../src/lib/server/commands.ts';
import { readConfigOrExit } from '../src/lib/server/config.ts';
import { alexandrias, captures, harvestedRecords, jobs, recordVersions } from '../src/lib/server/db/schema.ts';
import { makeDueNow, queueDueRechecks } from '../src/lib/server/harvest/watch.ts';
import { formatDate } from '../src/lib/format.ts';

/** Records per statement: well under PostgreSQL's 65,535 parameters. */
const BATCH = 5_000;

const USAGE = 'Uso: npm run recheck [-- <id de registro | URL> ...] [--timeout minutos] [--host-delay ms]';
const HELP = `${USAGE}

Vuelve a pedir ahora a su origen los archivos capturados (los indicados por id de registro o URL, o
todos los vigilados), guarda una versión nueva si cambiaron y anota los que desaparecieron.
  --timeout       minutos de espera antes de dejar el resto en la cola (30).
  --host-delay    milisegundos entre dos peticiones a un mismo servidor (ARCHIVE_CAPTURE_HOST_DELAY_MS).`;

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values, positionals } = parseCommandArgs({ timeout: { type: 'string', default: '30' }, 'host-delay': { type: 'string' } }, usage, HELP);
const timeoutMinutes = Number(values.timeout);
if (!(timeoutMinutes > 0)) usage('--timeout debe ser un número de minutos mayor que cero.');
const ids = positionals.filter((value) => /^\d+$/.test(value)).map(Number);
const urls = positionals.filter((value) => !/^\d+$/.test(value));
for (const url of urls) if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) usage(`«${url}» no es un id de registro ni una URL http(s).`);

const config = withHostDelay(readConfigOrExit(), values['host-delay'], usage);
const archive = await openArchiveForCommand(config, 'la comprobación');
const { db } = archive;
// Its own worker fetches, under this command's settings, not the server's (QA: a check of a
// portal on 127.0.0.1 failed as a private address, and the failure showed on the record's page).
console.log('Esta orden pide los archivos ella misma, con su propia configuración: dele las mismas variables de entorno que al servidor (ARCHIVE_CAPTURE_ALLOW_PRIVATE, ARCHIVE_CAPTURE_HOST_DELAY_MS…).');

let exitCode = 0;
let work: ReturnType<typeof startBackgroundWork> | undefined;
try {
  // The records asked for: by id, and by the URL their file was captured from.
  let targets: number[] | undefined;
  if (positionals.length > 0) {
    const byUrl = urls.length
      ? await db
          .select({ id: harvestedRecords.alexandriaId })
          .from(harvestedRecords)
          .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
          .where(or(inArray(harvestedRecords.distributionUrl, urls.map((url) => new URL(url).href)), inArray(alexandrias.originalUrl, urls)))
      : [];
    targets = [...new Set([...ids, ...byUrl.map((row) => row.id)])];
  }
  const due = await makeDueNow(db, { alexandriaIds: targets });
  if (targets) {
    const missing = targets.filter((id) => !due.includes(id));
    for (const id of missing) console.log(`Registro ${id}: no es un archivo capturado de un catálogo con dirección que comprobar.`);
    if (missing.length > 0) exitCode = 1;
  }
  if (due.length === 0) {
    console.log('Nada que comprobar.');
  } else {
    const before = await snapshot(due);
    // By the database's clock: the checks queued from here on are this command's.
    const since = await db.execute(sql`select now() as at`);
    const queuedSince = (since as unknown as { rows: Array<{ at: Date | string }> }).rows[0]!.at;
    const queued = await queueDueRechecks(db, due.length);
    console.log(`Comprobando ${due.length} dirección(es) (${queued} en cola)…`);
    work = startBackgroundWork(archive, { schedule: false });
    const deadline = Date.now() + timeoutMinutes * 60_000;
    for (;;) {
      // The checks this command queued (made since it began), however many.
      const [left] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(jobs)
        .where(and(like(jobs.dedupeKey, 'recheck:%'), inArray(jobs.status, ['queued', 'running']), sql`${jobs.createdAt} >= ${queuedSince}`));
      if (Number(left!.n) === 0) break;
      if (Date.now() > deadline) {
        console.log(`Se agotó el tiempo (${timeoutMinutes} min): las comprobaciones que faltan siguen en la cola.`);
        exitCode = 1;
        break;
      }
      await sleep(500);
    }
    const after = await snapshot(due);
    for (const id of due) {
      const line = describe(id, before.get(id), after.get(id));
      console.log(line.text);
      if (line.failed) exitCode = 1;
    }
  }
} catch (error) {
  if (!reportLostDatabase(error, 'Las comprobaciones')) throw error;
  exitCode = 1;
} finally {
  await work?.stop();
  await archive.close();
}
process.exit(exitCode);

interface State {
  versions: number;
  goneSince: Date | null;
  lastCheck: { status: number | null; errorReason: string | null; capturedAt: Date } | null;
}

/** Each record's versions, disappearance and last check. */
async function snapshot(records: number[]): Promise<Map<number, State>> {
  const state = new Map<number, State>();
  for (let start = 0; start < records.length; start += BATCH) {
    for (const [id, entry] of await snapshotOf(records.slice(start, start + BATCH))) state.set(id, entry);
  }
  return state;
}

async function snapshotOf(records: number[]): Promise<Map<number, State>> {
  const state = new Map<number, State>();
  const watched = await db
    .select({ id: harvestedRecords.alexandriaId, goneSince: harvestedRecords.goneSince })
    .from(harvestedRecords)
    .where(inArray(harvestedRecords.alexandriaId, records));
  const versionCounts = await db
    .select({ id: recordVersions.alexandriaId, n: sql<number>`count(*)::int` })
    .from(recordVersions)
    .where(inArray(recordVersions.alexandriaId, records))
    .groupBy(recordVersions.alexandriaId);
  const versionsOf = new Map(versionCounts.map((row) => [row.id, Number(row.n)]));
  for (const row of watched) state.set(row.id, { versions: versionsOf.get(row.id) ?? 0, goneSince: row.goneSince, lastCheck: null });
  const checks = await db
    .selectDistinctOn([captures.alexandriaId], { id: captures.alexandriaId, status: captures.status, errorReason: captures.errorReason, capturedAt: captures.capturedAt })
    .from(captures)
    .where(inArray(captures.alexandriaId, records))
    .orderBy(captures.alexandriaId, desc(captures.capturedAt), desc(captures.id));
  for (const check of checks) {
    const entry = state.get(check.id);
    if (entry) entry.lastCheck = { status: check.status, errorReason: check.errorReason, capturedAt: check.capturedAt };
  }
  return state;
}

/** What one record's check found, in a line of Spanish. */
function describe(id: number, before: State | undefined, after: State | undefined): { text: string; failed: boolean } {
  const check = after?.lastCheck;
  if (!before || !after || !check || (before.lastCheck && check.capturedAt.getTime() === before.lastCheck.capturedAt.getTime())) {
    return { text: `Registro ${id}: no se llegó a comprobar.`, failed: true };
  }
  if (after.versions > before.versions) return { text: `Registro ${id}: nueva versión (v${after.versions}) capturada (HTTP ${check.status}).`, failed: false };
  if (after.goneSince) return { text: `Registro ${id}: desaparecido en origen desde el ${formatDate(after.goneSince)} (${check.errorReason ?? 'sin respuesta'}).`, failed: false };
  if (check.errorReason) return { text: `Registro ${id}: la comprobación falló: ${check.errorReason}.`, failed: check.status === null || check.status >= 500 };
  if (before.goneSince) return { text: `Registro ${id}: de nuevo disponible en el origen, sin cambios (HTTP ${check.status}).`, failed: false };
  return { text: `Registro ${id}: sin cambios (HTTP ${check.status}).`, failed: false };
}
