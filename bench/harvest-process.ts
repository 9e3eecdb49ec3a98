/**
 * The process the harvest benchmark measures: it does what a server process of the archive does
 * for a harvest, with its code and settings, and nothing else. Started by `harvest.ts` with
 * SERVER_NODE_FLAGS, the environment of the archive's configuration (`ARCHIVE_DATA_DIR`,
 * `DATABASE_URL` of the embedded database's process as `npm start` passes it, or PostgreSQL's;
 * `ARCHIVE_CAPTURE_ALLOW_PRIVATE=true` for the portal on 127.0.0.1; per-host concurrency and delay)
 * and an IPC channel, over which it is sent `{ catalogUrl }` and answers:
 *
 * 1. `{ phase: 'opened' }` once `openArchive` returned;
 * 2. `{ phase: 'harvested' }` after `runHarvest` read the whole catalogue (the metadata figure);
 * 3. `{ phase: 'captured', figures }` once the queue's worker, with the handlers the server runs
 *    (`archiveJobHandlers`), has no capture left to do, or `maxSeconds` passed.
 *
 * Its own peak memory is VmHWM from /proc at each step: exact, whatever happened between two of
 * the parent's samples.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, count, eq, isNotNull, isNull, max, min, sql } from 'drizzle-orm';
import { openArchive } from '../src/lib/server/archive.ts';
import { archiveJobHandlers } from '../src/lib/server/background.ts';
import { readConfig } from '../src/lib/server/config.ts';
import { alexandrias, captures, jobs } from '../src/lib/server/db/schema.ts';
import { CAPTURE_JOB, catalogPageFetcher, registerHarvestSource, runHarvest, type HarvestRunReport } from '../src/lib/server/harvest/index.ts';
import { runWorker } from '../src/lib/server/jobs/index.ts';

export interface HarvestProcessRequest {
  catalogUrl: string;
  /** How long the captures may take before the benchmark gives up on them. */
  maxSeconds: number;
}

export interface ProcessMemory {
  rssMb: number;
  highWaterMb: number;
  heapUsedMb: number;
}

export interface HarvestProcessFigures {
  settings: { workerConcurrency: number; perHostConcurrency: number; perHostDelayMs: number; databasePoolMax: number; engine: string };
  harvest: { seconds: number; report: Omit<HarvestRunReport, 'errors'> & { errors: number; firstErrors: HarvestRunReport['errors'] }; records: number };
  captures: {
    /** From the first capture job claimed to the last one finished, by the database's clock. */
    seconds: number;
    /** From starting the worker until it had nothing left, by this process's clock (includes polling). */
    wallSeconds: number;
    /** A capture job's time from its claim to its end, on average: what one capture costs. */
    meanJobMs: number;
    /**
     * Capture jobs running at once on average over `seconds` (their time summed, over the span):
     * near the per-host limit, the slots were kept full; well under it, the worker left them idle.
     */
    meanRunning: number;
    jobs: Record<string, number>;
    stored: number;
    bytes: number;
    failed: number;
    /** The most frequent failure reasons, with their counts. */
    reasons: Array<{ reason: string; count: number }>;
    timedOut: boolean;
  };
  memory: { opened: ProcessMemory; harvested: ProcessMemory; captured: ProcessMemory };
  cpuSeconds: {
    harvest: number;
    captures: number;
    /** Of `captures`, the main thread's (JavaScript); the rest is libuv's file system threads and V8's helpers. */
    capturesMainThread: number;
    /** Of `captures`, V8's helper threads (its garbage collector's parallel and concurrent work, compiling) and libuv's. */
    capturesHelpers: { v8: number; libuv: number };
  };
}

const MB = 1_000_000;

function memory(): ProcessMemory {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: (kib('VmRSS') * 1024) / MB, highWaterMb: (kib('VmHWM') * 1024) / MB, heapUsedMb: process.memoryUsage().heapUsed / MB };
}

/**
 * CPU seconds of this process's threads so far, summed by what they are (`/proc/self/task`): V8's
 * helpers are named `V8Worker`, libuv's file system threads `libuv-worker`.
 */
