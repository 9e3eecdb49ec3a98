/**
 * Crash in the middle of a harvest (issue #18) on PostgreSQL: the built server harvests a local
 * CKAN portal of a few hundred datasets (tests/helpers/portal, generated from the real sample)
 * that answers slowly, and is killed with SIGKILL once the run has written records and captures
 * are streaming files in; then it is restarted on the same database and data folder.
 *
 * The queue must finish the work by itself: the run's job, its lease expired, is taken back and
 * run again, which closes the dead attempt's Import as failed and completes a new run; the
 * captures cut short are run again the same way. Afterwards: one record per (source, dataset,
 * distribution), every record's file whole and byte for byte the portal's, every capture
 * consistent with its record, no job left running, the runs' counts matching what they wrote,
 * the integrity check (support/integrity.ts) clean, and a second full run finding everything
 * unchanged and queueing nothing.
 *
 * The job lease (60 s) is not configurable, so the test waits for it: about a minute and a half
 * from the kill to the retried run.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { openDatabase } from '../../src/lib/server/db/index.ts';
import { queueHarvestRun, registerHarvestSource } from '../../src/lib/server/harvest/index.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';
import { checkIntegrity } from './support/integrity.ts';
import { createDatabase, queryRows } from './support/postgres.ts';
import { startServer, ServerLog, type RunningServer } from './support/server.ts';
import { PORTS, WORK_DIR } from './support/settings.ts';
import { until } from './support/wait.ts';

/** Datasets in the portal's catalogue: three CKAN pages of 100 (the reader's page size), 4.4 files each on average. */
const DATASETS = 220;
/**
 * Before the kill: each catalogue page answers after this wait and each file drips in over
 * `FILE_MS`, so the run is still reading its catalogue while the first page's captures stream.
 */
const CATALOGUE_MS = 6000;
const FILE_MS = 3000;

let server: RunningServer;
let portal: LocalPortal;
let database: { url: string; drop(): Promise<void> };
const dataDir = path.join(WORK_DIR, 'harvest-crash-data');
const log = new ServerLog(path.join(WORK_DIR, 'harvest-crash.log'));
const env = {
  ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true',
  ARCHIVE_CAPTURE_HOST_DELAY_MS: '10',
  ARCHIVE_CAPTURE_HOST_CONCURRENCY: '4',
};
/**
 * The restarted server asks the portal without a pause between starts: with any pause, the
 * worker starts one job per host per claim and then waits for a job to end or a second to pass,
 * about 7 captures a second here (35 without), and the ~500 captures left would take the test
 * past its bound.
 */
const RESTART_ENV = { ARCHIVE_CAPTURE_HOST_DELAY_MS: '0' };
const start = (more: Record<string, string> = {}) =>
  startServer({ name: 'harvest-crash', port: PORTS.harvestCrash, databaseUrl: database.url, dataDir, env: { ...env, ...more } }, log);

beforeAll(async () => {
  portal = await startLocalPortal({ datasets: DATASETS, slow: { catalogueMs: CATALOGUE_MS, fileMs: FILE_MS } });
  database = await createDatabase(inject('postgresUrl'), 'harvest_crash');
  server = await start();
});

