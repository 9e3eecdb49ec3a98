/**
 * Harvesting a public catalogue and capturing its files (issue #18, "Fast"): datasets harvested per
 * second, files captured per second beside what the local file server alone delivers in the same
 * run, and the peak RSS of the process that does it. Targets: at least 500 datasets/s, captures at
 * least half of the file server's own rate with 4 requests at once per host, RSS under 300 MB.
 *
 * Four processes, as in production:
 * - the portal (`harvest-portal.ts`): a generated CKAN catalogue shaped like datos.gob.do's
 *   (`harvest-catalog.ts`; 10,000 datasets, 2,000 files of about 50 KB by default), on 127.0.0.1;
 * - the database: a fresh data folder migrated and seeded by `scripts/db-migrate.ts --seed-if-empty`
 *   as `npm start` prepares it, then the embedded PGlite served by `scripts/embedded-db.ts` over its
 *   Unix socket, one connection (`DATABASE_POOL_MAX=1`), exactly as `npm start` serves it; or a
 *   disposable PostgreSQL database (BENCH_HARVEST_DATABASE_URL), migrated and seeded the same way;
 * - the archive (`harvest-process.ts`): `openArchive`, then (a) `runHarvest` of the whole catalogue,
 *   then (b) the queue's worker with the server's handlers (`archiveJobHandlers`) until every
 *   capture is done, per-host concurrency 4 and no per-host delay (set through the configuration's
 *   environment, as an operator would);
 * - this one: it samples the others' memory and CPU and, once the captures are over, (c) fetches
 *   the same files from the portal, 4 at once, discarding the bytes: the file server's own rate;
 *   then (e) fetches them again, 4 at once, and keeps each one with no database, no provenance
 *   and no journal (`keepAll`), once as a capture does and once with the least any keeping can do.
 *   Not a target: it shows how much of the server's rate is left for the database once the bytes
 *   alone are kept.
 *
 * Every phase also reports the CPU seconds of each process (the archive's main thread apart from
 * its file system threads), and (f) sets them against the target: with every core busy, the
 * captures cannot end before their CPU seconds, all processes together, spread over the cores.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { SERVER_NODE_FLAGS } from '../scripts/node-flags.ts';
import type { CID } from 'multiformats/cid';
import type { ArchiveConfig } from '../src/lib/server/config.ts';
import { openDatabase } from '../src/lib/server/db/index.ts';
import { detectContent } from '../src/lib/server/content-type.ts';
import { importContent } from '../src/lib/server/storage/import-content.ts';
import { blockLayout, localBlockstore } from '../src/lib/server/storage/local-blockstore.ts';
import { inspect } from '../src/lib/server/uploads/inspect.ts';
import type { HarvestProcessFigures, HarvestProcessRequest } from './harvest-process.ts';
import type { PortalReady, PortalRequest } from './harvest-portal.ts';
import { table } from './stats.ts';

/** The targets. */
export const HARVEST_TARGETS = { datasetsPerSecond: 500, captureToServer: 0.5, peakRssMb: 300 } as const;

/** Requests at once to the portal: by the archive's worker (per host) and by the floor's client. */
const PER_HOST_CONCURRENCY = 4;
const FILE_BYTES = 50_000;
const SAMPLE_MS = 100;
const MB = 1_000_000;
/** The cores every process of the benchmark shares. */
const CORES = os.availableParallelism();

export interface HarvestOptions {
  config: ArchiveConfig;
  root: string;
  datasets: number;
  files: number;
  /** A disposable PostgreSQL database instead of a fresh embedded PGlite. */
  databaseUrl?: string | undefined;
  /** How long the captures may take before the run is declared failed. */
  maxCaptureSeconds: number;
}