function helperThreadsCpu(): { v8: number; libuv: number } {
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const seconds = { v8: 0, libuv: 0 };
  for (const task of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended since the listing
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the name: utime and stime are the 12th and 13th (proc(5): fields 14 and 15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const used = (Number(fields[11]) + Number(fields[12])) / clockTicks;
    if (name.startsWith('V8Worker')) seconds.v8 += used;
    else if (name.startsWith('libuv-worker')) seconds.libuv += used;
  }
  return seconds;
}
let clockTicks: number | undefined;

function cpuSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/**
 * BENCH_HARVEST_CPU_PROFILE=<file>: a CPU profile of the captures alone (b), for Chrome's DevTools
 * or any .cpuprofile reader; `--cpu-prof` would mix in the start and the harvest.
 * BENCH_HARVEST_HEAP_PROFILE=<file>: a sampling profile of what the captures allocate on V8's heap
 * (a .heapprofile), to see what keeps the young generation collecting.
 */
async function startProfile(): Promise<{ stop(): Promise<void> } | null> {
  const cpuFile = process.env.BENCH_HARVEST_CPU_PROFILE;
  const heapFile = process.env.BENCH_HARVEST_HEAP_PROFILE;
  if (!cpuFile && !heapFile) return null;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  if (cpuFile) {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  if (heapFile) {
    await session.post('HeapProfiler.enable');
    // Every 16 KB allocated, short-lived objects included: what a scavenge collects is the point.
    await session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  return {
    async stop() {
      if (cpuFile) writeFileSync(cpuFile, JSON.stringify((await session.post('Profiler.stop')).profile));
      if (heapFile) writeFileSync(heapFile, JSON.stringify((await session.post('HeapProfiler.stopSampling')).profile));
      session.disconnect();
    },
  };
}

if (!process.send) throw new Error('harvest-process.ts runs as a child of bench/harvest.ts (with an IPC channel).');
const tell = (message: unknown) => process.send!(message);

process.once('message', (request: HarvestProcessRequest) => {
  measure(request).then(
    (figures) => {
      tell({ phase: 'captured', figures });
      process.disconnect!();
    },
    (error: unknown) => {
      tell({ phase: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.disconnect!();
      process.exitCode = 1;
    },
  );
});

async function measure({ catalogUrl, maxSeconds }: HarvestProcessRequest): Promise<HarvestProcessFigures> {
  const config = readConfig();
  const archive = await openArchive({ config });
  try {
    const { db } = archive;
    const opened = memory();
    tell({ phase: 'opened' });

    // (a) The metadata: the whole catalogue read into the database, as a harvest job runs it
    // (`harvestRunHandler`: the page fetcher under the configuration's address policy).
    const { harvestSource } = await registerHarvestSource(db, { url: catalogUrl, kind: 'ckan', name: 'Portal local del banco de pruebas' });
    let cpu = process.cpuUsage();
    let started = performance.now();
    const report = await runHarvest(db, harvestSource.id, { fetchPage: catalogPageFetcher({ allowPrivate: config.captureAllowPrivate }) });
    const harvestSeconds = (performance.now() - started) / 1000;
    const harvestCpu = cpuSince(cpu);
    const harvested = memory();
    tell({ phase: 'harvested' });
    const [{ records = 0 } = {}] = await db.select({ records: count() }).from(alexandrias).where(eq(alexandrias.importId, report.importId));

    // (b) The captures: the worker `startBackgroundWork` starts in every server process, with the
    // same handlers and settings, until no capture is queued or running.
    const controller = new AbortController();
    const profiler = await startProfile();
    const helpersBefore = helperThreadsCpu();
    cpu = process.cpuUsage();
    const mainThreadCpu = process.threadCpuUsage();
    started = performance.now();
    const worker = runWorker({
      db,
      handlers: archiveJobHandlers(archive),
      signal: controller.signal,
      concurrency: config.worker.concurrency,
      perHostConcurrency: config.worker.perHostConcurrency,
      perHostDelayMs: config.worker.perHostDelayMs,
      onError: (error) => console.error('Cola de trabajos:', error),
    });
    const deadline = started + maxSeconds * 1000;
    let timedOut = false;
    let byStatus: Record<string, number> = {};
    for (;;) {
      // One small query every 200 ms: next to the captures' own queries, it costs nothing.
      await sleep(200);
      const rows = await db.select({ status: jobs.status, jobs: count() }).from(jobs).where(eq(jobs.kind, CAPTURE_JOB)).groupBy(jobs.status);
      byStatus = Object.fromEntries(rows.map((row) => [row.status, row.jobs]));
      if (!byStatus.queued && !byStatus.running) break;
      if (performance.now() > deadline) {
        timedOut = true;
        break;
      }
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const capturesCpu = cpuSince(cpu);
    const mainThread = process.threadCpuUsage(mainThreadCpu);
    const helpersAfter = helperThreadsCpu();
    await profiler?.stop();
    controller.abort(new Error('El banco de pruebas terminó.'));
    await worker;
    const captured = memory();

    const [span] = await db
      .select({
        seconds: sql<number>`extract(epoch from ${max(jobs.finishedAt)} - ${min(jobs.startedAt)})`,
        jobSeconds: sql<number>`sum(extract(epoch from ${jobs.finishedAt} - ${jobs.startedAt}))`,
        done: count(),
      })
      .from(jobs)
      .where(and(eq(jobs.kind, CAPTURE_JOB), eq(jobs.status, 'done')));
    const [stored] = await db
      .select({ files: count(), bytes: sql<number>`coalesce(sum(${captures.size}), 0)` })
      .from(captures)
      .where(isNotNull(captures.cid));
    const reasons = await db
      .select({ reason: captures.errorReason, count: count() })
      .from(captures)
      .where(and(isNull(captures.cid), isNotNull(captures.errorReason)))
      .groupBy(captures.errorReason)
      .orderBy(sql`count(*) desc`)
      .limit(5);
    return {
      settings: {
        workerConcurrency: config.worker.concurrency,
        perHostConcurrency: config.worker.perHostConcurrency,
        perHostDelayMs: config.worker.perHostDelayMs,
        databasePoolMax: config.databasePoolMax,
        engine: archive.engine,
      },
      harvest: {
        seconds: harvestSeconds,
        report: { ...report, errors: report.errors.length, firstErrors: report.errors.slice(0, 5) },
        records: Number(records),
      },
      captures: {
        seconds: Number(span?.seconds ?? Number.NaN),
        wallSeconds,
        meanJobMs: (Number(span?.jobSeconds) / Number(span?.done)) * 1000,
        meanRunning: Number(span?.jobSeconds) / Number(span?.seconds),
        jobs: byStatus,
        stored: Number(stored?.files ?? 0),
        bytes: Number(stored?.bytes ?? 0),
        failed: byStatus.failed ?? 0,
        reasons: reasons.map((row) => ({ reason: row.reason ?? '', count: Number(row.count) })),
        timedOut,
      },
      memory: { opened, harvested, captured },
      cpuSeconds: { harvest: harvestCpu, captures: capturesCpu, capturesMainThread: (mainThread.user + mainThread.system) / 1e6,
        capturesHelpers: { v8: helpersAfter.v8 - helpersBefore.v8, libuv: helpersAfter.libuv - helpersBefore.libuv },
      },
    };
  } finally {
    await archive.close();
  }
}