afterAll(async () => {
  await server?.stop();
  await portal?.close();
  await database?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const query = <T>(sql: string, values: unknown[] = []) => queryRows<T>(database.url, sql, values);


/** Registers the portal as a harvest source and queues a run, as `npm run harvest` does: rows in the database. */
async function registerAndQueue(): Promise<{ harvestSourceId: number; jobId: number }> {
  const handle = await openDatabase({ url: database.url, poolMax: 1 });
  try {
    const { harvestSource } = await registerHarvestSource(handle.db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal local de la prueba de caída' });
    const { job } = await queueHarvestRun(handle.db, harvestSource.id, 'prueba de caída');
    return { harvestSourceId: harvestSource.id, jobId: job.id };
  } finally {
    await handle.close();
  }
}

async function queueRun(harvestSourceId: number): Promise<number> {
  const handle = await openDatabase({ url: database.url, poolMax: 1 });
  try {
    const { job, created } = await queueHarvestRun(handle.db, harvestSourceId, 'prueba de caída (segunda cosecha)');
    expect(created, 'no run of the source may still be queued or running').toBe(true);
    return job.id;
  } finally {
    await handle.close();
  }
}

interface RunRow {
  id: number;
  status: string;
  documents: number;
  jobId: number | null;
  counts: { new: number; updated: number; unchanged: number; withdrawn: number; failed: number } | null;
  errors: Array<{ key: string; message: string }> | null;
}

const runsOf = (harvestSourceId: number) =>
  query<RunRow>(
    `select id, status, documents, job_id as "jobId", harvest_counts as counts, errors from imports where harvest_source_id = $1 order by id`,
    [harvestSourceId],
  );

/** The queue as the test watches it: the harvest job, and every job of any kind (captures queue sheet previews). */
interface QueueState {
  harvest: string | null;
  queued: number;
  running: number;
  failed: number;
  capturing: number;
  captured: number;
  /** Running jobs whose lease ended more than 5 s ago (a live worker takes them back within 1 s). */
  stuck: number;
}

async function queueState(harvestJobId: number): Promise<QueueState> {
  const [row] = await query<QueueState>(
    `select (select status::text from jobs where id = $1) as harvest,
            count(*) filter (where status = 'queued')::int as queued,
            count(*) filter (where status = 'running')::int as running,
            count(*) filter (where status = 'failed')::int as failed,
            count(*) filter (where kind = 'capture' and status = 'running')::int as capturing,
            count(*) filter (where kind = 'capture' and status = 'done')::int as captured,
            count(*) filter (where status = 'running' and locked_until < now() - interval '5 seconds')::int as stuck
       from jobs`,
    [harvestJobId],
  );
  return row!;
}

/** Waits until the harvest job `jobId` is done and no job is queued or running; fails on a stuck job. */
async function untilSettled(jobId: number, timeoutMs: number): Promise<QueueState> {
  let state = await queueState(jobId);
  await until(
    `harvest job ${jobId} done and every job finished`,
    async () => {
      state = await queueState(jobId);
      if (state.stuck > 0) throw new Error(`${state.stuck} job(s) still running on an expired lease: ${JSON.stringify(state)}`);
      if (state.harvest === 'failed') throw new Error(`harvest job ${jobId} failed: ${JSON.stringify(state)}`);
      return state.harvest === 'done' && state.queued === 0 && state.running === 0;
    },
    timeoutMs,
    500,
  );
  return state;
}

test('SIGKILL in the middle of a harvest on PostgreSQL: the queue finishes it, with no duplicate and no partial file', async () => {
  const distributions = portal.packages.reduce((sum, pkg) => sum + pkg.resources.length, 0);
  const { harvestSourceId, jobId } = await registerAndQueue();

  // 1. Until the run has written records and captures are streaming, some already kept.
  let atKill: QueueState | undefined;
  await until(
    'the run to write records while captures stream',
    async () => {
      const [run] = await runsOf(harvestSourceId);
      if (run && run.status !== 'in_progress') throw new Error(`the run ended before the kill (${run.status}): make the portal slower`);
      atKill = await queueState(jobId);
      return (run?.documents ?? 0) > 0 && atKill.capturing >= 2 && atKill.captured >= 1;
    },
    60_000,
  );
  const [killedRun] = await runsOf(harvestSourceId);
  const stagedAtKill = (await fs.readdir(path.join(dataDir, 'staging')).catch(() => [])).length;
  const killedAt = log.mark;
  await server.kill();
  const killedAtMs = Date.now();
  const [{ now: killedAtDb } = { now: new Date() }] = await query<{ now: Date }>('select now()');
  console.log(
    `Caída: cosecha ${killedRun!.id} con ${killedRun!.documents} de ${distributions} documentos, capturas ` +
      `${atKill!.captured} hechas y ${atKill!.capturing} en curso, ${atKill!.queued} trabajos en cola; ${stagedAtKill} carpetas en espera al caer.`,
  );

  // 2. Restart on the same database and data folder, the portal fast again.
  portal.slow.catalogueMs = 0;
  portal.slow.fileMs = 0;
  server = await start(RESTART_ENV);
  const settled = await untilSettled(jobId, 200_000);
  console.log(`Recuperada en ${((Date.now() - killedAtMs) / 1000).toFixed(0)} s tras la caída: ${JSON.stringify(settled)}`);

  // 3. The killed run ended failed; the same job ran again and completed a new run.
  const runs = await runsOf(harvestSourceId);
  const dead = runs.find((run) => run.id === killedRun!.id)!;
  expect(dead.status, `the killed run: ${JSON.stringify(dead)}`).toBe('failed');
  expect(dead.errors?.map((error) => error.message).join(' ')).toMatch(/interrumpida/);
  const retried = runs.filter((run) => run.id > dead.id);
  expect(retried.map((run) => [run.status, run.jobId]), 'one new run, by the same job, done').toEqual([['done', jobId]]);
  const recovery = retried[0]!;
  expect(recovery.counts, `counts of run ${recovery.id}`).toMatchObject({ updated: 0, withdrawn: 0, failed: 0 });
  expect(recovery.counts!.new + recovery.counts!.unchanged, 'the new run saw every distribution once').toBe(distributions);
  // Imported by the new run: those the killed one had not written.
  expect(recovery.documents).toBe(recovery.counts!.new);
  const [timeline] = await query<{ rerunAfterS: number; capturesAfter: number; firstCaptureAfterS: number; lastCaptureAfterS: number }>(
    `select extract(epoch from (select created_at from imports where id = $2) - $1)::float8 as "rerunAfterS",
            (select count(*)::int from captures where captured_at > $1) as "capturesAfter",
            extract(epoch from (select min(captured_at) from captures where captured_at > $1) - $1)::float8 as "firstCaptureAfterS",
            extract(epoch from (select max(captured_at) from captures where captured_at > $1) - $1)::float8 as "lastCaptureAfterS"`,
    [killedAtDb, recovery.id],
  );
  console.log(`Tras la caída (s): ${JSON.stringify(timeline)}`);
  const lastJobs = await query<Record<string, unknown>>(
    `select id, kind, attempts, round(extract(epoch from started_at - $1)::numeric, 1)::float8 as "startedS",
            round(extract(epoch from finished_at - $1)::numeric, 1)::float8 as "finishedS", last_error as "lastError"
       from jobs order by finished_at desc nulls first limit 4`,
    [killedAtDb],
  );
  console.log(`Últimos trabajos en terminar (s tras la caída): ${JSON.stringify(lastJobs)}`);

  // 4. One record per distribution, each with its file, byte for byte the portal's.
  const records = await query<{ alexandriaId: number; dataset: string; distribution: string; cid: string | null; sha: string | null; size: number | null; status: string }>(
    `select h.alexandria_id as "alexandriaId", h.dataset_identifier as dataset, h.distribution_key as distribution,
            a.cid, a.file_sha256 as sha, a.file_size::float8 as size, a.status::text as status
       from harvested_records h join alexandrias a on a.id = h.alexandria_id where h.harvest_source_id = $1`,
    [harvestSourceId],
  );
  expect(records.length, 'harvested records').toBe(distributions);
  expect(new Set(records.map((row) => `${row.dataset}/${row.distribution}`)).size, 'distinct identities').toBe(distributions);
  const [{ n: sourceRecords } = { n: -1 }] = await query<{ n: number }>(
    `select count(*)::int as n from alexandrias where source_id = (select source_id from harvest_sources where id = $1)`,
    [harvestSourceId],
  );
  expect(sourceRecords, 'records of the source, harvested or not').toBe(distributions);
  const wrong = records.filter((row) => {
    const file = portal.files.get(row.distribution);
    return !file || row.cid === null || row.sha !== file.sha256 || row.size !== file.size;
  });
  expect(wrong.slice(0, 5), `${wrong.length} record(s) without their portal file`).toEqual([]);
  expect(records.filter((row) => row.status !== 'on_line').length, 'records still waiting for their file').toBe(0);

  // 5. Every capture finished; a capture that kept a file once per record, its failures none.
  const [captureFacts] = await query<{ kept: number; failedRows: number; twice: number; failedJobs: number }>(
    `select (select count(*)::int from captures where cid is not null) as kept,
            (select count(*)::int from captures where error_reason is not null) as "failedRows",
            (select count(*)::int from (select alexandria_id from captures where cid is not null group by 1 having count(*) > 1) t) as twice,
            (select count(*)::int from jobs where kind = 'capture' and status = 'failed') as "failedJobs"`,
  );
  const byKind = await query<{ kind: string; status: string; n: number }>(`select kind, status::text, count(*)::int as n from jobs group by 1, 2 order by 1, 2`);
  console.log(`Capturas: ${JSON.stringify(captureFacts)}; trabajos: ${byKind.map((row) => `${row.kind} ${row.status} ${row.n}`).join(', ')}`);
  expect(captureFacts!.failedJobs, 'capture jobs failed').toBe(0);
  expect(captureFacts!.failedRows, 'captures recorded as failed').toBe(0);

  // 6. The integrity check, the harvest's tables included.
  const integrity = await checkIntegrity(server.origin, database.url, dataDir);
  console.log(`Integridad tras la recuperación: ${JSON.stringify(integrity.facts)}`);
  const restartLog = log.errorsSince(killedAt).slice(0, 10);
  expect(integrity.problems, `integrity problems; server errors since the kill: ${restartLog.join(' | ')}`).toEqual([]);

  // 7. A second full run: everything unchanged, nothing withdrawn, no capture queued.
  const capturesBefore = (await query<{ n: number }>(`select count(*)::int as n from jobs where kind = 'capture'`))[0]!.n;
  const secondJob = await queueRun(harvestSourceId);
  await untilSettled(secondJob, 60_000);
  const second = (await runsOf(harvestSourceId)).at(-1)!;
  expect(second.status, `second run ${JSON.stringify(second)}`).toBe('done');
  expect(second.counts).toEqual({ new: 0, updated: 0, unchanged: distributions, withdrawn: 0, failed: 0 });
  const capturesAfter = (await query<{ n: number }>(`select count(*)::int as n from jobs where kind = 'capture'`))[0]!.n;
  expect(capturesAfter, 'capture jobs queued by the second run').toBe(capturesBefore);
  const [{ n: afterSecond } = { n: -1 }] = await query<{ n: number }>(`select count(*)::int as n from harvested_records where harvest_source_id = $1`, [harvestSourceId]);
  expect(afterSecond).toBe(distributions);
  const final = await checkIntegrity(server.origin, database.url, dataDir);
  expect(final.problems, 'integrity after the second run').toEqual([]);
});