export interface HarvestFigures {
  datasets: number;
  files: number;
  fileBytes: number;
  engine: string;
  prepareSeconds: number;
  settings: HarvestProcessFigures['settings'];
  metadata: { seconds: number; datasetsPerSecond: number; records: number; counts: HarvestProcessFigures['harvest']['report']['counts']; errors: number; capturesQueued: number };
  captures: HarvestProcessFigures['captures'] & { perSecond: number; MBps: number };
  /** The same files fetched by this process from the portal, 4 at once; `cpuSeconds`, this client's. */
  server: { seconds: number; perSecond: number; MBps: number; cpuSeconds: number };
  /** `captures.perSecond / server.perSecond`. */
  ratio: number;
  /** (e) The same files fetched and kept with no database (`keepAll`), 4 at once, each way: ceilings, not targets. */
  keepingAlone: Record<KeepingWay, { seconds: number; perSecond: number; ratio: number; cpuSeconds: number }>;
  /** CPU microseconds to create one empty file in the data folder (`fileCreationMicros`), before the harvest and after (e). */
  fileCreationMicros: { before: number; after: number };
  rss: {
    /** VmHWM of the archive's process at the end: its peak since it started. What the target is about. */
    peakMb: number;
    afterOpenMb: number;
    harvestPeakMb: number;
    capturePeakMb: number;
    /** The largest VmRSS read every 100 ms during each phase. */
    sampled: { harvest: number; captures: number };
    /** V8's heap in use at the end of each phase: what JavaScript holds, beside buffers and native memory. */
    heapUsedMb: { harvest: number; captures: number };
    targetMb: number;
  };
  /** The embedded database's own process (null on PostgreSQL): its largest VmRSS during each phase. */
  database: { harvestMb: number; capturesMb: number } | null;
  /** CPU seconds of each process during each phase: who was busy. */
  cpuSeconds: {
    harvest: { archive: number; database: number | null; portal: number };
    captures: { archive: number; archiveMainThread: number; archiveHelpers: { v8: number; libuv: number }; database: number | null; portal: number };
  };
  over: string[];
}

/**
 * CPU microseconds this process spends creating one empty file in `dir`, over `count` files left in
 * place. Every captured block is a new file, and what one costs depends on the disk's recent past,
 * not on the archive: on ext4 without a journal (this machine's disk), the kernel looks at each inode
 * freed in the last few seconds or minutes before it takes one (`recently_deleted`), so a folder
 * near many files just deleted (a test suite's, an earlier run's) costs up to a millisecond a file
 * instead of tens of microseconds. The files are not deleted here: that would slow what follows.
 */
function fileCreationMicros(dir: string, count = 200): number {
  mkdirSync(dir, { recursive: true });
  const before = process.cpuUsage();
  for (let index = 0; index < count; index += 1) closeSync(openSync(path.join(dir, `f${index}`), 'wx'));
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / count;
}

/** Resident memory of a process from /proc, in MB; NaN once it is gone. */
function residentMb(pid: number): { rssMb: number; highWaterMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssMb: (kib('VmRSS') * 1024) / MB, highWaterMb: (kib('VmHWM') * 1024) / MB };
  } catch {
    return { rssMb: Number.NaN, highWaterMb: Number.NaN };
  }
}

let clockTicks: number | undefined;

/** CPU seconds (user + system) of a process so far, from /proc/<pid>/stat; 0 once it is gone. */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return 0;
  }
}

/** The largest VmRSS of a few processes, read every SAMPLE_MS until `stop`. */
function sampleRss(pids: Array<number | undefined>): { stop(): number[] } {
  const peaks = pids.map(() => 0);
  const read = () =>
    pids.forEach((pid, index) => {
      if (pid === undefined) return;
      const { rssMb } = residentMb(pid);
      if (Number.isFinite(rssMb)) peaks[index] = Math.max(peaks[index]!, rssMb);
    });
  read();
  const timer = setInterval(read, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      read();
      return peaks;
    },
  };
}

const children = new Set<ChildProcess>();
// Whatever happens to the benchmark, the processes it started must not outlive it.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * A PostgreSQL database given to the harvest benchmark must be empty: in one that a previous run
 * (or the upload benchmark) filled, the catalogue's records exist already, nothing is captured
 * again, and the counts mix both runs. `run.ts` asks before any part runs.
 */
export async function assertEmptyDatabase(url: string): Promise<void> {
  const { db, close } = await openDatabase({ url, poolMax: 1 });
  try {
    const { rows } = (await db.execute(sql`select count(*) as tables from pg_tables where schemaname = 'public'`)) as unknown as { rows: Array<{ tables: string }> };
    if (Number(rows[0]?.tables) > 0) {
      throw new Error(`BENCH_HARVEST_DATABASE_URL debe nombrar una base de datos vacía, y esta ya tiene ${rows[0]!.tables} tabla(s): cree una nueva para cada ejecución.`);
    }
  } finally {
    await close();
  }
}

/** Starts `script` with Node, an IPC channel and `env`; its output goes to ours (stderr) so a failure shows. */
function startChild(root: string, script: string, env: Record<string, string>, nodeFlags: readonly string[] = []): ChildProcess {
  const child = spawn(path.join(root, 'node_modules/.bin/node'), [...nodeFlags, script], {
    cwd: root,
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** The next IPC message of `child` that `accept` takes; rejects if the child exits first. */
function messageFrom<T>(child: ChildProcess, accept: (message: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      let value: T | undefined;
      try {
        value = accept(message);
      } catch (error) {
        cleanup();
        reject(error);
        return;
      }
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`El proceso ${child.spawnfile} terminó antes de tiempo (${signal ?? code}).`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Fetches every URL, `concurrency` at once, handing each body to `visit`: a turn asks for its next
 * URL once `visit` resolves. Rejects on the first answer that is not a 2xx with a body.
 */
async function fetchEach(urls: string[], concurrency: number, visit: (body: ReadableStream<Uint8Array>) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        const response = await fetch(url);
        if (!response.ok || !response.body) throw new Error(`${url} respondió ${response.status}`);
        await visit(response.body);
      }
    }),
  );
}

/** Time and this process's CPU, both in seconds. */
interface Spent {
  seconds: number;
  cpuSeconds: number;
}

async function spending(work: () => Promise<void>): Promise<Spent> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Fetches every URL, `concurrency` at once, reading and discarding the bodies. */
function fetchAll(urls: string[], concurrency: number): Promise<Spent> {
  return spending(() =>
    fetchEach(urls, concurrency, async (body) => {
      for await (const chunk of body) void chunk;
    }),
  );
}

/**
 * How `keepAll` keeps a body: `archive`, the way a capture does before its database work (through
 * `inspect`: SHA-256, size, the first bytes' real type; the importer's blocks written to a staging
 * folder, then renamed into a local store, as a commit moves them); `bare`, the least any keeping
 * can do (the importer alone, its blocks written once into one folder: one SHA-256 per block, no
 * type, no staging).
 */
type KeepingWay = 'archive' | 'bare';

/**
 * Fetches every URL, `concurrency` at once, and keeps each body (`how`), with no database, no
 * capture row, no journal and no lock: what is left between this rate and the file server's is all
 * the database and provenance may cost.
 */
async function keepAll(urls: string[], concurrency: number, dir: string, how: KeepingWay): Promise<Spent> {
  const store = localBlockstore(path.join(dir, 'store'));
  const staging = path.join(dir, 'staging');
  await fs.mkdir(staging, { recursive: true });
  await fs.mkdir(path.join(dir, 'store'), { recursive: true });
  const stagedFile = (cid: CID) => path.join(staging, blockLayout.encode(cid).file);
  const keep = async (body: AsyncIterable<Uint8Array>) => {
    if (how === 'bare') {
      await importContent(body, {
        async put(cid, bytes) {
          await fs.writeFile(path.join(dir, 'store', blockLayout.encode(cid).file), bytes);
          return cid;
        },
      });
      return;
    }
    const inspection = inspect(body, { maxBytes: 100 * MB, tooLargeMessage: 'demasiado grande', checkHead: (head) => void detectContent(head) });
    const blocks: CID[] = [];
    await importContent(inspection.stream, {
      async put(cid, bytes) {
        await fs.writeFile(stagedFile(cid), bytes);
        blocks.push(cid);
        return cid;
      },
    });
    inspection.result();
    for (const cid of blocks) await store.adopt(cid, stagedFile(cid));
  };
  const keeping: Array<Promise<void>> = [];
  const spent = await spending(async () => {
    await fetchEach(urls, concurrency, async (body) => {
      // As in the archive's worker, the request's turn passes on once its body has come, while
      // its last block is still hashed and written. Files still being kept are not capped here
      // (the worker caps them with its slots): if anything, a generous ceiling.
      let ended!: () => void;
      const bodyEnded = new Promise<void>((resolve) => (ended = resolve));
      const kept = keep(
        (async function* () {
          try {
            yield* body;
          } finally {
            ended();
          }
        })(),
      );
      // Awaited below, with the others; a failure meanwhile is not left unhandled.
      kept.catch(() => {});
      keeping.push(kept);
      await Promise.race([bodyEnded, kept]);
    });
    await Promise.all(keeping);
  });
  await store.close();
  return spent;
}

export async function benchHarvest(options: HarvestOptions): Promise<HarvestFigures> {
  const { config, root } = options;
  console.log(
    `\nCosecha de un catálogo CKAN local: ${options.datasets.toLocaleString('es')} conjuntos, ` +
      `${options.files.toLocaleString('es')} archivos de unos ${FILE_BYTES / 1000} KB`,
  );
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-bench-harvest-'));
  const forget = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('exit', forget);
  let portal: ChildProcess | undefined;
  let database: ChildProcess | undefined;
  let archive: ChildProcess | undefined;
  try {
    // The portal first: generating the catalogue and its files takes a moment.
    let started = performance.now();
    portal = startChild(root, 'bench/harvest-portal.ts', {});
    const portalReady = messageFrom(portal, (message) => (message as PortalReady).origin ? (message as PortalReady) : undefined);
    portal.send({ datasets: options.datasets, files: options.files, fileBytes: FILE_BYTES, fixturesDir: config.fixturesDir } satisfies PortalRequest);
    const ready = await portalReady;
    console.log(`  portal en ${ready.origin} (pid ${portal.pid}): catálogo y archivos generados en ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // The database as `npm start` prepares and serves it.
    started = performance.now();
    const databaseEnv = { ARCHIVE_DATA_DIR: dataDir, DATABASE_URL: options.databaseUrl ?? '', ARCHIVE_SEED_ON_EMPTY: 'true' };
    const prepared = spawnSync(path.join(root, 'node_modules/.bin/node'), ['scripts/db-migrate.ts', '--seed-if-empty'], {
      cwd: root,
      env: { ...process.env, ...databaseEnv },
      encoding: 'utf8',
    });
    if (prepared.status !== 0) throw new Error(`No se pudo preparar la base de datos:\n${prepared.stdout}${prepared.stderr}`);
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      database = startChild(root, 'scripts/embedded-db.ts', databaseEnv);
      databaseUrl = await messageFrom(database, (message) => {
        const answer = message as { url?: string; error?: string };
        if (answer.error) throw new Error(`La base de datos embebida no abrió: ${answer.error}`);
        return answer.url;
      });
    }
    const prepareSeconds = (performance.now() - started) / 1000;
    const engine = options.databaseUrl ? `PostgreSQL en ${new URL(options.databaseUrl).host}` : 'PGlite en su propio proceso, como npm start';
    console.log(`  base de datos nueva con la carga inicial real (${engine}): ${prepareSeconds.toFixed(1)} s`);
    const creationMicrosBefore = fileCreationMicros(path.join(dataDir, 'file-creation-before'));

    archive = startChild(
      root,
      'bench/harvest-process.ts',
      {
        ARCHIVE_DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        // `npm start`'s single connection to the embedded database; PostgreSQL keeps the default pool.
        ...(options.databaseUrl ? {} : { DATABASE_POOL_MAX: '1' }),
        ARCHIVE_CAPTURE_ALLOW_PRIVATE: 'true',
        ARCHIVE_CAPTURE_HOST_CONCURRENCY: String(PER_HOST_CONCURRENCY),
        ARCHIVE_CAPTURE_HOST_DELAY_MS: '0',
      },
      // BENCH_HARVEST_NODE_FLAGS: more flags for the archive's process, to profile it
      // (`--cpu-prof --cpu-prof-dir=/tmp/profile`).
      [...SERVER_NODE_FLAGS, ...(process.env.BENCH_HARVEST_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])],
    );
    const phase = (name: string) =>
      messageFrom(archive!, (message) => {
        const answer = message as { phase?: string; message?: string; figures?: HarvestProcessFigures };
        if (answer.phase === 'error') throw new Error(`El proceso del archivo falló:\n${answer.message}`);
        return answer.phase === name ? answer : undefined;
      });
    // Listening for every step before asking, so that none is missed; the later ones are awaited in turn.
    const opened = phase('opened');
    const harvested = phase('harvested');
    const captured = phase('captured');
    harvested.catch(() => {});
    captured.catch(() => {});
    archive.send({ catalogUrl: ready.catalogUrl, maxSeconds: options.maxCaptureSeconds } satisfies HarvestProcessRequest);
    await opened;

    const pids = [archive.pid, database?.pid, portal.pid] as const;
    const cpu = () => pids.map(cpuSecondsOf);
    const cpuAtHarvest = cpu();
    const harvestRss = sampleRss([...pids]);
    await harvested;
    const [archiveHarvestMb, databaseHarvestMb] = harvestRss.stop();
    const cpuAtCaptures = cpu();
    const capturesRss = sampleRss([...pids]);
    const { figures: child } = await captured;
    const [archiveCapturesMb, databaseCapturesMb] = capturesRss.stop();
    const cpuAtEnd = cpu();
    await new Promise((resolve) => (archive!.exitCode !== null ? resolve(null) : archive!.once('exit', resolve)));
    if (!child) throw new Error('El proceso del archivo no envió sus cifras.');

    // (c) The file server alone, in the same run, with the archive's process gone.
    const server = await fetchAll(ready.fileUrls, PER_HOST_CONCURRENCY);
    const serverSeconds = server.seconds;
    // (e) The bytes alone kept, each way in a store of its own.
    const keeping = async (how: KeepingWay) => {
      const { seconds, cpuSeconds } = await keepAll(ready.fileUrls, PER_HOST_CONCURRENCY, path.join(dataDir, `keeping-${how}`), how);
      const rate = ready.fileUrls.length / seconds;
      return { seconds, perSecond: rate, ratio: rate / (ready.fileUrls.length / serverSeconds), cpuSeconds };
    };
    // Both ways once over a few files first: whichever ran first paid for compiling the shared code.
    for (const how of ['archive', 'bare'] as const) await keepAll(ready.fileUrls.slice(0, 300), PER_HOST_CONCURRENCY, path.join(dataDir, `warm-${how}`), how);
    const keepingAlone = { archive: await keeping('archive'), bare: await keeping('bare') };
    const creationMicrosAfter = fileCreationMicros(path.join(dataDir, 'file-creation-after'));

    const captureFiles = child.captures.stored;
    const figures: HarvestFigures = {
      datasets: options.datasets,
      files: ready.fileUrls.length,
      fileBytes: ready.fileBytes,
      engine,
      prepareSeconds,
      settings: child.settings,
      metadata: {
        seconds: child.harvest.seconds,
        datasetsPerSecond: options.datasets / child.harvest.seconds,
        records: child.harvest.records,
        counts: child.harvest.report.counts,
        errors: child.harvest.report.errors,
        capturesQueued: child.harvest.report.capturesQueued,
      },
      captures: {
        ...child.captures,
        perSecond: captureFiles / child.captures.seconds,
        MBps: child.captures.bytes / MB / child.captures.seconds,
      },
      server: { seconds: serverSeconds, perSecond: ready.fileUrls.length / serverSeconds, MBps: ready.fileBytes / MB / serverSeconds, cpuSeconds: server.cpuSeconds },
      ratio: 0,
      keepingAlone,
      fileCreationMicros: { before: creationMicrosBefore, after: creationMicrosAfter },
      rss: {
        peakMb: child.memory.captured.highWaterMb,
        afterOpenMb: child.memory.opened.rssMb,
        harvestPeakMb: child.memory.harvested.highWaterMb,
        capturePeakMb: child.memory.captured.highWaterMb,
        sampled: { harvest: archiveHarvestMb!, captures: archiveCapturesMb! },
        heapUsedMb: { harvest: child.memory.harvested.heapUsedMb, captures: child.memory.captured.heapUsedMb },
        targetMb: HARVEST_TARGETS.peakRssMb,
      },
      database: database ? { harvestMb: databaseHarvestMb!, capturesMb: databaseCapturesMb! } : null,
      cpuSeconds: {
        harvest: {
          archive: child.cpuSeconds.harvest,
          database: database ? cpuAtCaptures[1]! - cpuAtHarvest[1]! : null,
          portal: cpuAtCaptures[2]! - cpuAtHarvest[2]!,
        },
        captures: {
          archive: child.cpuSeconds.captures,
          archiveMainThread: child.cpuSeconds.capturesMainThread,
          archiveHelpers: child.cpuSeconds.capturesHelpers,
          database: database ? cpuAtEnd[1]! - cpuAtCaptures[1]! : null,
          portal: cpuAtEnd[2]! - cpuAtCaptures[2]!,
        },
      },
      over: [],
    };
    figures.ratio = figures.captures.perSecond / figures.server.perSecond;
    if (figures.metadata.datasetsPerSecond < HARVEST_TARGETS.datasetsPerSecond) figures.over.push('LENTO metadatos');
    if (!(figures.ratio >= HARVEST_TARGETS.captureToServer)) figures.over.push('LENTO capturas');
    if (figures.rss.peakMb >= HARVEST_TARGETS.peakRssMb) figures.over.push('OVER RSS');
    // A benchmark that did not do the work it measures says so, rather than print a rate.
    if (child.harvest.report.status !== 'done') figures.over.push('cosecha fallida');
    if (captureFiles !== figures.files || child.captures.failed > 0 || child.captures.timedOut) figures.over.push('capturas incompletas');
    printHarvest(figures);
    // Slow is a figure; not doing the work is a failure, so that the smoke run in `npm test` catches it.
    const broken = figures.over.filter((verdict) => verdict === 'cosecha fallida' || verdict === 'capturas incompletas');
    if (broken.length) throw new Error(`La cosecha del banco de pruebas no hizo su trabajo: ${broken.join(', ')}.`);
    return figures;
  } finally {
    await stopChild(archive);
    await stopChild(database);
    await stopChild(portal);
    process.off('exit', forget);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

const perSecond = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : '-');

function printHarvest(figures: HarvestFigures): void {
  const { metadata, captures, server, rss, cpuSeconds } = figures;
  const db = (value: number | null) => (value === null ? '' : `, base de datos ${value.toFixed(1)} s`);
  console.log(
    `  (a) metadatos: ${figures.datasets.toLocaleString('es')} conjuntos en ${metadata.seconds.toFixed(1)} s = ` +
      `${perSecond(metadata.datasetsPerSecond)} conjuntos/s (objetivo >= ${HARVEST_TARGETS.datasetsPerSecond}); ` +
      `${metadata.records.toLocaleString('es')} registros (nuevos ${metadata.counts.new}, sin cambios ${metadata.counts.unchanged}, ` +
      `fallidos ${metadata.counts.failed}), ${metadata.capturesQueued} capturas en cola`,
  );
  console.log(
    `      CPU: archivo ${cpuSeconds.harvest.archive.toFixed(1)} s${db(cpuSeconds.harvest.database)}, portal ${cpuSeconds.harvest.portal.toFixed(1)} s`,
  );
  console.log(
    `  (b) capturas: ${captures.stored}/${figures.files} en ${captures.seconds.toFixed(1)} s = ${perSecond(captures.perSecond)} archivos/s ` +
      `(${captures.MBps.toFixed(1)} MB/s; ${figures.settings.perHostConcurrency} a la vez por sitio, trabajador de ${figures.settings.workerConcurrency}, ` +
      `sin pausa por sitio); fallidas ${captures.failed}${captures.timedOut ? ', SIN TERMINAR en el tiempo máximo' : ''}`,
  );
  console.log(
    `      cada captura ${captures.meanJobMs.toFixed(0)} ms de media (de su reclamo a su fin); ${captures.meanRunning.toFixed(1)} en curso a la vez de media`,
  );
  for (const { reason, count } of captures.reasons) console.log(`      ${count} × ${reason}`);
  console.log(
    `      CPU: archivo ${cpuSeconds.captures.archive.toFixed(1)} s (hilo principal ${cpuSeconds.captures.archiveMainThread.toFixed(1)} s, ` +
      `ayudantes de V8 ${cpuSeconds.captures.archiveHelpers.v8.toFixed(1)} s, hilos de disco ${cpuSeconds.captures.archiveHelpers.libuv.toFixed(1)} s)` +
      `${db(cpuSeconds.captures.database)}, portal ${cpuSeconds.captures.portal.toFixed(1)} s`,
  );
  console.log(
    `  (c) el servidor de archivos solo (fetch, ${PER_HOST_CONCURRENCY} a la vez): ${server.seconds.toFixed(2)} s = ${perSecond(server.perSecond)} archivos/s ` +
      `(${server.MBps.toFixed(0)} MB/s; CPU de este cliente ${server.cpuSeconds.toFixed(1)} s); ` +
      `capturas / servidor = ${figures.ratio.toFixed(3)} (objetivo >= ${HARVEST_TARGETS.captureToServer})`,
  );
  console.log(
    `  (d) RSS del proceso que cosecha y captura: pico ${rss.peakMb.toFixed(0)} MB (VmHWM; objetivo < ${rss.targetMb} MB); ` +
      `${rss.afterOpenMb.toFixed(0)} MB tras abrir el archivo, pico ${rss.harvestPeakMb.toFixed(0)} MB al terminar la cosecha; ` +
      `montón de V8 en uso ${rss.heapUsedMb.harvest.toFixed(0)} MB tras la cosecha, ${rss.heapUsedMb.captures.toFixed(0)} MB tras las capturas`,
  );
  if (figures.database) {
    console.log(
      `      base de datos embebida, en su propio proceso: RSS hasta ${figures.database.harvestMb.toFixed(0)} MB durante la cosecha, ` +
        `${figures.database.capturesMb.toFixed(0)} MB durante las capturas (no cuenta para el objetivo)`,
    );
  }
  const { archive: asArchive, bare } = figures.keepingAlone;
  console.log(
    `  (e) guardar sin base de datos, ${PER_HOST_CONCURRENCY} a la vez (el techo de capturas / servidor antes de toda base de datos):\n` +
      `      como el archivo (SHA-256, tipo real, CID, bloques a la espera y renombrados al almacén): ` +
      `${asArchive.seconds.toFixed(2)} s = ${perSecond(asArchive.perSecond)} archivos/s = ${asArchive.ratio.toFixed(3)} del servidor, CPU ${asArchive.cpuSeconds.toFixed(1)} s\n` +
      `      lo mínimo (solo el CID y sus bloques al disco): ${bare.seconds.toFixed(2)} s = ${perSecond(bare.perSecond)} archivos/s = ${bare.ratio.toFixed(3)} del servidor, CPU ${bare.cpuSeconds.toFixed(1)} s\n` +
      `      crear un archivo vacío en la carpeta de datos: ${figures.fileCreationMicros.before.toFixed(0)} µs de CPU antes de la cosecha, ` +
      `${figures.fileCreationMicros.after.toFixed(0)} µs tras (e) ` +
      `(cada bloque capturado es un archivo nuevo; en un disco sin borrados recientes, unas decenas de µs: véase el README)`,
  );
  // What the target leaves to spend: on a machine whose cores are all busy, a phase cannot end
  // before its CPU seconds, all processes together, spread over every core.
  const budget = figures.server.seconds / HARVEST_TARGETS.captureToServer;
  const spent = cpuSeconds.captures.archive + (cpuSeconds.captures.database ?? 0) + cpuSeconds.captures.portal;
  console.log(
    `  (f) el objetivo pide capturar en ${budget.toFixed(2)} s: con ${CORES} núcleos, ${(budget * CORES).toFixed(1)} s de CPU entre todos los procesos; ` +
      `las capturas gastaron ${spent.toFixed(1)} s (archivo, base de datos y portal), y guardar los bytes sin base de datos, ` +
      `como el archivo, ${asArchive.cpuSeconds.toFixed(1)} s más lo del portal`,
  );
}

/** The summary's harvest lines, in the style of the other parts' tables. */
export function harvestSummary(figures: HarvestFigures): string {
  const state = figures.over.length ? figures.over.join(', ') : 'ok';
  return table([
    ['cosecha', 'valor', 'objetivo', 'estado'],
    [
      'metadatos (conjuntos/s)',
      perSecond(figures.metadata.datasetsPerSecond),
      `>= ${HARVEST_TARGETS.datasetsPerSecond}`,
      figures.metadata.datasetsPerSecond >= HARVEST_TARGETS.datasetsPerSecond ? 'ok' : 'LENTO',
    ],
    ['capturas (archivos/s)', perSecond(figures.captures.perSecond), '', ''],
    ['servidor de archivos solo (archivos/s)', perSecond(figures.server.perSecond), '', ''],
    ['guardar como el archivo, sin base (arch./s)', perSecond(figures.keepingAlone.archive.perSecond), '', ''],
    ['guardar lo mínimo, sin base (archivos/s)', perSecond(figures.keepingAlone.bare.perSecond), '', ''],
    ['capturas / servidor', figures.ratio.toFixed(3), `>= ${HARVEST_TARGETS.captureToServer}`, figures.ratio >= HARVEST_TARGETS.captureToServer ? 'ok' : 'LENTO'],
    ['RSS pico (MB)', figures.rss.peakMb.toFixed(0), `< ${HARVEST_TARGETS.peakRssMb}`, figures.rss.peakMb < HARVEST_TARGETS.peakRssMb ? 'ok' : 'OVER'],
    ['en conjunto', '', '', state],
  ]);
}
